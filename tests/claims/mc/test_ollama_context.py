"""The masterclass's context-window claims on a live Ollama server (the ollama tier):
the default num_ctx a version implies, and what Ollama keeps when a chat outgrows it.
"""

from __future__ import annotations

import pytest

from claims.probes.live.ollama_api.stamps import parse_version
from claims.probes.live.ollama_api.usage import bounded
from claims.testkit import not_applicable, not_run

pytestmark = pytest.mark.ollama


def expected_num_ctx(
    version: tuple[int, int, int] | None, trained: int | None, modelfile: int | None
) -> tuple[set[int], str]:
    """The default context Ollama's source implies for this version (and why)."""
    if modelfile is not None:
        return {modelfile}, f"the Modelfile sets num_ctx {modelfile}"
    if version is None:
        return set(), "unparsable server version"
    if version < (0, 6, 7):
        return {2048}, "2048 before v0.6.7"
    if version < (0, 15, 5):
        return {4096}, "4096 from v0.6.7 to v0.15.4"
    tiers = {4096, 32768, 262144}
    capped = {min(t, trained) for t in tiers} if trained else tiers
    return capped, (
        "from v0.15.5 chosen by total VRAM (4096 / 32768 / 262144), capped at the "
        f"model's trained context {trained}"
    )


@pytest.mark.claim("MC-PARAM-DEFAULTS")
def test_default_num_ctx(live, check):
    model = live.model()
    parameters = str(model.show.get("parameters") or "")
    from_modelfile = next(
        (
            int(line.split()[1])
            for line in parameters.splitlines()
            if line.split()[:1] == ["num_ctx"] and len(line.split()) > 1
        ),
        None,
    )
    live.generate(
        "generate without num_ctx",
        {"model": model.name, "prompt": "hi", "options": bounded(1)},
    )
    entry = live.ps_entry(model.name)
    if entry is None:
        not_run(
            "/api/ps did not list the model right after the request (another client may have "
            "unloaded it); rerun while no other client uses the server"
        )
    if "context_length" not in entry:
        not_run(f"Ollama {live.version} does not report context_length in /api/ps (v0.10.0+)")
    context = int(entry["context_length"])
    trained = model.info("context_length")
    admissible, why = expected_num_ctx(parse_version(live.version), trained, from_modelfile)
    check.observe(
        f"default this version's source implies (Ollama {live.version})",
        sorted(admissible),
        note=why + "; OLLAMA_CONTEXT_LENGTH on the server overrides",
    )
    for name in ("temperature", "top_k", "top_p", "repeat_penalty", "seed"):
        check.observe(
            name,
            "not reported by any endpoint",
            note="sampling defaults are internal to the runner",
        )
    check.against(
        "num_ctx", context, note=f"/api/ps context_length after a request without num_ctx ({why})"
    )


# --- Q31-Q40: context overflow ----------------------------------------------------------------
OVERFLOW_NUM_CTX = 256
OVERFLOW_TURNS = 10  # user/assistant pairs of about 60 tokens: more than twice num_ctx
OVERFLOW_SYSTEM = {"role": "system", "content": "You are a terse assistant for cluster operators."}
OVERFLOW_USER = {
    "role": "user",
    "content": " ".join(["The cluster scheduler placed another pod on a busy node."] * 4),
}
OVERFLOW_ASSISTANT = {"role": "assistant", "content": "Noted."}
OVERFLOW_FINAL = {"role": "user", "content": "Say hello."}


def kept_history(
    total: int, base: int, pair: int, assistant: int, turns: int
) -> list[tuple[int, int]]:
    """Ways ``total`` prompt tokens split into ``base`` plus whole kept messages.

    Ollama drops messages from the front one at a time, so what is kept is k whole
    user/assistant pairs, possibly with the assistant half of one more pair before
    them: ``base + k * pair (+ assistant)``. Returns every (k, extra assistant) that fits.
    """
    found = []
    for k in range(turns + 1):
        for extra in (0, 1):
            if base + k * pair + extra * assistant == total and not (k == turns and extra):
                found.append((k, extra))
    return found


