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
        self.pinned_units: dict[str, str] = {}  # figure -> the unit its anchor pins

    def anchor_of(self, claim_id: str, figure: str) -> object | None:
        unit = self.pinned_units.get(figure)
        return None if unit is None else type("Anchor", (), {"unit": unit, "reads": None})()

    def run(self, groups: list[Group]) -> None:
        stated = {f.name: Decimal(str(f.text)) for c in self.catalog for f in c.stated}
        for group in groups:
            values = dict(stated)
            if group.figure is not None:
                values[group.figure.name] = Decimal(str(group.figure.text))
            records = model_run(values)
            self.runs.append(group.figure.name if group.figure else None)
            pinned = self.pinned_units.get(group.figure.name) if group.figure else None
            if group.pinned and pinned is not None and group.figure.unit != pinned:
                # As the runner does: the anchor objects, the claim's tests fail in set-up.
                group.pin = f"{group.figure.name}: stated in {group.figure.unit}"
                records = {k: {**r, "verdict": "error"} for k, r in records.items()}
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
    assert kinds == ["unit"] * 8 + ["form", "form", "scope"]
    # The fake's tests read the number only and its anchor pins no unit: a unit slip (B read
    # as KB, GiB...) moves nothing, and KV is a known erratum whatever its bytes' unit says.
    units = [s for s in found.slips if s["kind"] == "unit"]
    assert units[0]["slipped"] == "2 KB" and not any(u["caught"] for u in units)
    assert all("already known-erratum" in u["why"] and "pins no printed unit" in u["why"]
               for u in units)
    # A figure already explained (Q's, whose claim is refuted anyway) is not slipped.
    assert results["q"].slips == []


def test_a_unit_slip_of_an_erratum_figure_is_caught_by_the_unit_its_anchor_pins():
    """Errata are matched by figure name, so a known erratum whose unit slipped still read as
    the same erratum; with the unit pinned by its anchor, the run's input check fails the
    claim's tests instead (error), which the audit counts as caught, by the anchor."""
    session = FakeSession()
    session.pinned_units = {"bytes": "B"}
    results = {r.figure: r for r in audit_figures(session)}  # type: ignore[arg-type]
    units = [s for s in results["bytes"].slips if s["kind"] == "unit"]
    assert len(units) == 8
    assert all(u["caught"] and u["by"] == "anchor" and u["after"] == "error" for u in units)
    # The other slips are judged as before: the anchor has nothing to say of a scope.
    (scope,) = [s for s in results["bytes"].slips if s["kind"] == "scope"]
    assert scope["by"] is None and not scope["caught"]
