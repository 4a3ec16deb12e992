"""W1's printed programs against the lab's week-01-environment files.

The post prints the inventory script ("the whole inventory script"), the install
script it says is packaged as setup.sh, and the validation script it names as
validate_gpu.py in the repo. The printed text (transcribed in
fixtures/recorded/programs/W1/) is compared with the bundled lab file by the
``printed_program`` fixture (tests/claims/conftest.py); where they differ, the catalog
keeps the claim as an erratum and the evidence shows the first differing lines.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

pytestmark = pytest.mark.offline

Judge = Callable[[str, str], None]


@pytest.mark.claim("W1-PRINTED-INVENTORY", source="recorded")
def test_printed_inventory_script_against_the_labs(printed_program: Judge) -> None:
    printed_program("W1", "week-01-environment/inventory.sh")


@pytest.mark.claim("W1-PRINTED-SETUP", source="recorded")
def test_printed_setup_script_against_the_labs(printed_program: Judge) -> None:
    printed_program("W1", "week-01-environment/setup.sh")


@pytest.mark.claim("W1-PRINTED-VALIDATE-GPU", source="recorded")
def test_printed_validation_script_against_the_labs(printed_program: Judge) -> None:
    printed_program("W1", "week-01-environment/validate_gpu.py")
