"""claims.verdicts: the decision of a check's verdict, and the verdicts per claim."""

from __future__ import annotations

import ast
from dataclasses import replace
from pathlib import Path

import pytest

from claims import verdicts
from claims.verdicts import (
    PRIORITY,
    Decision,
    Ending,
    Stop,
    Verdict,
    check_verdict,
    claim_verdict,
    decide,
    summarize,
    through_fake,
)


def rec(verdict, source="fixture", **extra):
    """A check record as evidence.json stores it: the verdict a plain string."""
    return {"verdict": str(verdict), "source": source, **extra}


def test_a_check_record_carries_its_verdict():
    for verdict in PRIORITY:
        assert check_verdict(rec(verdict)) is verdict


@pytest.mark.parametrize(
    "record",
    [
        {"outcome": "passed", "source": "live"},  # no verdict written: decided nothing
        rec("untestable"),  # a claim's verdict, never a check's
        rec("confirmed"),
    ],
)
def test_a_record_without_a_valid_verdict_is_an_error(record):
    assert check_verdict(record) is Verdict.ERROR


def test_a_live_refutation_is_never_hidden_by_a_recorded_pass():
    checks = [rec("consistent", "recorded"), rec("refuted", "live", message="no")]
    assert claim_verdict(True, None, checks) == (Verdict.REFUTED, "no")


def test_reproduced_needs_a_live_check():
    only_recorded = [rec("consistent", "recorded")]
    assert claim_verdict(True, None, only_recorded)[0] is Verdict.CONSISTENT
    with_live = [*only_recorded, rec("reproduced", "live")]
    assert claim_verdict(True, None, with_live)[0] is Verdict.REPRODUCED


def test_errata_outrank_confirmations():
    checks = [rec("reproduced", "live"), rec("known-erratum")]
    assert claim_verdict(True, None, checks)[0] is Verdict.KNOWN_ERRATUM


def test_claims_without_checks_are_not_run_and_untestable_keep_their_reason():
    assert claim_verdict(True, None, []) == (
        Verdict.NOT_RUN,
        "no test of this claim was selected in this run",
    )
    assert claim_verdict(False, "an opinion", []) == (Verdict.UNTESTABLE, "an opinion")


def test_not_run_reasons_are_combined():
    checks = [
        rec("not-run", message="no server"),
        rec("not-run", message="no GPU"),
    ]
    assert claim_verdict(True, None, checks) == (Verdict.NOT_RUN, "no GPU | no server")


def test_a_certification_run_shows_what_the_live_check_showed():
    checks = [rec("consistent", "recorded"), rec("not-run", "live", message="no server")]
    assert claim_verdict(True, None, checks) == (Verdict.CONSISTENT, None)
    certified = claim_verdict(True, None, checks, certification=True)
    assert certified == (Verdict.NOT_RUN, "no server")
    failed = [rec("consistent", "recorded"), rec("error", "live", message="probe broke")]
    certified = claim_verdict(True, None, failed, certification=True)
    assert certified == (Verdict.ERROR, "probe broke")
    # A claim with no live check keeps its offline verdict in a certification run.
    assert claim_verdict(True, None, checks[:1], certification=True)[0] is Verdict.CONSISTENT


def test_an_erratum_that_now_holds_keeps_its_reason():
    checks = [rec("error", message="MC-X: catalogued as a known erratum, but a now holds")]
    assert claim_verdict(True, None, checks) == (
        Verdict.ERROR,
        "MC-X: catalogued as a known erratum, but a now holds",
    )


def test_priority_is_a_total_order_of_the_run_verdicts():
    assert PRIORITY[0] is Verdict.REFUTED and Verdict.UNTESTABLE not in PRIORITY
    assert set(PRIORITY) | {Verdict.UNTESTABLE} == set(Verdict)


def test_summary_counts_per_document():
    claims = [
        {"verdict": "consistent", "document": "W1"},
        {"verdict": "refuted", "document": "W2"},
        {"verdict": "consistent", "document": "W2"},
    ]
    summary = summarize(claims)
    assert summary["by_verdict"][Verdict.CONSISTENT] == 2
    assert summary["by_document"]["W2"][Verdict.REFUTED] == 1


