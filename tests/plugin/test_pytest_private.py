"""claims.plugin.pytest_private: the one use of pytest's private API, version-guarded.

The package itself uses public pytest API only; this module is the exception, for the
pytest versions it is tested with (the spaced path options are tested end to end in
test_entry_point.py). Outside that range a user gets a clear error, never a silent
misconfiguration.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from claims.plugin import pytest_private
from tests.interpreter import modules_loaded

PACKAGE = Path(__file__).resolve().parents[2] / "claims"


def test_the_installed_pytest_is_in_the_tested_range() -> None:
    assert pytest_private.supported(), (pytest.__version__, pytest_private.TESTED)


def test_nothing_else_in_the_package_touches_pytests_private_api() -> None:
    private = re.compile(r"_pytest|config\._")
    offenders = [
        f"{path.relative_to(PACKAGE)}:{number}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.name != "pytest_private.py"
        for number, line in enumerate(path.read_text("utf-8").splitlines(), 1)
        if private.search(line)
    ]
    assert offenders == []


def test_the_version_range_matches_what_pyproject_pins() -> None:
    pyproject = (PACKAGE.parent / "pyproject.toml").read_text("utf-8")
    (low, high) = pytest_private.TESTED
    assert f'"pytest>={low[0]}.{low[1]},<{high[0]}"' in pyproject


def test_outside_the_range_a_spaced_path_option_is_a_clear_usage_error(
    monkeypatch: pytest.MonkeyPatch, pytester: pytest.Pytester
) -> None:
    monkeypatch.setattr(pytest_private, "TESTED", ((1, 0), (1, 1)))
    with pytest.raises(pytest_private.Unsupported, match="outside the versions"):
        pytest_private.run_unlogged(None, None)  # type: ignore[arg-type]
    pytester.makepyfile("def test_nothing():\n    pass\n")
    store = pytester.mkdir("models")
    result = pytester.runpytest("-p", "claims.plugin", "--ollama-models-dir", str(store))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*outside the versions*write the option as --option=PATH*"])


def test_the_shim_imports_nothing_private_when_loaded() -> None:
    """Loaded with the plugin (the -m reader), it imports no private module beyond pytest's."""
    loaded = modules_loaded("import claims.plugin.pytest_private", after="import pytest")
    assert "claims.plugin.pytest_private" in loaded
    assert sorted(m for m in loaded if m.startswith("_pytest")) == []


def test_an_ordinary_run_never_reaches_the_private_api(pytester: pytest.Pytester) -> None:
    """No suite option, no spaced path: not one of the shim's functions is called.

    In a child process, so that the refusals reach only the child's plugin (patched
    here, the suite's own run would refuse its own calls while this test ends).
    """
    pytester.makepyfile(
        refuse_shim=(
            "from claims.plugin import pytest_private\n\n"
            "def refuse(*args, **kwargs):\n"
            "    raise AssertionError(\"pytest's private API reached by an ordinary run\")\n\n"
            "for name in ('find_configuration', 'apply_configuration', 'run_unlogged',\n"
            "             'basetemp', 'mark_expression'):\n"
            "    setattr(pytest_private, name, refuse)\n"
        ),
        test_plain="def test_nothing():\n    pass\n",
    )
    result = pytester.runpytest_subprocess("-p", "refuse_shim", "-p", "claims.plugin",
                                           "-m", "not slow", "test_plain.py")
    result.assert_outcomes(passed=1)


@pytest.mark.parametrize(
    ("text", "markers", "kept"),
    [
        ("offline and not slow", {"offline"}, True),
        ("offline and not slow", {"offline", "slow"}, False),
        ("(offline)", set(), False),
        ("not ollama", set(), True),
        ("not ollama", {"ollama"}, False),
        ("offline(reason='x')", {"offline"}, False),  # a bare mark has no such argument
        ("True", {"True"}, True),  # a marker name to pytest, not Python's True
        ("  ", {"offline"}, False),  # pytest keeps nothing for a blank -m
    ],
)
def test_a_mark_expression_is_read_as_pytest_reads_it(
    text: str, markers: set[str], kept: bool, pytester: pytest.Pytester
) -> None:
    expression = pytest_private.mark_expression(text)
    assert expression.selects(markers) is kept
    # pytest itself, on a test carrying exactly those markers:
    marks = "".join(f"@getattr(pytest.mark, {name!r})\n" for name in sorted(markers))
    pytester.makepyfile(f"import pytest\n\n{marks}def test_it():\n    pass\n")
    result = pytester.runpytest(
        "-p", "no:claims.plugin", "-W", "ignore::pytest.PytestUnknownMarkWarning", "-m", text
    )
    result.assert_outcomes(passed=int(kept), deselected=int(not kept))


def test_an_expression_pytest_refuses_is_a_clear_error() -> None:
    with pytest.raises(pytest_private.BadExpression,
                       match=r"^offline or: at column 11: expected not OR left parenthesis"):
        pytest_private.mark_expression("offline or")
    assert pytest_private.mark_expression("offline or gpu").names == {"offline", "gpu"}
