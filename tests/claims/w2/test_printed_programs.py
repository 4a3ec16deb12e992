"""W2's printed programs: each script the post prints whole is the lab's file it then runs.

The post prints four scripts in full and runs each from the lab repository
(``< public/week-02-first-local-model/<script>``); the printed text (transcribed in
fixtures/recorded/programs/W2/) is compared with the bundled lab file by the
``printed_program`` fixture (tests/claims/conftest.py).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

pytestmark = pytest.mark.offline

Judge = Callable[[str, str], None]


@pytest.mark.claim("W2-PRINTED-CHAT-CLIENT", source="recorded")
def test_printed_chat_client_is_the_labs(printed_program: Judge) -> None:
    printed_program("W2", "week-02-first-local-model/chat_client.py")


@pytest.mark.claim("W2-PRINTED-BENCHMARK", source="recorded")
def test_printed_benchmark_is_the_labs(printed_program: Judge) -> None:
    printed_program("W2", "week-02-first-local-model/benchmark.py")


@pytest.mark.claim("W2-PRINTED-DECODE-TOKENS", source="recorded")
def test_printed_decode_tokens_is_the_labs(printed_program: Judge) -> None:
    printed_program("W2", "week-02-first-local-model/decode_tokens.py")


@pytest.mark.claim("W2-PRINTED-INSPECT-TOKENIZER", source="recorded")
def test_printed_inspect_tokenizer_is_the_labs(printed_program: Judge) -> None:
    printed_program("W2", "week-02-first-local-model/inspect_tokenizer.py")
