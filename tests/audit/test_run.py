"""claims.audit.run: the stages on a fake session whose "tests" are functions of the figures.

The fake stands in for the pytest session (:class:`claims.audit.runner.AuditSession`):
each group's records are computed from the figures with the group's one perturbed, the
way a rerun of the real tests computes them from the swapped catalog.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from claims.audit.plan import MOVED_BOTH, MOVED_NEAR, MOVED_UP
from claims.audit.run import audit_figures
from claims.audit.runner import Group
from claims.catalog.records import Erratum

from ._records import Item, claim, measured, number, premise, record

KV = claim(
    "KV",
    number("layers", "32"),
    number("heads", "8"),
    number("bytes", "2", unit="B"),
    erratum=Erratum(explanation="MB printed for MiB", refutes=("KV at 2048",)),
)
Q = claim("Q", number("q", "4"))


def model_run(v: dict[str, Decimal]) -> dict[str, dict[str, Any]]:
    """Three tests. KV's table stays a known erratum unless its layers come within a few
    percent of 31 (then a listed figure holds: "error") or its bytes are not 2 (refuted).
    Q's first test computes with the layers and the heads and is refuted once they shrink;
    its second is always refuted."""
    kv = "error" if Decimal("30.5") <= v["layers"] <= Decimal("31.9") else "known-erratum"
    kv = "refuted" if v["bytes"] != 2 else kv
    q1 = "consistent" if v["layers"] > 20 and v["heads"] > 5 else "refuted"
    return {
        "kv": record(
            "KV",
            kv,
            measurements=[measured("bytes", 2.0)],
            premises=[premise("KV", "layers"), premise("KV", "heads")],
        ),
        "q1": record(
            "Q",
            q1,
            premises=[premise("KV", "layers"), premise("KV", "heads")],
            measurements=[measured("q", 4.0)],
        ),
        "q2": record("Q", "refuted", message="always"),
    }


class FakeSession:
    def __init__(self) -> None:
        self.items = [Item("kv"), Item("q1"), Item("q2")]
        self.by_claim = {"KV": [self.items[0]], "Q": self.items[1:]}
        self.wanted: set[str] | None = None
        self.catalog = [KV, Q]
        self.profile = "generic"
        self.runs: list[str | None] = []  # the figure of each group run

    def run(self, groups: list[Group]) -> None:
        stated = {f.name: Decimal(str(f.text)) for c in self.catalog for f in c.stated}
        for group in groups:
            values = dict(stated)
            if group.figure is not None:
                values[group.figure.name] = Decimal(str(group.figure.text))
            records = model_run(values)
            self.runs.append(group.figure.name if group.figure else None)
            for item in group.items:
                group.records[item.nodeid] = records[item.nodeid]


def test_only_a_figure_whose_claim_verdict_moves_is_counted():
    session = FakeSession()
    results = {r.figure: r for r in audit_figures(session)}  # type: ignore[arg-type]
    layers, heads = results["layers"], results["heads"]
    # Moving the layers down refutes Q's first check (Q stays refuted: not counted); stepped
    # near 32, the erratum stops reproducing: KV's own verdict moves.
    assert layers.sensitive and layers.how == MOVED_NEAR and layers.after == "error"
    assert layers.perturbed is not None and layers.perturbed.startswith("31.")
    # The heads change that same check and no claim's verdict: not counted, and explained
    # as a premise of the known erratum.
    assert not heads.sensitive
    assert heads.after == "known-erratum" and heads.changed_claims == []
    assert heads.reason is not None and heads.reason.startswith("a premise of the known erratum")
    stated = {"layers": Decimal(32), "heads": Decimal(8), "bytes": Decimal(2)}
    assert model_run({**stated, "heads": Decimal(4)})["q1"]["verdict"] == "refuted"  # moved down
    # Q's own figure cannot move a claim that is refuted already: explained, not counted.
    assert results["q"].how == MOVED_BOTH and "already refuted" in str(results["q"].reason)
    assert sum(r.sensitive for r in results.values()) == 2  # layers, and bytes below


def test_a_figure_that_moves_its_verdict_on_the_first_move_stops_there():
    session = FakeSession()
    results = {r.figure: r for r in audit_figures(session)}  # type: ignore[arg-type]
    found = results["bytes"]
    assert found.sensitive and found.how == MOVED_UP and found.perturbed == "3 B"
    assert (found.before, found.after) == ("known-erratum", "refuted")
    # One value perturbation; the rest are its unit, form and scope slips (stage 4).
    assert session.runs.count("bytes") == 1 + len(found.slips)
    # The baseline ran once, first; the heads were tried up, down and at 40 near steps.
    assert session.runs[0] is None and session.runs.count(None) == 1
    assert session.runs.count("heads") > 2


def test_each_compared_figure_is_slipped_and_a_slip_that_moves_nothing_says_why():
    session = FakeSession()
    results = {r.figure: r for r in audit_figures(session)}  # type: ignore[arg-type]
    found = results["bytes"]
    kinds = [s["kind"] for s in found.slips]
    assert kinds == ["unit", "form", "form", "scope"]
    # The fake's tests read the number only: the unit slip (B read as KB) moves nothing,
    # and KV is a known erratum whatever its bytes' unit says.
    (unit,) = [s for s in found.slips if s["kind"] == "unit"]
    assert unit["slipped"] == "2 KB" and not unit["caught"]
    assert "already known-erratum" in unit["why"]
    # A figure already explained (Q's, whose claim is refuted anyway) is not slipped.
    assert results["q"].slips == []
