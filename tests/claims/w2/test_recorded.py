"""W2 claims checked on the figures the post itself records.

Every check here reads fixtures/recorded/W2.json (the post's command output,
transcribed as printed) and asks whether the post agrees with itself: whether
its arithmetic holds at the precision it printed, whether one printout agrees
with another (the list with the manifest, the ps line with the list), and
whether the token ids decode to the text it shows. A pass means "consistent";
reproducing the figures on a machine is the ollama, store and engine tiers' job.
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

import pytest

from claims.probes.tokens import cl100k_base
from claims.testkit import Interval, convert
from claims.testkit import record_decision as record
from claims.timing import AtLeast, decide_values
from claims.timing.policy import RECORDED, change_band, cross_ratios

pytestmark = pytest.mark.offline

MODEL = "phi4"  # every recorded run of Week 2 is phi4:latest on the DGX Spark
PHI4_SPECIALS = {100264: "<|im_start|>", 100265: "<|im_end|>", 100266: "<|im_sep|>"}
HEX12 = re.compile(r"^[0-9a-f]{12}$")
NS_PER_S = 1_000_000_000
# The bars of the vague claims ("much faster", "seconds" against "a fraction of a
# second", "did not change") are catalog figures, read with check.premise(); the rule
# that applies them is claims.timing.policy's, the same in every tier of each claim
# (here on every printed row: a document's table is its own population).


def _w2(recorded: Any) -> dict[str, Any]:
    data: dict[str, Any] = recorded("W2")
    return data


def _columns(line: str) -> list[str]:
    """Cells of a fixed-width CLI listing: columns are separated by two or more spaces."""
    return re.split(r"\s{2,}", line.strip())


def _size(cell: str) -> tuple[float, str]:
    value, unit = cell.split()
    return float(value), unit


def _prompt_len(reply: dict[str, Any]) -> int:
    count: int = reply["prompt_eval_count"]
    return count


# --- Concept 1: list, show, manifest -------------------------------------------------


@pytest.mark.claim("W2-LIST", source="recorded")
def test_recorded_list_ids_and_sizes(check, recorded):
    w2 = _w2(recorded)
    listing = w2["ollama_list"]
    check.attach("ollama list (the post)", "\n".join([listing["header"], *listing["lines"]]))
    rows = {cells[0]: cells for cells in map(_columns, listing["lines"])}
    for name, (_, model_id, _size_cell, _) in rows.items():
        check.against("ID length", len(model_id), note=name)
        check.measure(
            f"{name}: ID is lowercase hex",
            model_id,
            holds=bool(HEX12.match(model_id)),
            expected="12 characters of 0-9a-f",
        )
    figure_for = {
        "phi4:latest": "phi4",
        "llama3.2:3b": "llama3.2:3b",
        "nomic-embed-text:latest": "nomic-embed-text",
        "qwen3.6:35b-a3b-bf16": "qwen3.6",
    }
    model_for = {
        "phi4:latest": "phi4",
        "llama3.2:3b": "llama3.2:3b",
        "nomic-embed-text:latest": "nomic-embed-text",
        "qwen3.6:35b-a3b-bf16": "qwen3.6:35b-a3b-bf16",
    }
    for name, (_, model_id, size, _) in rows.items():
        value, unit = _size(size)
        check.against(f"{figure_for[name]} ID", model_id, model=model_for[name])
        check.against(f"{figure_for[name]} size", value, unit=unit, model=model_for[name])
    # The listed size is the package: the sum of the manifest's layers, in decimal GB.
    package = sum(layer["size"] for layer in w2["manifest"]["layers"])
    check.against(
        "phi4 size",
        package,
        unit="B",
        model=MODEL,
        note=f"sum of the manifest's layers, {package:,} B",
    )
    # llama3.2:3b's model blob alone, from Week 4 (its other layers are a few KB).
    blob = int(recorded("W4")["q4_file"]["blob_bytes"].replace(",", ""))
    check.against(
        "llama3.2:3b size",
        blob,
        unit="B",
        model="llama3.2:3b",
        note="the model blob Week 4 measured; template, license and params layers add a few KB",
    )
    # The model ollama ps shows: its ID there against its ID in the listing's row.
    ps_name, ps_id = _columns(w2["ollama_ps"]["line"])[:2]
    listed_id = rows[ps_name][1] if ps_name in rows else None
    check.measure(
        "phi4 ID in ollama ps equals ollama list",
        ps_id,
        holds=ps_id == listed_id,
        expected=listed_id or f"{ps_name} listed by ollama list",
    )


@pytest.mark.claim("W2-SHOW-FACTS", source="recorded")
def test_recorded_show_facts(check, recorded):
    w2 = _w2(recorded)
    facts = w2["show_facts"]
    check.attach("POST /api/show (jq selection, the post)", facts, kind="json")
    # The stop strings are the chat markers the model file's tokenizer defines.
    stops = {re.fullmatch(r'stop "(.*)"', p).group(1) for p in facts["runtime_parameters"]}  # type: ignore[union-attr]
    specials = set(w2["inspect_tokenizer"]["tokens"].values())
    check.measure(
        "stop strings are tokenizer special tokens",
        sorted(stops),
        holds=stops <= specials,
        expected=f"a subset of {sorted(specials)}",
    )


@pytest.mark.claim("W2-MANIFEST-LAYERS", source="recorded")
def test_recorded_manifest(check, recorded):
    w2 = _w2(recorded)
    manifest = w2["manifest"]
    check.attach("manifest (jq selection, the post)", manifest, kind="json")
    path = manifest["path"]
    check.against("manifest path", path[path.index("manifests/") :], model=MODEL)
    layers = manifest["layers"]
    check.against("layer count", len(layers), model=MODEL)
    by_role = {layer["mediaType"].rsplit(".", 1)[-1]: layer for layer in layers}
    # The blob resolution printed later in the post names the same digest and byte count.
    resolved = dict(line.split(": ", 1) for line in w2["blob_resolution_lines"])
    check.measure(
        "digest resolved later equals the manifest's",
        resolved["model digest"],
        holds=resolved["model digest"] == by_role["model"]["digest"],
        expected=by_role["model"]["digest"],
    )
    check.measure(
        "GGUF bytes resolved later equal the layer size",
        int(resolved["GGUF bytes"]),
        holds=int(resolved["GGUF bytes"]) == by_role["model"]["size"],
        expected=str(by_role["model"]["size"]),
    )
    check.observe("manifest layers total", sum(layer["size"] for layer in layers), unit="B")


@pytest.mark.claim("W2-BLOB-SIZE", source="recorded")
def test_recorded_stat_of_the_blob_equals_the_manifest(check, recorded):
    """The post's own `stat` of the model blob (its path-resolution output, 'GGUF bytes')
    against the stated size and the size its printed manifest gives the layer."""
    w2 = _w2(recorded)
    check.attach("the post's path resolution", "\n".join(w2["blob_resolution_lines"]))
    resolved = dict(line.split(": ", 1) for line in w2["blob_resolution_lines"])
    on_disk = int(resolved["GGUF bytes"])
    check.against("blob bytes", on_disk, unit="B", model=MODEL, note="'GGUF bytes' (stat -c %s)")
    layer = next(
        lay for lay in w2["manifest"]["layers"] if lay["mediaType"].endswith(".model")
    )
    check.measure("stat bytes vs the printed manifest's model layer size", on_disk, unit="B",
                  holds=on_disk == layer["size"], expected=f"{layer['size']:,} B")


@pytest.mark.claim("W2-BF16-SIZE", source="recorded")
def test_recorded_sixteen_bit_size(check, recorded):
    facts = _w2(recorded)["show_facts"]
    params = Interval.stated(facts["parameters"].removesuffix("B"))  # "14.7B" is printed to 0.1 B
    check.against("parameters", params, note="/api/show parameter_size")
    bytes_16 = params * 1e9 * 16 / 8
    check.against(
        "16-bit weights",
        bytes_16,
        unit="B",
        note="14.7e9 parameters x 16 bits / 8, the count's rounding carried",
    )


@pytest.mark.claim("W2-Q4-ESTIMATE", source="recorded")
def test_recorded_four_bit_estimate(check, recorded):
    w2 = _w2(recorded)
    params = Interval.stated(w2["show_facts"]["parameters"].removesuffix("B")) * 1e9
    bytes_4 = params * 4 / 8
    check.against("4-bit weights", bytes_4, unit="B")
    layer = next(
        lay["size"] for lay in w2["manifest"]["layers"] if lay["mediaType"].endswith(".model")
    )
    check.against("model layer", layer, unit="B", model=MODEL)
    bytes_16 = params * 16 / 8
    check.against("model layer larger than the 4-bit weights", layer > bytes_4.hi, model=MODEL,
                  note=f"{layer:,} B against at most {bytes_4.hi:,.0f} B at 4 bits")
    check.against("model layer below the 16-bit weights", layer < bytes_16.lo, model=MODEL,
                  note=f"{layer:,} B against at least {bytes_16.lo:,.0f} B at 16 bits")
    check.observe(
        "bits per parameter of the layer",
        round(layer * 8 / 14.7e9, 3),
        note="over 14.7e9 parameters",
    )


# --- Concepts 2 and 3: the generate reply ---------------------------------------------


@pytest.mark.claim("W2-RESPONSE-FIELDS", source="recorded")
def test_recorded_reply_fields(check, recorded):
    reply = _w2(recorded)["generate_reply"]
    check.attach(
        "generate reply (the post)", {k: v for k, v in reply.items() if k != "context"}, kind="json"
    )
    check.against("fields", list(reply), unordered=True)
    # Which unit makes eval_count / eval_duration the 23.3 tokens/s the post computes?
    rate_if = {
        unit: reply["eval_count"] / convert(reply["eval_duration"], unit, "s")
        for unit in ("ns", "us", "ms")
    }
    plausible = [unit for unit, rate in rate_if.items() if abs(rate - 23.3) < 0.1]
    check.against(
        "duration unit",
        plausible[0] if len(plausible) == 1 else "/".join(plausible) or "none",
        note="the unit under which the recorded durations give the post's 23.3 tokens/s",
    )
    durations = [k for k in reply if k.endswith("_duration")]
    check.measure(
        "durations are integers",
        {k: reply[k] for k in durations},
        holds=all(isinstance(reply[k], int) for k in durations),
        expected="whole nanoseconds",
    )


@pytest.mark.claim("W2-DURATION-UNITS", source="recorded")
def test_recorded_duration_conversions(check, recorded):
    reply = _w2(recorded)["generate_reply"]
    check.attach(
        "duration table (seed-002 copy)", _w2(recorded)["duration_conversions"]["rows"], kind="json"
    )
    check.against("load", convert(reply["load_duration"], "ns", "s"), model=MODEL)
    check.against("prefill", convert(reply["prompt_eval_duration"], "ns", "ms"), model=MODEL)
    check.against("decode", convert(reply["eval_duration"], "ns", "s"), model=MODEL)
    check.against("total", convert(reply["total_duration"], "ns", "s"), model=MODEL)
    phases = reply["load_duration"] + reply["prompt_eval_duration"] + reply["eval_duration"]
    check.measure(
        "total covers load + prefill + decode",
        convert(reply["total_duration"] - phases, "ns", "ms"),
        unit="ms",
        holds=phases <= reply["total_duration"],
        expected=">= 0 ms left over",
    )


@pytest.mark.claim("W2-CONTEXT-IS-CONVERSATION", source="recorded")
def test_recorded_context_is_prompt_plus_answer(check, recorded):
    reply = _w2(recorded)["generate_reply"]
    context: list[int] = reply["context"]
    n_prompt = _prompt_len(reply)
    check.against("prompt_eval_count", n_prompt, model=MODEL)
    check.against("user turn ids", context[:3], model=MODEL)
    # The prompt is "<|im_start|>user<|im_sep|>\n" + text + "<|im_end|>\n",
    # then the assistant turn opens.
    check.against("assistant turn ids", context[n_prompt - 4 : n_prompt - 1], model=MODEL)
    prompt_text = cl100k_base.decode(context[:n_prompt], specials=PHI4_SPECIALS)
    check.attach("context[:prompt_eval_count] decoded", prompt_text)
    request_prompt = _w2(recorded)["generate_request"]["prompt"]
    check.measure(
        "templated prompt contains the request's prompt",
        request_prompt,
        holds=request_prompt in prompt_text,
        expected="a substring of the decoded prompt ids",
    )
    answer = cl100k_base.decode(context[n_prompt:], specials=PHI4_SPECIALS)
    check.attach("context[prompt_eval_count:] decoded", answer)
    check.against(
        "answer first pieces",
        cl100k_base.decode_each(context[n_prompt : n_prompt + 2]),
        model=MODEL,
    )
    check.against("answer equals response", answer == reply["response"])
    check.observe(
        "answer ids",
        len(context) - n_prompt,
        note=f"eval_count is {reply['eval_count']}: it also counts the stop token, "
        "which context omits",
    )


@pytest.mark.claim("W2-DOC-COPIES-AGREE", source="recorded")
def test_recorded_copies_decode_to_the_same_reply(check, recorded):
    w2 = _w2(recorded)
    reply = w2["generate_reply"]
    n_prompt = _prompt_len(reply)
    full: list[int] = w2["context_copies"]["000"]
    for copy in ("001", "002"):
        ids: list[int] = w2["context_copies"][copy]
        answer = cl100k_base.decode(ids[n_prompt:], specials=PHI4_SPECIALS)
        check.against(
            f"seed {copy} copy",
            answer == reply["response"],
            note=f"{len(ids)} ids against {len(full)}",
        )
        if ids != full:
            first = next(
                (i for i, (a, b) in enumerate(zip(ids, full, strict=False)) if a != b),
                min(len(ids), len(full)),
            )
            check.observe(
                f"seed {copy}: first id that differs from the full text",
                first,
                note=f"full text has {full[first]} ({cl100k_base.decode([full[first]])!r});"
                f" copy has "
                f"{ids[first] if first < len(ids) else 'nothing'}",
            )
            check.attach(f"seed {copy} answer decoded", answer)


@pytest.mark.claim("W2-TOKS-PER-SEC", source="recorded")
def test_recorded_tokens_per_second(check, recorded):
    reply = _w2(recorded)["generate_reply"]
    seconds = convert(reply["eval_duration"], "ns", "s")
    check.against("decode time", seconds, model=MODEL)
    check.against(
        "tokens per second",
        reply["eval_count"] / seconds,
        model=MODEL,
        note="from the raw nanoseconds",
    )
    printed = reply["eval_count"] / Interval.stated("3.82")
    check.against(
        "tokens per second", printed, model=MODEL, note="as the post computes it: 89 / 3.82 s"
    )


@pytest.mark.claim("W2-LOAD-PLUS-PREFILL", source="recorded")
def test_recorded_load_plus_prefill(check, recorded):
    reply = _w2(recorded)["generate_reply"]
    server_ns = reply["load_duration"] + reply["prompt_eval_duration"]
    check.against("load plus prefill", convert(server_ns, "ns", "ms"), model=MODEL)


@pytest.mark.claim("W2-PREFILL-FASTER", source="recorded")
def test_recorded_prefill_faster_than_decode(check, recorded):
    reply = _w2(recorded)["generate_reply"]
    check.against("prompt tokens", reply["prompt_eval_count"], model=MODEL)
    check.against("prefill", convert(reply["prompt_eval_duration"], "ns", "ms"), model=MODEL)
    prefill_rate = reply["prompt_eval_count"] / convert(reply["prompt_eval_duration"], "ns", "s")
    decode_rate = reply["eval_count"] / convert(reply["eval_duration"], "ns", "s")
    check.observe("prefill rate", round(prefill_rate, 1), unit="tok/s")
    check.observe("decode rate", round(decode_rate, 2), unit="tok/s")
    bar = check.premise("much faster bar")
    decision = decide_values([prefill_rate / decode_rate], AtLeast(bar), RECORDED, unit="x")
    record(
        check,
        "prefill per-token rate over decode rate",
        decision,
        expected=f">= {bar:g}x ('much faster')",
        recorded=True,
    )


# --- Concept 4: temperature and seed -------------------------------------------------


def _runs_at(recorded: Any, temperature: str) -> list[str]:
    runs = _w2(recorded)["temperature_runs"]["runs"]
    replies: list[str] = next(r["replies"] for r in runs if r["temperature"] == temperature)
    return replies


@pytest.mark.claim("W2-TEMP0-REPEAT", source="recorded")
def test_recorded_temperature_zero_repeats(check, recorded):
    replies = _runs_at(recorded, "0")
    check.attach("request", _w2(recorded)["temperature_runs"]["request"], kind="json")
    check.against("runs", len(replies))
    check.measure(
        "distinct replies",
        len(set(replies)),
        holds=len(set(replies)) == 1,
        expected="1 (identical)",
    )


@pytest.mark.claim("W2-TEMP-VARIES", source="recorded")
def test_recorded_temperature_1_2_varies(check, recorded):
    runs = _w2(recorded)["temperature_runs"]["runs"]
    warm = next(r for r in runs if r["temperature"] != "0")
    check.attach("replies at temperature 1.2", warm["replies"], kind="json")
    check.against("runs", len(warm["replies"]))
    check.against("distinct replies", len(set(warm["replies"])))


@pytest.mark.claim("W2-SEED-REPEAT", source="recorded")
def test_recorded_seeded_runs_are_identical(check, recorded):
    runs = recorded("W2")["seed_runs"]
    replies = runs["replies"]
    check.attach("request", runs["request"], kind="json")
    check.against("runs", len(replies))
    check.measure(
        "distinct replies",
        len(set(replies)),
        holds=len(set(replies)) == 1,
        expected="1 (all runs identical)",
    )


# --- Concept 5: chat -----------------------------------------------------------------


@pytest.mark.claim("W2-CHAT-STATELESS", source="recorded")
def test_recorded_history_costs_prompt_tokens(check, recorded):
    chats = _w2(recorded)["chat_exchanges"]
    with_h, without = chats["with_history"], chats["without_history"]
    check.attach("chat exchanges (the post)", chats, kind="json")
    check.against(
        "extra prompt tokens", with_h["prompt_tokens"] - without["prompt_tokens"], model=MODEL
    )
    # The only difference between the two requests is the resent turns.
    extra = [m for m in with_h["messages"] if m not in without["messages"]]
    check.measure(
        "requests differ only by the earlier turns",
        extra,
        holds=[m for m in with_h["messages"] if m in without["messages"]] == without["messages"],
        expected="the second request's messages are a subset, in order, of the first's",
    )


# --- Concept 6: cold starts and context ------------------------------------------------


def _against_each_row(
    check: Any, rows: list[dict[str, Any]], column: str, cold: str, warm: str, unit: str = "ms"
) -> None:
    """Every printed row's ``column`` (ms, as printed) against its cold or its warm figure."""
    for row in rows:
        value = Interval.stated(row[column])
        check.against(
            cold if row["cold"] else warm,
            value if unit == "ms" else convert(value, "ms", unit),
            model=MODEL,
            note=f"num_ctx {row['context']}, run {row['run']}",
        )


