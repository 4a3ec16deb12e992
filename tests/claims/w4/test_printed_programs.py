"""W4's printed program: the weight-memory calculator the post prints whole is the lab's.

The printed text (transcribed in fixtures/recorded/programs/W4/) is compared with the
bundled lab file by the ``printed_program`` fixture (tests/claims/conftest.py).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

pytestmark = pytest.mark.offline


@pytest.mark.claim("W4-PRINTED-MODEL-MEMORY", source="recorded")
def test_printed_model_memory_is_the_labs(printed_program: Callable[[str, str], None]) -> None:
    printed_program("W4", "week-04-parameters-memory/model_memory.py")
