"""claims.audit.plan: what reruns per figure, the first perturbation, and the reasons the
baseline's records give for a figure that cannot change its verdict."""

from __future__ import annotations

from claims.audit.plan import (
    CORRECTED,
    MOVED_UP,
    FigureResult,
    erratum_premise_reason,
    first_perturbation,
    insensitive_reason,
    measurements_of,
    plan_figures,
    read_as_premise,
)
from claims.catalog.records import Erratum
from claims.figures import agrees

from ._records import Item, claim, measured, number, premise, record


def test_measurements_are_the_figures_own_for_its_claim():
    fig = number("size", "256", unit="MB")
    recs = [
        record("C", "consistent", measurements=[measured("size", 256.2), measured("other", 1)]),
        record("D", "consistent", measurements=[measured("size", 9, claim="D")]),
    ]
    assert [m["measured"] for m in measurements_of(claim("C", fig), fig, recs)] == [256.2]


def test_a_listed_erratum_figure_is_corrected_and_any_other_moved_up():
    fig = number("KV", "256", unit="MB")
    listed = claim("K", fig, erratum=Erratum(explanation="MB is MiB", refutes=("KV",)))
    how, fixed = first_perturbation(listed, fig, [268.435456])
    assert how == CORRECTED and agrees(268.435456, fixed.expected())
    how, up = first_perturbation(claim("K", fig), fig, [256.2])
    assert how == MOVED_UP and not agrees(256.2, up.expected())
    # An erratum that names other figures leaves this one to be moved.
    other = claim("K", fig, erratum=Erratum(explanation="...", refutes=("KV at 8192",)))
    assert first_perturbation(other, fig, [256.2])[0] == MOVED_UP


def test_reasons_come_from_the_baselines_records():
    fig = number("x", "1")
    c = claim("C", fig, tiers=("offline", "ollama"))
    skipped = [record("C", "not-run", message="no GGUF")]
    assert insensitive_reason(c, fig, skipped, [], False, "not-run") == (
        "its offline checks did not run here (no GGUF)"
    )
    ran = [record("C", "consistent")]
    assert "judged only live (ollama)" in (
        insensitive_reason(c, fig, ran, [], False, "consistent") or ""
    )
    compared = [measured("x", 1)]
    assert "already refuted" in (insensitive_reason(c, fig, ran, compared, False, "refuted") or "")
    # Compared by a check and the claim still open: nothing excuses an unmoved verdict.
    assert insensitive_reason(c, fig, ran, compared, False, "consistent") is None


def test_a_premise_of_a_known_erratum_is_explained_and_names_the_claims_it_moves():
    fig = number("layers", "32")
    kv = claim("KV", fig, erratum=Erratum(explanation="MB is MiB", refutes=("KV at 2048",)))
    res = FigureResult("KV", "layers", "32", before="known-erratum", after="known-erratum")
    reader = record("Q", "consistent", premises=[premise("KV", "layers")])
    assert erratum_premise_reason(kv, res, [record("KV", "known-erratum")]) is None  # not read
    reason = erratum_premise_reason(kv, res, [reader])
    assert reason is not None and reason.startswith("a premise of the known erratum (KV at 2048)")
    res.changed_claims = ["Q consistent -> refuted"]
    assert "changes the verdict of Q consistent -> refuted" in (
        erratum_premise_reason(kv, res, [reader]) or ""
    )
    res.after = "error"  # the erratum stopped reproducing: that is a moved verdict, no excuse
    assert erratum_premise_reason(kv, res, [reader]) is None


def test_a_plan_reruns_the_claims_tests_and_every_test_that_read_the_figure():
    layers, heads = number("layers", "32"), number("heads", "8")
    kv, q = claim("KV", layers, heads), claim("Q", number("q", "4"))
    live = claim("L", number("l", "1"), tiers=("ollama",))
    items = [Item("kv"), Item("q"), Item("other")]
    baseline = {
        "kv": record("KV", "consistent", measurements=[measured("layers", 32)]),
        "q": record("Q", "consistent", premises=[premise("KV", "layers")]),
        "other": record("O", "consistent"),
    }
    by_claim = {"KV": [items[0]], "Q": [items[1]], "O": [items[2]]}
    base = {"KV": "consistent", "Q": "consistent", "O": "consistent"}
    plans = plan_figures([kv, q, live], None, by_claim, items, baseline, base)
    assert [(p.claim.id, p.figure.name) for p in plans] == [
        ("KV", "layers"),
        ("KV", "heads"),
        ("Q", "q"),
    ]
    assert [i.nodeid for i in plans[0].items] == ["kv", "q"]
    assert [i.nodeid for i in plans[1].items] == ["kv"]
    assert plans[0].values == [32] and plans[0].result.how == MOVED_UP
    assert plans[0].result.perturbed == plans[0].mutation.display != layers.display
    assert read_as_premise("KV", "layers", baseline["q"])
    only_q = plan_figures([kv, q], {"Q"}, by_claim, items, baseline, base)
    assert [p.claim.id for p in only_q] == ["Q"]
