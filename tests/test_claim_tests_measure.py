"""Claim tests measure; the catalog judges.

A claim test hands what it measured to the check by figure name
(``check.against``), and the catalog's figure says how it is judged (its form,
unit and scope). ``check.measure(..., holds=...)`` is left for truths a test
observes itself (bytes equal, a field present): a ``holds=`` that compares a
measurement with a number the test writes (a literal, or a module constant bound
to one) is a rule hidden in test code, which the catalog, the audit and the
report cannot see. Nor does a claim test or a probe decide scope with its own
"phi4" or "dgx-spark" branch: scope is the check's (``claims.check.out_of_scope``).

This module scans the source with :mod:`ast` and fails naming each such place;
planted cases show that each rule can fail.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# Numbers a truth observed by the test itself may name: none, one, at least one.
_OBSERVED_NUMBERS = frozenset({0, 1})

# Where a model's or a profile's name may decide something: the catalog and the
# profiles themselves.
SCOPE_HOMES = ("claims/catalog/", "claims/profiles.py")
_SCOPE_WORDS = frozenset({"phi4", "dgx-spark", "gb10", "nvidia gb10"})


@dataclass(frozen=True)
class Finding:
    path: str
    line: int
    what: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.what}"


def _module_numbers(tree: ast.Module) -> set[str]:
    """Module-level names bound to a number, numbers' arithmetic, or a tuple of numbers."""

    def numeric(node: ast.expr) -> bool:
        if isinstance(node, ast.Constant):
            return isinstance(node.value, (int, float)) and not isinstance(node.value, bool)
        if isinstance(node, ast.BinOp):
            return numeric(node.left) and numeric(node.right)
        if isinstance(node, ast.UnaryOp):
            return numeric(node.operand)
        if isinstance(node, (ast.Tuple, ast.List)):
            return bool(node.elts) and all(numeric(e) for e in node.elts)
        return False

    names: set[str] = set()
    for node in tree.body:
        value = node.value if isinstance(node, (ast.Assign, ast.AnnAssign)) else None
        if value is None or not numeric(value):
            continue
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        names.update(t.id for t in targets if isinstance(t, ast.Name))
    return names


def _written_numbers(
    node: ast.AST, constants: set[str], local: dict[str, list[ast.expr]], *, direct: bool = True
) -> Iterator[str]:
    """Numbers an operand of a comparison writes: literals other than 0 and 1, and
    module constants bound to numbers, also when a local the operand names was
    computed from such a constant. An index, a slice or a call's keyword (how the
    test measures: num_predict=16) is not a figure."""
    if isinstance(node, ast.Constant):
        value = node.value
        number = isinstance(value, (int, float)) and not isinstance(value, bool)
        if direct and number and value not in _OBSERVED_NUMBERS:
            yield repr(value)
        return
    if isinstance(node, ast.Name):
        if node.id in constants:
            yield node.id
        elif direct and node.id in local:
            for value in local[node.id]:
                yield from _written_numbers(value, constants, local, direct=False)
        return
    if isinstance(node, ast.Subscript):
        yield from _written_numbers(node.value, constants, local, direct=direct)
        return
    if isinstance(node, (ast.Lambda, ast.Compare)):
        return  # a nested comparison is judged on its own
    if isinstance(node, ast.Call):
        for arg in node.args:
            yield from _written_numbers(arg, constants, local, direct=direct)
        return
    for child in ast.iter_child_nodes(node):
        yield from _written_numbers(child, constants, local, direct=direct)


def _locals(func: ast.AST) -> dict[str, list[ast.expr]]:
    """What each local name of a function is assigned, to follow a value into holds=."""
    found: dict[str, list[ast.expr]] = {}
    for node in ast.walk(func):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    found.setdefault(target.id, []).append(node.value)
        elif (
            isinstance(node, (ast.AnnAssign, ast.NamedExpr))
            and node.value is not None
            and isinstance(node.target, ast.Name)
        ):
            found.setdefault(node.target.id, []).append(node.value)
    return found


def _holds_comparisons(expr: ast.expr, local: dict[str, list[ast.expr]]) -> Iterator[ast.Compare]:
    """The comparisons a holds= value is made of, through the locals it names."""
    seen: set[str] = set()
    todo = [expr]
    while todo:
        node = todo.pop()
        for sub in ast.walk(node):
            if isinstance(sub, ast.Compare):
                yield sub
            elif isinstance(sub, ast.Name) and sub.id in local and sub.id not in seen:
                seen.add(sub.id)
                todo.extend(local[sub.id])


def _tolerance_calls(expr: ast.expr) -> Iterator[ast.Call]:
    """isclose/approx calls given a tolerance the test writes."""
    for sub in ast.walk(expr):
        if (
            isinstance(sub, ast.Call)
            and ast.unparse(sub.func).split(".")[-1] in ("isclose", "approx")
            and any(k.arg in ("rel_tol", "abs_tol", "rel", "abs") for k in sub.keywords)
        ):
            yield sub


def _functions(tree: ast.Module) -> Iterator[ast.FunctionDef | ast.AsyncFunctionDef]:
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node