def test_a_check_through_a_fake_is_never_reproduced():
    fake = rec("reproduced", "live", simulated=True, message="simulated: passed through fake CUDA")
    assert check_verdict(fake) is Verdict.NOT_RUN
    assert check_verdict(rec("refuted", "live", simulated=True)) is Verdict.REFUTED
    verdict, reason = claim_verdict(True, None, [fake])
    assert verdict is Verdict.NOT_RUN and reason.startswith("simulated:")
    with_recorded = [fake, rec("consistent", "recorded")]
    assert claim_verdict(True, None, with_recorded)[0] is Verdict.CONSISTENT


# --- decide: every ending, with and without a fake, with and without a later teardown error

WHY = "why it ended"
FAKES = ("fake CUDA", "fake nvidia-smi")
SIMULATED_MESSAGE = (
    "simulated: passed through fake CUDA, fake nvidia-smi; a fake confirms nothing about a machine"
)
# id: (the ending, its decision, whether a later teardown error spoils it)
ENDINGS: dict[str, tuple[Ending, Decision, bool]] = {
    "passed-holds-live": (
        Ending(conclusion="holds", source="live"),
        Decision("passed", Verdict.REPRODUCED, message=WHY),
        True,
    ),
    "passed-holds-fixture": (
        Ending(conclusion="holds", source="fixture"),
        Decision("passed", Verdict.CONSISTENT, message=WHY),
        True,
    ),
    "passed-holds-recorded": (
        Ending(conclusion="holds", source="recorded"),
        Decision("passed", Verdict.CONSISTENT, message=WHY),
        True,
    ),
    "passed-without-conclusion": (
        Ending(source="live"),
        Decision("passed", Verdict.ERROR, failure="nothing-compared", message=WHY),
        True,
    ),
    "xfailed-catalogued-erratum": (
        Ending(Stop.EXPECTED_FAILURE, conclusion="known-erratum", source="live"),
        Decision("xfailed", Verdict.KNOWN_ERRATUM, message=WHY),
        True,
    ),
    "xfailed-without-erratum": (
        Ending(Stop.EXPECTED_FAILURE, source="live"),
        Decision(
            "xfailed",
            Verdict.ERROR,
            failure="error",
            message=f"expected failure without a catalogued erratum: {WHY}",
        ),
        True,
    ),
    "skipped-not-applicable": (
        Ending(Stop.NOT_APPLICABLE, phase="setup", source="live"),
        Decision("skipped", Verdict.NOT_APPLICABLE, status="not-applicable", message=WHY),
        True,
    ),
    "skipped-not-run": (
        Ending(Stop.NOT_RUN, phase="setup", source="live"),
        Decision("skipped", Verdict.NOT_RUN, status="not-run", message=WHY),
        True,
    ),
    "required-but-not-run": (
        Ending(Stop.REQUIRED_BUT_NOT_RUN, phase="setup", source="live"),
        Decision("failed", Verdict.NOT_RUN, failure="not-run", message=WHY),
        False,
    ),
    "erratum-now-holds": (
        Ending(Stop.ERRATUM_HOLDS, conclusion="erratum-holds", source="live"),
        Decision("failed", Verdict.ERROR, failure="erratum-holds", message=WHY),
        False,
    ),
    "nothing-compared": (
        Ending(Stop.NOTHING_COMPARED, conclusion="nothing-compared", source="live"),
        Decision("failed", Verdict.ERROR, failure="nothing-compared", message=WHY),
        False,
    ),
    "assertion-in-call": (
        Ending(Stop.ASSERTION, conclusion="refuted", source="live"),
        Decision("failed", Verdict.REFUTED, failure="refuted", message=WHY),
        False,
    ),
    "assertion-in-setup": (
        Ending(Stop.ASSERTION, phase="setup", source="live"),
        Decision("error", Verdict.ERROR, failure="error", message=WHY),
        False,
    ),
    "other-error": (
        Ending(Stop.ERROR, source="live"),
        Decision("error", Verdict.ERROR, failure="error", message=WHY),
        False,
    ),
    "interrupted": (
        Ending(Stop.INTERRUPTED, source="live"),
        Decision("skipped", Verdict.NOT_RUN, failure="interrupted", status="not-run",
                 message=WHY),
        True,
    ),
}


