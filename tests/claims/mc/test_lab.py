"""MC claims decided by another document's recorded data: Week 4's lab record.

The masterclass (3.2, Q8) says which tensors a Q4_K_M mix keeps above 4 bits.
Week 4's lab recorded the tensor formats of the same quantisation of
llama3.2:3b (fixtures/lab, Week 4 results.json ``quantized_reality.tensor_types``,
the counts the lab's quantized-file-size.md prints from ``ollama show
--verbose``): 168 Q4_K, 29 Q6_K, 58 F32. The record has no per-role breakdown,
so the roles are read from llama.cpp's Q4_K_M recipe
(:mod:`claims.probes.arithmetic.kquant`) after checking that the recipe gives
exactly the recorded census; the census alone already bounds how many tensors
can be above 4 bits.
"""

from __future__ import annotations

import re

import pytest

from claims.probes.arithmetic.kquant import layers_from_census, q4_k_m_recipe
from claims.testing import lab
from claims.testkit import Check, InputError

pytestmark = pytest.mark.offline

ROLES_ABOVE = ("attn_k", "attn_v", "ffn_gate")


@pytest.mark.claim("MC-KQUANT-MIX", source="recorded")
def test_q4_k_m_roles_from_week4_census(check) -> None:
    q = lab.results("W4")["quantized_reality"]
    model, census = str(q["model"]), {str(k): int(v) for k, v in q["tensor_types"].items()}
    check.fact("cross-document data", f"Week 4 (seed 002 lines 379-392, its lab note "
               f"quantized-file-size.md): {lab.PROVENANCE}, week-04-parameters-memory/"
               "results.json quantized_reality")
    check.observe(f"tensors per type ({model}, {q['quantization']})", census)
    from_matrices, from_vectors = layers_from_census(census)
    check.measure("blocks implied by the census (7 matrices + 1, 2 norms + 2)",
                  [from_matrices, from_vectors],
                  holds=from_matrices is not None and from_matrices == from_vectors,
                  expected="one block count both ways")
    layers = from_matrices or 0
    recipe = q4_k_m_recipe(max(layers, 1))
    predicted = recipe.census()
    check.measure("llama.cpp's Q4_K_M recipe census for that many blocks", predicted,
                  holds=predicted == census, expected=f"the recorded census {census}")
    above_4 = sum(n for t, n in census.items() if t not in ("Q4_K", "F32"))
    check.observe("tensors the claim puts above 4 bits vs quantised tensors above 4 bits "
                  "in the record", [len(ROLES_ABOVE) * layers, above_4],
                  note="the census alone cannot hold three whole roles above 4 bits")
    for role in (*ROLES_ABOVE, "ffn_down"):
        types = recipe.role_types(role)
        promoted = sum(t != "Q4_K" for t in types)
        if role == "ffn_down":
            check.against("ffn_down at 4-bit", promoted == 0, model=model,
                          note=f"{len(types) - promoted} of {len(types)} layers Q4_K")
        else:
            check.against(f"{role} above 4-bit", promoted == len(types), model=model,
                          note=f"{promoted} of {len(types)} layers Q6_K")
    _kquant_summaries_not_judged(check)


def _kquant_summaries_not_judged(check: Check) -> None:
    """The two K-quant statements no check here can decide, shown with why."""
    check.not_judged("4-bit size, near 5-bit accuracy",
                     "a summary of Q4_K_M: its size is judged by MC-QUANT-SIZES and its "
                     "perplexity by MC-PERPLEXITY, not by the tensor roles checked here")
    check.not_judged("Q4_K_S all 4-bit",
                     "needs a Q4_K_S file or llama.cpp's Q4_K_S recipe; only the Q4_K_M recipe "
                     "is reproduced here (llama.cpp's source gives Q4_K_S's first attn_v "
                     "tensors Q5_K)")


@pytest.mark.claim("MC-KEEPALIVE", source="recorded")
def test_default_keep_alive_from_weeks_2_and_4(check, recorded) -> None:
    """Weeks 2 and 4 ran ``ollama ps`` right after a request with no keep_alive set: the
    UNTIL column is the time left of the default keep-alive, a lower bound on it (what
    passed between the request and ps is not recorded)."""
    from claims.probes.files.ollama_cli import table_row, until_minutes

    rows = [("W2", recorded("W2")["ollama_ps"])]
    rows += [("W4", entry) for entry in recorded("W4")["ollama_ps"]]
    check.fact("cross-document data", "Week 2 (seed 000 Concept 6) and Week 4 (seed 002 lines "
               "284-304) ollama ps, fixtures/recorded/W2.json and W4.json")
    for doc, entry in rows:
        row = table_row(entry["header"], entry["line"])
        left = until_minutes(row["UNTIL"])
        check.against("default keep-alive", left, unit="min",
                      note=f"{doc}: {row['NAME']} '{row['UNTIL']}' just after a request")
    # The masterclass's environment table (6.1) prints the default as OLLAMA_KEEP_ALIVE's
    # value, a Go duration ("5m"): the same figure as the sentence states.
    printed = recorded("MC")["env_defaults"]["OLLAMA_KEEP_ALIVE"]
    minutes = re.fullmatch(r"(\d+)m", printed)
    if minutes is None:
        raise InputError(f"fixtures/recorded/MC.json env_defaults.OLLAMA_KEEP_ALIVE: {printed!r} "
                         "is not a whole number of minutes ('5m')")
    check.against("default keep-alive", int(minutes.group(1)), unit="min",
                  note=f"MC 6.1: OLLAMA_KEEP_ALIVE's default printed as {printed!r}")
    _keep_alive_timings_not_judged(check)


def _keep_alive_timings_not_judged(check: Check) -> None:
    """The reload times the keep-alive advice rests on, shown with why none is judged."""
    check.not_judged("70B cold start", "no 70B model, GPU or storage is named, and the suite "
                     "loads no 70B model; MC-MMAP-COLD-START times the cold start it can")
    check.not_judged("reload latency avoided", "a reload time for no named model or storage; "
                     "MC-MMAP-COLD-START times the cold start it can")