def _every_cold_over_every_warm(
    check: Any, rows: list[dict[str, Any]], column: str, bar_figure: str, what: str, expected: str
) -> None:
    """The recorded form of a cold/warm claim: every cold row over every warm row at the bar.

    The table is its own population (policy RECORDED), so the fastest cold row over
    the slowest warm one decides; ``expected`` may name the bar as ``{bar:g}``.
    """
    bar = check.premise(bar_figure)
    ratios = cross_ratios(
        [float(r[column]) for r in rows if r["cold"]],
        [float(r[column]) for r in rows if not r["cold"]],
    )
    record(
        check,
        what,
        decide_values(ratios, AtLeast(bar), RECORDED, unit="x"),
        expected=expected.format(bar=bar),
        recorded=True,
    )


@pytest.mark.claim("W2-COLD-TTFT", source="recorded")
def test_recorded_cold_and_warm_ttft_match_the_summary(check, recorded):
    rows = _w2(recorded)["benchmark"]["rows"]
    _against_each_row(check, rows, "ttft_ms", "cold TTFT", "warm TTFT", unit="s")
    check.chart(
        "ttft",
        [
            {
                "label": f"ctx {r['context']} run {r['run']}",
                "cold": r["cold"],
                "ttft_ms": float(r["ttft_ms"]),
                "load_ms": float(r["load_ms"]),
            }
            for r in rows
        ],
        title="Week 2 benchmark as printed (phi4 on the author's DGX Spark)",
    )
    _every_cold_over_every_warm(
        check,
        rows,
        "ttft_ms",
        "cold over warm TTFT bar",
        "cold TTFT over warm TTFT, every printed pair",
        "at least {bar:g}x for every cold and warm row (seconds against at most "
        "0.20 s): the fastest cold over the slowest warm",
    )