def written_bounds(path: Path, rel: str) -> list[Finding]:
    """Each holds= of a claim test that compares with a number the test writes."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=rel)
    constants = _module_numbers(tree)
    findings: list[Finding] = []
    for func in _functions(tree):
        local = _locals(func)
        for call in ast.walk(func):
            if not isinstance(call, ast.Call):
                continue
            for kw in call.keywords:
                if kw.arg != "holds":
                    continue
                for compare in _holds_comparisons(kw.value, local):
                    for operand in (compare.left, *compare.comparators):
                        findings.extend(
                            Finding(
                                rel,
                                compare.lineno,
                                f"holds= compares with {written} written in the test "
                                f"({ast.unparse(compare)[:80]}); make it a catalog "
                                "figure and use check.against",
                            )
                            for written in _written_numbers(operand, constants, local)
                        )
                findings.extend(
                    Finding(
                        rel,
                        tol.lineno,
                        f"holds= uses a tolerance written in the test ({ast.unparse(tol)[:80]})",
                    )
                    for tol in _tolerance_calls(kw.value)
                )
    return sorted(set(findings), key=lambda f: (f.line, f.what))


def _scope_word(node: ast.AST, scope_names: set[str]) -> str | None:
    if (
        isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and (node.value.lower() in _SCOPE_WORDS or node.value.lower().startswith("phi4:"))
    ):
        return node.value
    if isinstance(node, ast.Name) and node.id in scope_names:
        return node.id
    return None


def scope_rules(path: Path, rel: str) -> list[Finding]:
    """Each place that decides by a model's, profile's or GPU's name: a comparison,
    a condition, or a model_matches/same_model/bandwidth_peak_for argument. A table of
    published specifications keyed by the name a device reports is a probe's data,
    not a rule about which figures apply."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=rel)
    scope_names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.Assign) and _scope_word(node.value, set()) is not None:
            scope_names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    findings: list[Finding] = []

    def flag(where: ast.expr, inside: ast.expr | ast.Call) -> None:
        for sub in ast.walk(where):
            word = _scope_word(sub, scope_names)
            if word is not None:
                findings.append(
                    Finding(
                        rel,
                        inside.lineno,
                        f"decides by the name {word!r} ({ast.unparse(inside)[:80]}); "
                        "scope is the catalog figure's, judged by the check",
                    )
                )

    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            flag(node, node)
        elif isinstance(node, (ast.If, ast.IfExp, ast.While, ast.Assert)):
            flag(node.test, node.test)
        elif isinstance(node, ast.Call) and ast.unparse(node.func).split(".")[-1] in (
            "model_matches",
            "same_model",
            "bandwidth_peak_for",
        ):
            for arg in node.args:
                flag(arg, node)
    return sorted(set(findings), key=lambda f: (f.line, f.what))


def _sources(under: str, skip: tuple[str, ...] = ()) -> Iterator[tuple[Path, str]]:
    for path in sorted((ROOT / under).rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if not rel.startswith(skip):
            yield path, rel


def test_no_claim_test_compares_a_measurement_with_a_number_it_writes() -> None:
    findings = [
        f
        for path, rel in _sources("tests/claims")
        for f in written_bounds(path, rel)
    ]
    assert not findings, "\n".join(str(f) for f in findings)


def test_no_scope_rule_outside_the_catalog_and_the_profiles() -> None:
    findings = [
        f
        for under in ("claims", "tests/claims")
        for path, rel in _sources(under, SCOPE_HOMES)
        for f in scope_rules(path, rel)
    ]
    assert not findings, "\n".join(str(f) for f in findings)


PLANTED = '''
import pytest

SHARE = 0.02


@pytest.mark.claim("W1-UNIFIED-MEM")
def test_share(check, share, day_s, rate, expected):
    check.measure("share", share, holds=share <= SHARE)
    check.measure("day", day_s, holds=abs(day_s - 86400) < 120)
    ok = rate > 4 * 1e9
    check.measure("rate", rate, holds=ok)
    check.measure("close", rate, holds=math.isclose(rate, expected, rel_tol=0.05))
    check.measure("present", share, holds=share > 0 and len([share]) == 1)
'''


def test_a_planted_written_bound_is_found(tmp_path: Path) -> None:
    path = tmp_path / "test_planted.py"
    path.write_text(PLANTED, encoding="utf-8")
    found = [
        (f.line, f.what.split(" written")[0].removeprefix("holds= "))
        for f in written_bounds(path, "planted")
    ]
    # Line 14's observed truths (> 0, == 1) are not found.
    assert found == [
        (9, "compares with SHARE"),
        (10, "compares with 120"),
        (10, "compares with 86400"),
        (11, "compares with 1000000000.0"),
        (11, "compares with 4"),
        (13, "uses a tolerance"),
    ]


PLANTED_SCOPE = '''
PHI4 = "phi4"
PEAK = bandwidth_peak_for("NVIDIA GB10")


def test_scope(check, model, machine_profile):
    """Held for phi4 on a dgx-spark only (a docstring names them freely)."""
    if machine_profile == "dgx-spark":
        check.note("spark")
    if model_matches(PHI4, model):
        check.note("phi4")
    check.note("measured on phi4")  # shown, not a rule
'''


def test_a_planted_scope_rule_is_found(tmp_path: Path) -> None:
    path = tmp_path / "planted.py"
    path.write_text(PLANTED_SCOPE, encoding="utf-8")
    words = sorted(f.what.split("'")[1] for f in scope_rules(path, "planted"))
    assert words == ["NVIDIA GB10", "PHI4", "dgx-spark"]
    assert [f.line for f in scope_rules(path, "planted")] == [3, 8, 10]