def test_the_table_has_every_way_a_check_stops():
    # A new Stop without a row here would be decided untested.
    stops = {ending.stop for ending, _, _ in ENDINGS.values()}
    assert stops == {None, *Stop}


@pytest.mark.parametrize("teardown", [False, True], ids=["", "teardown-error"])
@pytest.mark.parametrize("simulated", [False, True], ids=["", "simulated"])
@pytest.mark.parametrize("name", list(ENDINGS))
def test_decide(name, simulated, teardown):
    ending, expected, spoiled = ENDINGS[name]
    ending = replace(ending, message=WHY)
    if simulated:
        ending = replace(ending, fakes=FAKES)
    if simulated and ending.source == "live":  # a recorded or fixture check reads files
        # Through a fake a confirmation reads "not run"; anything else stands, and
        # what the check concluded there is kept apart.
        verdict = Verdict.NOT_RUN if expected.verdict is Verdict.REPRODUCED else expected.verdict
        message = SIMULATED_MESSAGE if verdict is not expected.verdict else expected.message
        expected = replace(expected, verdict=verdict, message=message, concluded=expected.verdict)
    if teardown:
        ending = replace(ending, teardown_error="fixture broke")
        if spoiled:
            expected = replace(
                expected,
                outcome="error",
                verdict=Verdict.ERROR,
                failure="error",
                message="teardown: fixture broke",
            )
    assert decide(ending) == expected


@pytest.mark.parametrize(
    ("kind", "verdict"),
    [
        ("refuted", Verdict.REFUTED),
        ("known-erratum", Verdict.KNOWN_ERRATUM),
        ("erratum-holds", Verdict.ERROR),
        ("nothing-compared", Verdict.ERROR),
        ("not-applicable", Verdict.NOT_APPLICABLE),
    ],
)
def test_a_pass_keeps_the_verdict_of_what_its_check_found(kind, verdict):
    # claims.plugin.conclusion raises for each of these, so the test does not pass; were
    # one to pass, its record would still say what the check found, not "confirmed".
    assert decide(Ending(conclusion=kind, source="live")) == Decision("passed", verdict)


@pytest.mark.parametrize("source", ["recorded", "fixture"])
def test_only_a_live_check_measures_through_a_fake(source):
    # A recorded or fixture check reads files, not the faked machine.
    ending = Ending(conclusion="holds", source=source, fakes=FAKES, message=None)
    assert decide(ending) == Decision("passed", Verdict.CONSISTENT)


def test_a_decision_writes_its_fields_into_the_record_in_the_records_order():
    skipped = decide(Ending(Stop.NOT_RUN, message="no server"))
    record = {"nodeid": "t"}
    skipped.write(record)
    assert list(record.items()) == [
        ("nodeid", "t"),
        ("outcome", "skipped"),
        ("verdict", "not-run"),
        ("status", "not-run"),
        ("message", "no server"),
    ]
    spoiled = decide(replace(Ending(Stop.NOT_RUN, message="no server"), teardown_error="x"))
    record = {"nodeid": "t"}
    spoiled.write(record)
    assert list(record) == ["nodeid", "outcome", "verdict", "failure", "status", "message"]
    record = {"message": "the report's", "outcome": "failed"}
    decide(Ending(conclusion="holds")).write(record)
    # Fields the record holds keep their place; the decision's values replace theirs.
    assert list(record.items()) == [
        ("message", None), ("outcome", "passed"), ("verdict", "consistent")
    ]


def test_reading_a_record_uses_the_same_rule_for_a_fake_as_decide():
    decided = decide(Ending(conclusion="holds", source="live", fakes=FAKES)).verdict
    assert decided is through_fake(Verdict.REPRODUCED, simulated=True) is Verdict.NOT_RUN
    for verdict in PRIORITY:
        stored = rec(verdict, "live", simulated=True)
        assert check_verdict(stored) is through_fake(verdict, simulated=True)
        assert check_verdict(rec(verdict, "live")) is verdict