@pytest.mark.claim("W2-LOAD-DURATION", source="recorded")
def test_recorded_cold_and_warm_load_durations(check, recorded, catalog):
    rows = _w2(recorded)["benchmark"]["rows"]
    _against_each_row(check, rows, "load_ms", "cold load", "warm load")
    # The stated ranges are the table's own extremes: each end must be a row's value,
    # not merely admit every row (a changed lowest warm row moves the range's end).
    claim = catalog.get("W2-LOAD-DURATION")
    for figure, cold_rows in (("cold load", True), ("warm load", False)):
        values = [Decimal(r["load_ms"]) for r in rows if r["cold"] is cold_rows]
        fig = claim.figure(figure)
        ends = (min(values), max(values))
        check.measure(
            f"{figure}: the table's lowest and highest load_ms",
            f"{ends[0]}–{ends[1]}",
            unit="ms",
            holds=ends == (Decimal(fig.low or "nan"), Decimal(fig.high or "nan")),
            expected=f"{fig.display}: the range's ends are the table's extremes",
        )
    _every_cold_over_every_warm(
        check,
        rows,
        "load_ms",
        "cold over warm load bar",
        "cold load over warm load, every printed pair",
        ">= {bar:g}x for every cold and warm row (seconds against a tenth of a second)",
    )


