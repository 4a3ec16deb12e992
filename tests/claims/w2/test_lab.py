"""W2 claims checked against the author's raw results (fixtures/lab, benchmark.py's results.json).

What benchmark.py measured, per request (fixtures/lab/manifest.json): ttft_ms and
client_total_ms on the client's clock, load_ms and prompt_eval_ms from the server's
final line, tokens_per_second = eval_count / eval_duration (decode only). The first
request of each context follows `ollama stop`. The post prints six of the nine columns.
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

import pytest

from claims.probes.files.lab_notes import read_roadmap
from claims.testing import lab
from claims.testkit import Interval

pytestmark = pytest.mark.offline

# The table the post prints -> the lab field of the same cell.
PRINTED_COLUMNS = {
    "ttft_ms": "ttft_ms",
    "client_total_ms": "client_total_ms",
    "load_ms": "load_ms",
    "output_tokens": "output_tokens",
    "tokens_per_second": "tokens_per_second",
}


def _rows() -> tuple[str, list[dict[str, Any]]]:
    results = lab.results("W2")
    return str(results["model"]), list(results["measurements"])


def _ends(check, catalog, claim_id: str, figure: str, values: list[Decimal], scale: int = 1):
    """The stated range's ends are the lowest and highest of ``values`` (in the figure's unit
    after dividing by ``scale``): a range summarising a table spans exactly its extremes."""
    fig = catalog.get(claim_id).figure(figure)
    lo, hi = min(values) / scale, max(values) / scale
    stated = (Decimal(str(fig.low).replace(",", "")), Decimal(str(fig.high).replace(",", "")))
    check.measure(f"{figure}: lowest and highest of the lab's rows", f"{lo}–{hi}", unit=fig.unit,
                  holds=Interval.stated(str(stated[0])).contains(float(lo))
                  and Interval.stated(str(stated[1])).contains(float(hi)),
                  expected=f"{fig.display}, its ends at the printed precision")


@pytest.mark.claim("W2-LOAD-DURATION", source="recorded")
def test_lab_load_durations(check, catalog) -> None:
    model, rows = _rows()
    check.fact("lab evidence", lab.PROVENANCE)
    for row in rows:
        figure = "cold load" if row["cold"] else "warm load"
        check.against(figure, row["load_ms"], model=model,
                      note=f"results.json, num_ctx {row['context']} (server load_duration)")
    for figure, cold in (("cold load", True), ("warm load", False)):
        _ends(check, catalog, "W2-LOAD-DURATION", figure,
              [Decimal(str(r["load_ms"])) for r in rows if r["cold"] is cold])


@pytest.mark.claim("W2-COLD-TTFT", source="recorded")
def test_lab_first_token_times(check) -> None:
    model, rows = _rows()
    for row in rows:
        figure = "cold TTFT" if row["cold"] else "warm TTFT"
        check.against(figure, row["ttft_ms"], unit="ms", model=model,
                      note=f"results.json, num_ctx {row['context']} (client clock)")


@pytest.mark.claim("W2-NUMCTX-NOT-SPEED", source="recorded")
def test_lab_decode_rate_per_context(check) -> None:
    model, rows = _rows()
    check.against("contexts", sorted({str(r["context"]) for r in rows}))
    for row in rows:
        check.against("decode rate", row["tokens_per_second"], model=model,
                      note=f"results.json, num_ctx {row['context']} (eval_count / eval_duration)")


@pytest.mark.claim("W2-PREFILL-FASTER", source="recorded")
def test_lab_prefill_against_decode_per_request(check) -> None:
    """Every benchmark request: prompt tokens over the server's prefill time against its
    decode rate. The post's 46 ms is its earlier non-streaming call, not these rows."""
    model, rows = _rows()
    bar = check.premise("much faster bar")  # the catalog's reading of "much faster per token"
    check.not_judged("prefill", "46 ms is the post's non-streaming call; the lab holds the "
                     "benchmark's requests (prompt_eval_ms 42.7 to 107.7 ms)")
    for i, row in enumerate(rows, start=1):
        check.against("prompt tokens", row["prompt_tokens"], model=model)
        prefill = row["prompt_tokens"] / (float(row["prompt_eval_ms"]) / 1000)
        decode = float(row["tokens_per_second"])
        check.measure(f"prefill over decode rate, row {i} (num_ctx {row['context']}"
                      f"{', cold' if row['cold'] else ''})", round(prefill / decode, 1), unit="x",
                      holds=prefill >= bar * decode,
                      expected=f"at least {bar:g}x",
                      note=f"{row['prompt_tokens']} tokens in {row['prompt_eval_ms']} ms "
                      f"vs {decode} tok/s")