@pytest.mark.claim("MC-CONTEXT-OVERFLOW")
def test_history_beyond_num_ctx_keeps_the_system_prompt(live, check):
    """Read from prompt token counts, not from what the model writes.

    Short requests (nothing to truncate) give the token cost of the system prompt,
    of one user/assistant pair and of an assistant turn alone; the long request's
    prompt_eval_count must then be the system prompt plus the final message plus a
    whole number of the newest messages (the oldest dropped), and no more than num_ctx.
    """
    options = bounded(1, num_ctx=OVERFLOW_NUM_CTX)
    name = live.model_name

    def prompt_tokens(label: str, messages: list[dict[str, str]]) -> int:
        reply = live.chat(label, {"model": name, "messages": messages, "options": options})
        pec = reply.get("prompt_eval_count")
        if not isinstance(pec, int):
            not_run(f"{label}: the reply has no prompt_eval_count (Ollama {live.version})")
        return pec

    pair = [OVERFLOW_USER, OVERFLOW_ASSISTANT]
    no_system = prompt_tokens("final message alone", [OVERFLOW_FINAL])
    p0 = prompt_tokens("system + final", [OVERFLOW_SYSTEM, OVERFLOW_FINAL])
    p1 = prompt_tokens("system + 1 pair + final", [OVERFLOW_SYSTEM, *pair, OVERFLOW_FINAL])
    p2 = prompt_tokens(
        "system + 2 pairs + final", [OVERFLOW_SYSTEM, *pair, *pair, OVERFLOW_FINAL]
    )
    pa = prompt_tokens(
        "system + assistant turn + final", [OVERFLOW_SYSTEM, OVERFLOW_ASSISTANT, OVERFLOW_FINAL]
    )
    per_pair, assistant = p1 - p0, pa - p0
    costs = {
        "final alone": no_system,
        "system + final": p0,
        "one pair": per_pair,
        "second pair": p2 - p1,
        "assistant turn": assistant,
    }
    check.observe("prompt tokens of the parts", costs, unit="tokens",
                  note=f"short requests at num_ctx {OVERFLOW_NUM_CTX}, nothing truncated")
    if p2 - p1 != per_pair or per_pair <= 0:
        not_applicable(
            f"{name}'s chat template does not render messages with additive token counts "
            f"(one pair {per_pair}, the next {p2 - p1} tokens), so which messages were kept "
            "cannot be read from prompt_eval_count"
        )
    history = [m for _ in range(OVERFLOW_TURNS) for m in pair]
    full = p0 + OVERFLOW_TURNS * per_pair
    check.observe("untruncated prompt", full, unit="tokens",
                  note=f"{OVERFLOW_TURNS} pairs: system + final + {OVERFLOW_TURNS} x {per_pair}")
    body = {
        "model": name,
        "options": options,
        "messages": [OVERFLOW_SYSTEM, *history, OVERFLOW_FINAL],
    }
    reply = live.chat(f"chat with {full} tokens of history at num_ctx {OVERFLOW_NUM_CTX}", body)
    pec = reply.get("prompt_eval_count")
    if not isinstance(pec, int):
        not_run(f"the reply has no prompt_eval_count (Ollama {live.version})")
    # Both truths below are against what this request itself carried (its num_ctx, the
    # pairs it sent), not figures: the catalog states none.
    num_ctx, sent_pairs = options["num_ctx"], len(history) // len(pair)
    check.measure(
        "the prompt fits the context",
        pec,
        holds=pec <= num_ctx,
        unit="tokens",
        expected=f"prompt_eval_count at most the request's num_ctx {num_ctx}",
    )
    kept = kept_history(pec, p0, per_pair, assistant, sent_pairs)
    dropped_system = kept_history(pec, no_system, per_pair, assistant, sent_pairs)
    check.observe(
        "readings of the long prompt",
        {"system kept": kept, "system dropped": dropped_system},
        note="(k whole newest pairs, 1 if an extra assistant turn) that add up to "
        f"{pec} tokens",
    )
    if kept and dropped_system:
        not_applicable(
            f"with {name}'s token counts the system prompt's cost ({p0 - no_system}) is a "
            "whole number of turns, so the counts cannot tell whether it was kept"
        )
    check.observe("the long prompt as kept",
                  {"prompt_eval_count": pec, "kept pairs": kept[0][0] if kept else None,
                   "pairs sent": sent_pairs}, unit="tokens",
                  note=f"prompt_eval_count {pec} = {p0} (system + final) + k x {per_pair} "
                       f"(pair) [+ {assistant} (assistant turn)]")
    check.against(
        "oldest turns dropped and system prompt kept when the history exceeds num_ctx",
        full > num_ctx and bool(kept) and kept[0][0] < sent_pairs,
        note=f"{full} tokens sent at num_ctx {num_ctx}; kept: system prompt + final message "
             f"+ {kept[0][0] if kept else 'no whole number of'} of the newest {sent_pairs} pairs",
    )