@pytest.mark.claim("W2-NUMCTX-NOT-SPEED", source="recorded")
def test_recorded_context_size_does_not_change_decode_rate(check, recorded):
    rows = _w2(recorded)["benchmark"]["rows"]
    contexts = sorted({row["context"] for row in rows})
    check.against("contexts", contexts)
    for row in rows:
        check.against(
            "decode rate",
            Interval.stated(row["tokens_per_second"]),
            model=MODEL,
            note=f"num_ctx {row['context']}, run {row['run']}",
        )
    by_ctx = {
        ctx: [float(r["tokens_per_second"]) for r in rows if r["context"] == ctx]
        for ctx in contexts
    }
    printed = {
        ctx: [Decimal(r["tokens_per_second"]) for r in rows if r["context"] == ctx]
        for ctx in contexts
    }
    gaps = [abs(a - b) for a, b in zip(printed[contexts[0]], printed[contexts[-1]], strict=True)]
    # One step of the table's last printed digit: a difference rounding alone can make.
    step = max(Decimal(1).scaleb(v.as_tuple().exponent) for v in printed[contexts[0]])
    check.measure(
        "largest run-for-run rate difference between the contexts",
        float(max(gaps)),
        unit="tok/s",
        holds=max(gaps) <= step,
        expected=f"<= {step} tok/s (one printed step)",
    )
    band = check.premise("decode rate change bar")
    ratios = [
        b / a for a, b in zip(by_ctx[contexts[0]], by_ctx[contexts[-1]], strict=True)
    ]
    record(
        check,
        f"decode rate at {contexts[-1]} over {contexts[0]}, run for run",
        decide_values(ratios, change_band(band), RECORDED, unit="x"),
        expected=f"within ±{band:g} % in every printed run",
        recorded=True,
    )