@pytest.mark.claim("W2-RESULTS-TABLE", source="recorded")
def test_results_table_summarises_the_lab_rows(check, catalog) -> None:
    results = lab.results("W2")
    model, rows = _rows()
    check.against("runtime", str(results["runtime"]).replace("ollama", "Ollama", 1),
                  note="results.json runtime (written by hand)")
    check.against("contexts", sorted({str(r["context"]) for r in rows}))
    for figure, field, cold in (("cold TTFT", "ttft_ms", True), ("warm TTFT", "ttft_ms", False),
                                ("generation speed", "tokens_per_second", None)):
        chosen = [r for r in rows if cold is None or r["cold"] is cold]
        for row in chosen:
            check.against(figure, row[field], model=model, note=f"num_ctx {row['context']}")
        _ends(check, catalog, "W2-RESULTS-TABLE", figure, [Decimal(str(r[field])) for r in chosen])


@pytest.mark.claim("W2-RESULTS-TABLE", source="recorded")
def test_results_table_as_printed(check, recorded, catalog) -> None:
    """The table's own cells (fixtures/recorded/W2.json) against the catalog, and its ranges
    against the benchmark rows the same post prints."""
    w2 = recorded("W2")
    table, printed = w2["results_table_002"], w2["benchmark"]["rows"]
    check.against("runtime", table["runtime"])
    layer = table["model_layer"].removesuffix(" bytes").replace(",", "")
    check.against("model layer", int(layer), unit="B", model="phi4")
    for figure, key, field, cold in (("cold TTFT", "cold_ttft", "ttft_ms", True),
                                     ("warm TTFT", "warm_ttft", "ttft_ms", False),
                                     ("generation speed", "generation_speed",
                                      "tokens_per_second", None)):
        low, _, rest = table[key].partition(" to ")
        high = rest.split(" ")[0]
        fig = catalog.get("W2-RESULTS-TABLE").figure(figure)
        check.measure(f"{figure} as the table prints it", table[key],
                      holds=(low, high) == (fig.low, fig.high), expected=fig.display)
        _ends(check, catalog, "W2-RESULTS-TABLE", figure,
              [Decimal(r[field]) for r in printed if cold is None or r["cold"] is cold])
    # The table's "Context settings tested" row names the contexts the printed rows ran.
    ran = sorted({int(r["context"]) for r in printed})
    said = [int(n.replace(",", "")) for n in re.findall(r"\d[\d,]*", table["context_settings"])]
    check.measure("context settings as the table prints them", table["context_settings"],
                  holds=said == ran,
                  expected=" and ".join(f"{c:,}" for c in ran) + " (the printed rows' contexts)")


