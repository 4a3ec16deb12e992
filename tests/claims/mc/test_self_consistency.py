"""MC claims decided by the guide's own figures: where it states one thing in several
places, and where an answer's number is arithmetic on its other numbers. Each figure is
anchored where the guide prints it (claims/catalog/MC.anchors.toml)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.offline

QUANTS = ("Q8_0", "Q5_K_M", "Q4_K_M")


@pytest.mark.claim("MC-PERPLEXITY-BANDS", source="recorded")
def test_perplexity_statements_agree(check) -> None:
    near_lossless = check.premise("Q9 near-lossless bound")
    for quant in QUANTS:
        delta = check.premise(f"diagram {quant} delta")
        bound = check.premise(f"table {quant} bound")
        check.measure(f"{quant}: 3.3's delta under 3.2's bound", [delta, bound],
                      holds=delta < bound, expected=f"below {bound:g}")
        if quant == "Q4_K_M":
            lo, hi = check.premise("Q9 Q4_K_M band low"), check.premise("Q9 Q4_K_M band high")
            check.measure("Q4_K_M: 3.3's delta in Q9's band", delta,
                          holds=lo <= delta <= hi, expected=f"{lo:g} to {hi:g}")
        else:
            check.measure(f"{quant}: 3.3's delta under Q9's near-lossless bound", delta,
                          holds=delta < near_lossless, expected=f"below {near_lossless:g}")
    table_q2, q9_q2 = check.premise("table Q2_K bound"), check.premise("Q9 Q2_K bound")
    check.measure("Q2_K: 3.2's 'above' bound within Q9's", [table_q2, q9_q2],
                  holds=table_q2 >= q9_q2, expected=f"at least {q9_q2:g}")


@pytest.mark.claim("MC-THROTTLE-DROP", source="recorded")
def test_throttle_drop_is_the_clock_ratio(check) -> None:
    full, throttled = check.premise("full clock"), check.premise("throttled clock")
    check.against("throughput drop", (1 - throttled / full) * 100, unit="%",
                  note="1 - throttled/full clock, if throughput followed the clock")


@pytest.mark.claim("MC-PCIE-VRAM-GAP", source="recorded")
def test_pcie_is_an_order_of_magnitude_below_vram(check) -> None:
    pcie, vram = check.premise_interval("PCIe bandwidth"), check.premise_interval("VRAM bandwidth")
    check.against("an order of magnitude", vram.lo / pcie.hi, unit="x",
                  note="the narrowest gap: the slowest VRAM over the fastest PCIe")
    check.against("an order of magnitude", vram.hi / pcie.lo, unit="x",
                  note="the widest gap: the fastest VRAM over the slowest PCIe")


@pytest.mark.claim("MC-FALLBACK-SPEEDS", source="recorded")
def test_q31_drop_spans_full_offload_to_cpu(check) -> None:
    check.against("1.3 full offload", check.premise("Q31 speed before"), unit="tok/s",
                  note="Q31's speed before the drop")
    check.against("1.3 CPU only", check.premise("Q31 speed after"), unit="tok/s",
                  note="Q31's speed after the drop")


def _q14_rule(logit: float, penalty: float) -> float:
    """Q14's printed rule for a token already in the history: divide a positive logit by
    the penalty, multiply a negative one."""
    return logit / penalty if logit > 0 else logit * penalty


# Logits of both signs and sizes a repeated token might have (inputs, not expectations).
LOGITS = (-6.0, -0.25, 0.25, 6.0)


@pytest.mark.claim("MC-REPEAT-PENALTY-OFF", source="recorded")
def test_repeat_penalty_values_under_q14s_rule(check) -> None:
    off, raised = check.premise("penalty off"), check.premise("mitigation penalty")
    # What is measured is how far the rule moves each logit: nothing when off, down when on.
    for penalty, expected in ((off, "no shift (the penalty off)"),
                              (raised, "every shift negative (repetition suppressed)")):
        shifts = [_q14_rule(x, penalty) - x for x in LOGITS]
        holds = all(d == 0 for d in shifts) if penalty == off else all(d < 0 for d in shifts)
        check.measure(f"shift of logits {list(LOGITS)} at repeat_penalty {penalty:g}", shifts,
                      holds=holds, expected=expected)