@pytest.mark.claim("W2-PS-CONTEXT", source="recorded")
def test_recorded_ps_line(check, recorded):
    w2 = _w2(recorded)
    ps = w2["ollama_ps"]
    check.attach("ollama ps (the post)", "\n".join([ps["header"], ps["line"]]))
    header = _columns(ps["header"])
    cells = dict(zip(header, _columns(ps["line"]), strict=True))
    check.against("CONTEXT", int(cells["CONTEXT"]))
    check.against("ID", cells["ID"], model=MODEL)
    check.against("PROCESSOR", cells["PROCESSOR"])
    value, unit = _size(cells["SIZE"])
    check.against("SIZE", value, unit=unit, model=MODEL)
    last_ctx = w2["benchmark"]["rows"][-1]["context"]
    check.measure(
        "CONTEXT is the last num_ctx requested",
        int(cells["CONTEXT"]),
        holds=int(cells["CONTEXT"]) == last_ctx,
        expected=str(last_ctx),
    )
    listed = next(line for line in w2["ollama_list"]["lines"] if line.startswith("phi4:latest"))
    package, _ = _size(_columns(listed)[2])
    check.measure(
        "loaded size exceeds the package size",
        value,
        unit="GB",
        holds=value > package,
        expected=f"> {package} GB (ollama list)",
    )