# --- guard: verdict names are Verdict members outside claims.verdicts

VERDICT_NAMES = frozenset(Verdict)
PACKAGE = Path(verdicts.__file__).parent


def _is_verdict_name(node: ast.AST | None) -> bool:
    return isinstance(node, ast.Constant) and node.value in VERDICT_NAMES


def _verdict_names(node: ast.AST) -> bool:
    """A verdict name, or a tuple, list or set of them (``v in ("refuted", "error")``)."""
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return bool(node.elts) and all(_is_verdict_name(e) for e in node.elts)
    return _is_verdict_name(node)


def _is_key(node: ast.AST | None) -> bool:
    return isinstance(node, ast.Constant) and node.value == "verdict"


def _holds_a_verdict(node: ast.AST) -> bool:
    """An expression that reads a verdict: a name or attribute *verdict*, x["verdict"],
    x.get("verdict")."""
    if isinstance(node, ast.Name):
        return "verdict" in node.id.lower()
    if isinstance(node, ast.Attribute):
        return "verdict" in node.attr.lower()
    if isinstance(node, ast.Subscript):
        return _is_key(node.slice)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        return node.func.attr == "get" and bool(node.args) and _is_key(node.args[0])
    return False


def bare_verdicts(source: str) -> list[int]:
    """Lines where ``source`` spells a verdict out as a string where a Verdict belongs.

    A verdict name as the value of a "verdict" key (dict literal, keyword,
    item assignment, ``.get("verdict", default)``), assigned to a name
    *verdict*, or compared with an expression that reads a verdict. The same
    strings as an outcome, failure or status value are no verdicts and pass.
    """
    lines: list[int] = []
    for node in ast.walk(ast.parse(source)):
        hit = False
        if isinstance(node, ast.Dict):
            pairs = zip(node.keys, node.values, strict=True)
            hit = any(_is_key(k) and _is_verdict_name(v) for k, v in pairs)
        elif isinstance(node, ast.keyword):
            hit = node.arg == "verdict" and _is_verdict_name(node.value)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            hit = _is_verdict_name(node.value) and any(_holds_a_verdict(t) for t in targets)
        elif isinstance(node, ast.Call) and _holds_a_verdict(node):
            hit = len(node.args) > 1 and _is_verdict_name(node.args[1])
        elif isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            hit = any(_holds_a_verdict(s) for s in sides) and any(_verdict_names(s) for s in sides)
        if hit:
            lines.append(int(getattr(node, "lineno", 0)))
    return sorted(set(lines))


def test_no_module_spells_a_verdict_out():
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        name = path.relative_to(PACKAGE)
        if name.as_posix() == "verdicts.py":
            continue
        found += [f"claims/{name}:{line}" for line in bare_verdicts(path.read_text("utf-8"))]
    assert found == []


@pytest.mark.parametrize(
    "planted",
    [
        'rec = {"outcome": "passed", "verdict": "reproduced"}',
        'rec.update(outcome="error", verdict="error")',
        'rec["verdict"] = "not-run"',
        'verdict = "known-erratum"',
        'if rec.get("verdict") == "not-applicable": pass',
        'if check["verdict"] != "consistent": pass',
        'if decision.verdict in ("refuted", "error"): pass',
        'if "untestable" == claim_verdict: pass',
        'seen = rec.get("verdict", "error")',
    ],
)
def test_the_guard_finds_a_planted_verdict_name(planted):
    assert bare_verdicts(f"x = 1\n{planted}\n") == [2]


@pytest.mark.parametrize(
    "fine",
    [
        'rec = {"outcome": "error", "failure": "not-run", "status": "not-applicable"}',
        'rec.update(outcome="error", failure="error", verdict=Verdict.ERROR)',
        'if rec["outcome"] == "error" or status == "not-run": pass',
        'if conclusion.kind == "refuted": pass',
        'if decision.outcome != "refuted": pass',
        'if verdict is Verdict.NOT_RUN: pass',
        'reason = {"error": "probe failed"}.get(verdict)',
    ],
)
def test_the_guard_passes_outcomes_failures_and_members(fine):
    assert bare_verdicts(fine) == []