@pytest.mark.claim("W2-BENCHMARK-PROTOCOL", source="recorded")
def test_printed_benchmark_is_the_lab_run(check, recorded) -> None:
    results = lab.results("W2")
    model, rows = _rows()
    bench = recorded("W2")["benchmark"]
    check.against("runs per context", results["runs_per_context"])
    contexts = sorted({r["context"] for r in rows})
    cold_counts = {c: sum(r["cold"] for r in rows if r["context"] == c) for c in contexts}
    check.against("cold runs per context", max(cold_counts.values()), note=str(cold_counts))
    check.measure("cold run is the first of each context",
                  [r["cold"] for r in rows],
                  holds=all(r["cold"] is (i % results["runs_per_context"] == 0)
                            for i, r in enumerate(rows)),
                  expected="True, False, False per context")
    for row in rows:
        check.against("prompt tokens", row["prompt_tokens"], model=model)
        check.against("output tokens", row["output_tokens"])
    check.against("temperature", bench["options"]["temperature"], note="the post's script")
    check.against("seed", bench["options"]["seed"], note="the post's script")
    check.measure("prompt", results["prompt"], holds=results["prompt"] == bench["prompt"],
                  expected=bench["prompt"])
    check.measure("num_predict vs output tokens", bench["num_predict"],
                  holds=all(r["output_tokens"] == bench["num_predict"] for r in rows),
                  expected="every reply stopped at the 96-token limit")
    # Cell by cell: the table the post prints is the lab's results.json.
    if len(bench["rows"]) != len(rows):
        check.measure("printed rows", len(bench["rows"]), holds=False, expected=str(len(rows)))
        return
    for i, (shown, raw) in enumerate(zip(bench["rows"], rows, strict=True), start=1):
        differ = [
            f"{col}: printed {shown[col]} vs lab {raw[field]}"
            for col, field in PRINTED_COLUMNS.items()
            if Decimal(str(shown[col])) != Decimal(str(raw[field]))
        ] + [f"{k}: printed {shown[k]} vs lab {raw[k]}"
             for k in ("context", "cold") if shown[k] != raw[k]]
        check.measure(f"printed row {i} (num_ctx {raw['context']}) vs results.json",
                      "; ".join(differ) or "equal", holds=not differ,
                      expected="every printed cell equal")


@pytest.mark.claim("W2-PINNED-VERSIONS", source="recorded")
def test_lab_pins_and_runtime(check) -> None:
    pins = lab.pins("W2")
    check.attach("lab requirements.txt pins", pins, kind="json")
    check.against("tiktoken", pins.get("tiktoken", "<not pinned>"), note="requirements.txt")
    check.against("gguf", pins.get("gguf", "<not pinned>"), note="requirements.txt")
    runtime = str(lab.results("W2")["runtime"])
    check.against("Ollama", runtime.removeprefix("ollama ").strip(),
                  note=f"results.json: {runtime}")


@pytest.mark.claim("W2-PINNED-VERSIONS", source="recorded")
def test_results_table_runtime(check, recorded) -> None:
    runtime = recorded("W2")["results_table_002"]["runtime"]
    check.against("Ollama", runtime.removeprefix("Ollama ").strip(), note="the Results table")


@pytest.mark.claim("W2-TIKTOKEN-ENCODINGS")
def test_tiktoken_names_the_encodings_per_model(check) -> None:
    import tiktoken
    from tiktoken.model import encoding_name_for_model

    check.fact("tiktoken", tiktoken.__version__)
    check.against("GPT-4", encoding_name_for_model("gpt-4"), note="tiktoken.model")
    check.against("GPT-4o", encoding_name_for_model("gpt-4o"), note="tiktoken.model")


@pytest.mark.claim("W2-SERIES-PLAN", source="recorded")
def test_lab_roadmap_places_week_two(check, catalog) -> None:
    roadmap = read_roadmap(lab.lab_dir() / "roadmap")
    check.fact("lab roadmap", f"{lab.PROVENANCE}: roadmap/week-NN.md, each naming its phase")
    check.against("phase of week 2", roadmap.phase_of_week[2], note="roadmap/week-02.md")
    check.against("phases", len(roadmap.phase_weeks()))
    check.against("weeks", roadmap.weeks)
    # The post names the phase by its weeks; the one holding the first of them is that phase.
    low = catalog.get("W2-SERIES-PLAN").figure("quantization weeks").low
    phase = roadmap.phase_of_week[int(str(low))]
    weeks = [w for w, p in sorted(roadmap.phase_of_week.items()) if p == phase]
    check.observe("phase holding those weeks", phase)
    check.measure("a phase of its own, after week 2's", phase,
                  holds=phase != roadmap.phase_of_week[2], expected="not week 2's phase")
    _ends(check, catalog, "W2-SERIES-PLAN", "quantization weeks", [Decimal(w) for w in weeks])