# --- The token questions -------------------------------------------------------------


def _tokenizer_lines(recorded: Any) -> list[str]:
    lines: list[str] = _w2(recorded)["inspect_tokenizer_lines"]
    return lines


@pytest.mark.claim("W2-GGUF-TOKENIZER", source="recorded")
def test_recorded_tokenizer_metadata(check, recorded):
    lines = _tokenizer_lines(recorded)
    check.attach("inspect_tokenizer.py (the post)", "\n".join(lines))
    fields = dict(
        line.split(": ", 1) for line in lines if not re.match(r"token \d+:|template ", line)
    )
    check.against("tokenizer model", fields["tokenizer model"], model=MODEL)
    check.against("tokenizer pre", fields["tokenizer pre"], model=MODEL)
    check.against("token count", int(fields["token count"]), model=MODEL)
    markers = [
        m.group(1) for line in lines if (m := re.fullmatch(r"template contains (.+): True", line))
    ]
    check.against("template markers", markers, model=MODEL)
    # Beyond restating the script's output: the markers the file's template contains are
    # the stop strings /api/show reported earlier in the post (a separate printout).
    stops = [
        m.group(1)
        for p in _w2(recorded)["show_facts"]["runtime_parameters"]
        if (m := re.fullmatch(r'stop "(.*)"', p))
    ]
    check.measure(
        "template markers are the stop strings /api/show reports",
        sorted(markers),
        holds=sorted(markers) == sorted(stops),
        expected=", ".join(sorted(stops)),
    )


@pytest.mark.claim("W2-SPECIAL-IDS", source="recorded")
def test_recorded_special_token_ids(check, recorded):
    w2 = _w2(recorded)
    lines = _tokenizer_lines(recorded)
    printed = {
        int(m.group(1)): m.group(2)
        for line in lines
        if (m := re.fullmatch(r"token (\d+): '(.+)'", line))
    }
    for token_id, text in printed.items():
        check.against(str(token_id), text, model=MODEL)
    count = int(next(line for line in lines if line.startswith("token count")).split(": ")[1])
    check.measure(
        "special ids lie inside the vocabulary",
        max(printed),
        holds=max(printed) < count,
        expected=f"< {count} (token count)",
    )
    # The same ids mark the turns in the recorded context array.
    context = w2["generate_reply"]["context"]
    used = sorted({t for t in context if t >= cl100k_base.CL100K_VOCAB_SIZE})
    # The chat markers: the printed special tokens the printed chat template contains.
    in_template = {
        m.group(1) for line in lines if (m := re.fullmatch(r"template contains (.+): True", line))
    }
    markers = sorted(i for i, text in printed.items() if text in in_template)
    check.measure(
        "ids above cl100k in the context are the chat markers",
        used,
        holds=bool(markers) and set(used) <= set(markers),
        expected="a subset of the printed ids of the template's markers: "
        + ", ".join(map(str, markers)),
    )


@pytest.mark.claim("W2-LLAMACPP-REUSE", source="recorded")
def test_recorded_reuse_table_names_the_manifests_blob(check, recorded):
    """The seed-002 copy's table of the author's llama.cpp run: the blob it loaded is the
    one the printed manifest names, of the printed size, and every layer was offloaded."""
    w2 = _w2(recorded)
    table = w2["llamacpp_reuse_002"]
    check.attach("the post's reuse table (seed-002 copy)", table, kind="json")
    layer = next(x for x in w2["manifest"]["layers"] if x["mediaType"].endswith(".model"))
    short = re.search(r"`([0-9a-f]+)\.\.\.([0-9a-f]+)`", table["model_blob"])
    hex_digest = layer["digest"].removeprefix("sha256:")
    check.measure("abbreviated digest vs the manifest's model layer",
                  short.group(0) if short else table["model_blob"],
                  holds=bool(short) and hex_digest.startswith(short.group(1))
                  and hex_digest.endswith(short.group(2)),
                  expected=f"{hex_digest[:4]}...{hex_digest[-4:]}")
    check.measure("blob bytes vs the manifest's layer size", table["blob_bytes"],
                  holds=int(table["blob_bytes"].replace(",", "")) == layer["size"],
                  expected=f"{layer['size']:,}")
    done, _, total = table["gpu_layers_offloaded"].partition("/")
    check.measure("GPU layers offloaded", table["gpu_layers_offloaded"],
                  holds=done == total and int(total) > 0, expected="all of them")


# --- Issue 46: the prose restating the printouts ---------------------------------------

ABBREVIATED_HEX = 4  # the post shortens a digest to its first and last four hex digits


@pytest.mark.claim("W2-PROSE-RESTATES", source="recorded")
def test_recorded_prose_agrees_with_the_printouts(check, recorded):
    """Each figure the prose says again in its own words, against the printout it restates:
    the /api/show selection, the manifest, the chat exchanges, the benchmark table and
    ollama ps (rounded figures at the precision they are printed with)."""
    w2 = _w2(recorded)
    facts = w2["show_facts"]
    check.against(
        "parameters, in prose", facts["parameters"], model=MODEL, note="/api/show parameter_size"
    )
    layer = next(x for x in w2["manifest"]["layers"] if x["mediaType"].endswith(".model"))
    algorithm, _, hex_digest = layer["digest"].partition(":")
    head = hex_digest[:ABBREVIATED_HEX]
    check.against(
        "digest, abbreviated",
        f"{algorithm}:{head}",
        model=MODEL,
        note="the manifest's model layer digest, shortened",
    )
    resolved = dict(line.split(": ", 1) for line in w2["blob_resolution_lines"])
    blob_name = resolved["GGUF file"].removeprefix("blobs/")
    check.against(
        "blob name, abbreviated",
        blob_name[: len(algorithm) + 1 + ABBREVIATED_HEX],
        model=MODEL,
        note="the resolved blob file name, shortened",
    )
    chats = w2["chat_exchanges"]
    check.against(
        "extra prompt tokens, in prose",
        chats["with_history"]["prompt_tokens"] - chats["without_history"]["prompt_tokens"],
        model=MODEL,
    )
    check.against(
        "maximum context, in prose",
        int(facts["context_length"]),
        unit="tokens",
        model=MODEL,
        note="/api/show context_length",
    )
    for row in w2["benchmark"]["rows"]:
        if row["cold"]:
            check.against(
                "cold first token, rounded",
                convert(Interval.stated(row["ttft_ms"]), "ms", "s"),
                unit="s",
                model=MODEL,
                note=f"num_ctx {row['context']}, run {row['run']}",
            )
    ps = dict(
        zip(_columns(w2["ollama_ps"]["header"]), _columns(w2["ollama_ps"]["line"]), strict=True)
    )
    check.against(
        "accepted context, in prose", int(ps["CONTEXT"]), unit="tokens", note="ollama ps CONTEXT"
    )
    check.against(
        "model blob, rounded",
        layer["size"],
        unit="B",
        model=MODEL,
        note="the manifest's model layer size",
    )
