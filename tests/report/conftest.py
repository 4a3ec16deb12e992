"""Synthetic evidence for the report and diff tests.

The evidence is built the way the plugin builds it (check records with
outcomes, sources and measurements; claim verdicts from
:func:`claims.verdicts.claim_verdict`; the summary from ``summarize``), but from
a small made-up catalog, so the tests cover every verdict, every check outcome
and every chart kind without depending on what the real catalog holds today.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from claims.records import PYTEST_COUNTS
from claims.verdicts import claim_verdict, summarize

HOSTILE_STATEMENT = 'Claim with <script>alert("x")</script> & a </table> in it'
HOSTILE_MEASURED = "\"><img src=x onerror=alert(1)> 'quoted'"

DOCUMENTS = [
    {
        "id": "D1",
        "title": "Doc one: behind the API",
        "published": "2026-07-19",
        "seeds": ["000_fea255ecdc112ea8.txt", "001_9a78a547d9ff624e.txt"],
        "sections": ["Introduction", "Timing", "Memory"],
    },
    {
        "id": "D2",
        "title": "Doc two: the masterclass",
        "published": None,
        "seeds": ["003_7edf31972a8b2ffd.txt"],
        "sections": ["Quantization", "Serving"],
    },
]


def measurement(
    name: str,
    stated: Any,
    measured: Any,
    *,
    holds: bool,
    unit: str | None = None,
    claim: str | None = None,
    compared: bool = True,
    **extra: Any,
) -> dict[str, Any]:
    m = {
        "name": name,
        "stated": stated,
        "stated_display": None
        if stated is None
        else f"{stated}" + (f" {unit}" if unit and not isinstance(stated, str) else ""),
        "measured": measured,
        "measured_display": f"{measured}" + (f" {unit}" if unit else ""),
        "unit": unit,
        "tolerance": "±0.05 (printed precision)" if isinstance(stated, float) else "exact",
        "holds": holds,
        "compared": compared,
    }
    if claim:
        m["claim"] = claim
    m.update(extra)
    return m


def check(
    nodeid: str,
    outcome: str,
    *,
    source: str = "fixture",
    tiers: tuple[str, ...] = ("offline",),
    measurements: list[dict[str, Any]] | None = None,
    message: str | None = None,
    **extra: Any,
) -> dict[str, Any]:
    rec = {
        "nodeid": nodeid,
        "outcome": outcome,
        "source": source,
        "duration_s": 0.0123,
        "message": message,
        "tiers": list(tiers),
        "measurements": measurements or [],
        "attachments": [],
        "facts": {},
        "notes": [],
        "charts": [],
    }
    rec.update(extra)
    # The verdict the plugin would have written for such an ending (it decides it once).
    rec.setdefault("verdict", _verdict_of(rec))
    return rec


def _verdict_of(rec: dict[str, Any]) -> str:
    outcome, failure = rec["outcome"], rec.get("failure")
    if outcome == "passed":
        return "reproduced" if rec["source"] == "live" else "consistent"
    if outcome == "xfailed":
        return "error" if failure == "error" else "known-erratum"
    if outcome == "skipped":
        return "not-applicable" if rec.get("status") == "not-applicable" else "not-run"
    if outcome == "failed" and failure in ("not-run", "refuted", None):
        return "not-run" if failure == "not-run" else "refuted"
    return "error"


TTFT_ROWS = [
    {
        "label": "phi4 /api/generate",
        "cold": True,
        "ttft_ms": 6123.4,
        "load_ms": 5400.0,
        "prefill_ms": 600.0,
        "decode_ms": 3100.0,
    },
    {
        "label": "phi4 /api/generate",
        "cold": False,
        "ttft_ms": 180.2,
        "load_ms": 20.0,
        "prefill_ms": 120.0,
        "decode_ms": 3000.0,
    },
]
MATMUL_ROWS = [
    {"device": "cpu", "precision": "fp32", "tflops": 0.8, "ms": 172.57},
    {"device": "gpu", "precision": "fp32", "tflops": 17.9, "ms": 7.67},
    {"device": "gpu", "precision": "tf32", "tflops": 40.1, "ms": 3.42},
]
BITS_ROWS = [
    {"file": "gemma-3-270m-q4_k_m.gguf", "label": "Q4_K_M", "bits_per_param": 7.48,
     "note": "its largest tensor, token_embd.weight (63% of the parameters), is Q8_0"},
    {"file": "sha256-fd7b6731c33c", "label": "Q4_K_M", "bits_per_param": 4.91},
]
PRECISION_ROWS = [
    {"label": "NVIDIA GB10 (the document's run)", "source": "recorded", "precision": p,
     "gflops": g, "peak_mib": m}
    for p, g, m in (("fp32", 18473.0, 224.0), ("fp16", 88807.9, 128.0), ("bf16", 87202.3, 128.0))
] + [
    {"label": "this machine", "source": "measured", "precision": p, "gflops": g, "peak_mib": m}
    for p, g, m in (("fp32", 51880.0, 224.0), ("fp16", 760040.0, 128.0), ("bf16", 788720.0, 128.0))
]
KV_ROWS = [
    {"context": c, "measured_bytes": c * 98304 + 4096, "formula_bytes": c * 98304,
     "stated_bytes": c * 96000}
    for c in (512, 1024, 2048, 8192)
]


def _claims() -> list[dict[str, Any]]:
    """One claim per verdict (and per interesting check outcome), in document order."""
    claims: list[dict[str, Any]] = []

    def add(
        cid: str,
        doc: str,
        section: str,
        statement: str,
        checks: list[dict[str, Any]],
        *,
        tiers: tuple[str, ...] = ("offline",),
        testable: bool = True,
        untestable_reason: str | None = None,
        erratum: dict[str, Any] | None = None,
        stated: list[dict[str, Any]] | None = None,
        profile: str | None = None,
    ) -> None:
        claims.append(
            {
                "id": cid,
                "document": doc,
                "section": section,
                "statement": statement,
                "tiers": list(tiers),
                "testable": testable,
                "untestable_reason": untestable_reason,
                "profile": profile,
                "stated": stated or [],
                "erratum": erratum,
                "note": None,
                "checks": checks,
            }
        )

    ttft = check(
        "tests/claims/d1/test_timing.py::test_cold_warm",
        "passed",
        source="live",
        tiers=("ollama",),
        measurements=[
            measurement("cold slower than warm", "cold > warm", 6123.4, holds=True, unit="ms")
        ],
        charts=[{"kind": "ttft", "title": "Cold vs warm TTFT, phi4", "rows": TTFT_ROWS}],
    )
    ttft["attachments"] = [
        {
            "label": "POST /api/generate (cold)",
            "kind": "http",
            "content": 'POST /api/generate\n{"model": "phi4", "prompt": "Hi"}\n\n'
            '200 OK\n{"response": "<b>Hello</b>"}',
            "truncated": False,
        },
        {
            "label": "generated text",
            "kind": "text",
            "content": "Kubernetes scheduling assigns pods to nodes.",
            "truncated": True,
        },
    ]
    ttft["facts"] = {
        "phi4 digest": "sha256:fd7b6731c33c57f61767612f56517460ec2d1e2e5a3f0163e0eb3d8d8cb5df20"
    }
    add(
        "D1-COLD-WARM",
        "D1",
        "Timing",
        "A cold request is much slower than a warm one.",
        [ttft],
        tiers=("ollama",),
    )

    add(
        "D1-RECORDED-TTFT",
        "D1",
        "Timing",
        "The recorded cold and warm timings are internally consistent.",
        [
            check(
                "tests/claims/d1/test_recorded.py::test_ttft_table",
                "passed",
                source="recorded",
                measurements=[measurement("cold total", 9.1, 9.12, holds=True, unit="s")],
                charts=[
                    {
                        "kind": "ttft",
                        "title": "Recorded cold vs warm (no split)",
                        "rows": [
                            {"label": "recorded", "cold": True, "ttft_ms": 6000.0},
                            {"label": "recorded", "cold": False, "ttft_ms": 150.0},
                        ],
                    }
                ],
            ),
        ],
    )
    add(
        "D1-REFUTED",
        "D1",
        "Memory",
        HOSTILE_STATEMENT,
        [
            check(
                "tests/claims/d1/test_memory.py::test_weights",
                "failed",
                failure="refuted",
                measurements=[
                    measurement(
                        "weight bytes",
                        4.1,
                        HOSTILE_MEASURED,
                        holds=False,
                        unit="GB",
                        expected_interval={"lo": 4.05, "hi": 4.15},
                        note="note with <i>tags</i>",
                    )
                ],
                message="refuted: weight bytes: measured 5.2 GB, stated 4.1 GB",
            ),
        ],
    )
    add(
        "D1-ERRATUM",
        "D1",
        "Memory",
        "Q4 uses exactly 3.5x less memory than FP16.",
        [
            check(
                "tests/claims/d1/test_memory.py::test_ratio",
                "xfailed",
                measurements=[measurement("reduction", 3.5, 3.55556, holds=False, unit="x")],
                message="known erratum: reduction: measured 3.55556 x, stated 3.5 x",
                charts=[{"kind": "bits_per_param", "title": None, "rows": BITS_ROWS}],
            ),
        ],
        erratum={
            "explanation": "The ratio is 16/4.5 = 3.56, not 3.5 (block scales add 0.5 bit).",
            "refutes": ["reduction"],
        },
    )
    add(
        "D1-ERROR",
        "D1",
        "Introduction",
        "The server answers /api/version.",
        [
            check(
                "tests/claims/d1/test_api.py::test_version",
                "error",
                failure="error",
                source="live",
                tiers=("ollama",),
                message="ServerError: connection reset by peer",
            ),
        ],
        tiers=("ollama",),
    )
    add(
        "D1-NOT-RUN",
        "D1",
        "Timing",
        "Unloading a model frees its memory.",
        [
            check(
                "tests/claims/d1/test_timing.py::test_unload",
                "skipped",
                status="not-run",
                source="live",
                tiers=("ollama",),
                message="unloading a model changes the server's state; "
                "pass --ollama-allow-unload to allow it",
            ),
        ],
        tiers=("ollama",),
        stated=[{"name": "freed", "kind": "text", "display": "all of it", "text": "all of it"}],
    )
    add(
        "D1-NOT-SELECTED",
        "D1",
        "Memory",
        "The KV cache grows linearly with context.",
        [],
        tiers=("engine",),
        stated=[
            {
                "name": "per token",
                "kind": "number",
                "display": "96 KiB",
                "text": "96",
                "unit": "KiB",
            }
        ],
    )
    add(
        "D1-REQUIRED",
        "D1",
        "Introduction",
        "The GPU is visible to torch.",
        [
            check(
                "tests/claims/d1/test_gpu.py::test_visible",
                "failed",
                failure="not-run",
                source="live",
                tiers=("gpu",),
                message="--claims-require-live: not run: torch 2.13.0+cpu was built without CUDA",
            ),
        ],
        tiers=("gpu",),
    )
    add(
        "D1-NOT-APPLICABLE",
        "D1",
        "Introduction",
        "The Spark has 20 ARM cores.",
        [
            check(
                "tests/claims/d1/test_gpu.py::test_cores",
                "skipped",
                status="not-applicable",
                source="live",
                tiers=("gpu",),
                message="D1-NOT-APPLICABLE is about the dgx-spark profile; "
                "this machine is generic (override with --claims-profile)",
                applies_to={"profile": "dgx-spark"},
            ),
        ],
        tiers=("gpu",),
        profile="dgx-spark",
    )
    add(
        "D1-OPINION",
        "D1",
        "Introduction",
        "Local inference feels liberating.",
        [],
        testable=False,
        untestable_reason="an opinion, not a measurable property",
    )
    gpu = check(
        "tests/claims/d2/test_gpu.py::test_matmul",
        "passed",
        source="live",
        tiers=("gpu",),
        measurements=[
            measurement("GPU faster than CPU", "> 1x", 22.4, holds=True, unit="x"),
            measurement("speedup", None, 22.4, holds=True, unit="x", compared=False),
            measurement(
                "recorded speedup",
                22.5,
                22.4,
                holds=True,
                unit="x",
                compared=False,
                applicable=False,
                note="figure stated for the dgx-spark profile",
            ),
        ],
        charts=[{"kind": "matmul", "title": "4096x4096 matmul", "rows": MATMUL_ROWS},
                {"kind": "precisions", "title": None, "rows": PRECISION_ROWS}],
    )
    gpu["notes"] = ["TF32 disabled explicitly"]
    add(
        "D2-MATMUL",
        "D2",
        "Serving",
        "The GPU multiplies matrices faster than the CPU.",
        [gpu],
        tiers=("offline", "gpu"),
    )
    add(
        "D2-KV",
        "D2",
        "Serving",
        "KV cache bytes follow the formula.",
        [
            check(
                "tests/claims/d2/test_engine.py::test_kv",
                "passed",
                source="live",
                tiers=("engine",),
                measurements=[measurement("bytes per token", 98304, 98304, holds=True, unit="B")],
                charts=[{"kind": "kv_growth", "title": None, "rows": KV_ROWS}],
            ),
        ],
        tiers=("engine",),
    )
    add(
        "D2-ERRATUM-HOLDS",
        "D2",
        "Quantization",
        "An erratum that now holds.",
        [
            check(
                "tests/claims/d2/test_quant.py::test_fixed",
                "failed",
                failure="erratum-holds",
                measurements=[measurement("size", 4.1, 4.1, holds=True, unit="GB")],
                message="D2-ERRATUM-HOLDS: catalogued as a known erratum, "
                "but size now holds (size: measured 4.1 GB, stated 4.1 GB); update the catalog",
            ),
        ],
        erratum={"explanation": "was wrong", "refutes": ["size"]},
    )
    add(
        "D2-XPASSED",
        "D2",
        "Quantization",
        "A check that passed unexpectedly.",
        [
            check("tests/claims/d2/test_quant.py::test_xpass", "xpassed"),
        ],
    )
    add(
        "D2-BAD-CHART",
        "D2",
        "Quantization",
        "A chart with broken rows still leaves a page.",
        [
            check(
                "tests/claims/d2/test_quant.py::test_bad_chart",
                "passed",
                charts=[
                    {
                        "kind": "bits_per_param",
                        "title": "broken",
                        "rows": [{"file": "x", "label": "Q4_0", "bits_per_param": "NaN"}],
                    },
                    {"kind": "sparkline", "title": "unknown kind", "rows": [{"x": 1}]},
                ],
            ),
        ],
    )
    for i in range(3):
        add(
            f"D2-UNTESTABLE-{i}",
            "D2",
            "Serving",
            f"A strategic opinion number {i}.",
            [],
            testable=False,
            untestable_reason="advice about organisations, not a property of software",
        )
    return claims


def build_evidence(*, complete: bool = True, extra_claims: int = 0) -> dict[str, Any]:
    claims = _claims()
    for i in range(extra_claims):
        doc = DOCUMENTS[i % 2]
        claims.append(
            {
                "id": f"{doc['id']}-BULK-{i}",
                "document": doc["id"],
                "section": doc["sections"][i % len(doc["sections"])],
                "statement": f"Bulk claim number {i} about tokens and bytes.",
                "tiers": ["offline"],
                "testable": i % 4 != 0,
                "untestable_reason": None if i % 4 else "not measurable",
                "profile": None,
                "stated": [],
                "erratum": None,
                "note": None,
                "checks": []
                if i % 4 == 0
                else [
                    check(
                        f"tests/bulk.py::test_{i}",
                        "passed",
                        measurements=[
                            measurement("bytes", 1024.0, 1024.0 + i % 3, holds=i % 3 == 0, unit="B")
                        ],
                    )
                ],
            }
        )
    for claim in claims:
        verdict, reason = claim_verdict(
            claim["testable"], claim["untestable_reason"], claim["checks"]
        )
        claim["verdict"] = verdict
        claim["reason"] = (
            claim["erratum"]["explanation"]
            if claim["erratum"] and verdict == "known-erratum"
            else reason
        )
        claim["document_title"] = next(
            d["title"] for d in DOCUMENTS if d["id"] == claim["document"]
        )
    facts = {}
    for claim in claims:
        for c in claim["checks"]:
            facts.update(c.get("facts") or {})
    # pytest's counts as the plugin records them: one test per check node, plus
    # the deselected tests the made-up run had.
    outcomes = {
        c["nodeid"]: c["outcome"] for claim in claims for c in claim["checks"]
    }
    counts = {k: 0 for k in PYTEST_COUNTS}
    for outcome in outcomes.values():
        counts[outcome] += 1
    counts["deselected"] = 3
    exit_status = 1 if counts["failed"] or counts["error"] else 0
    return {
        "schema": "claims-evidence/1",
        "run": {
            "started": "2026-11-29T08:00:00+00:00",
            "finished": "2026-11-29T08:03:30+00:00",
            "markexpr": "offline or gpu",
            "profile": "generic",
            "complete": complete,
            "args": ["-m", "offline or gpu", "--claims-evidence", "reports/evidence.json"],
            "options": {
                "ollama_host": "http://127.0.0.1:11434",
                "ollama_model": "phi4",
                "allow_unload": False,
            },
            "machine": {
                "os": "Debian GNU/Linux 12 (bookworm)",
                "arch": "x86_64",
                "kernel": "6.1.0-28-amd64",
                "cpu": "AMD EPYC",
                "cpu_count": 2,
                "memory_bytes": 25276510208,
                "python": "3.11.7",
                "hostname": "lab-a",
                "gpu": {
                    "devices": [
                        {
                            "name": "NVIDIA GB10",
                            "driver_version": "580.159.03",
                            "memory.total": "[N/A]",
                        }
                    ],
                    "count": 1,
                    "driver_version": "580.159.03",
                    "cuda_version": "13.0",
                },
                "torch": "2.13.0+cu130",
                "ollama": None,
                "packages": {"gguf": "0.19.0", "llama_cpp_python": "0.3.36"},
            },
            "tier_status": {
                "offline": {"available": True, "reason": None},
                "gpu": {"available": True, "reason": None, "torch": "2.13.0+cu130", "cuda": "13.0"},
                "ollama": {
                    "available": True,
                    "reason": None,
                    "version": "0.12.3",
                    "host": "http://127.0.0.1:11434",
                },
            },
            "facts": facts,
            "pytest": {
                "exit_status": exit_status,
                "meaning": "some tests failed" if exit_status else "all selected tests passed",
                "counts": counts,
            },
            "suite": {
                "version": "0.1.0",
                "git_commit": "0123456789abcdef0123456789abcdef01234567",
                "git_dirty": False,
                "catalog_sha256": "ab" * 32,
            },
        },
        "documents": copy.deepcopy(DOCUMENTS),
        "claims": claims,
        "summary": summarize(claims),
    }


@pytest.fixture
def make_evidence() -> Callable[..., dict[str, Any]]:
    """Factory: ``make_evidence(complete=False, extra_claims=200)``."""
    return build_evidence


@pytest.fixture
def evidence() -> dict[str, Any]:
    """Evidence covering every verdict, check outcome and chart kind."""
    return build_evidence()


@pytest.fixture(scope="session")
def page() -> str:
    """The report page for :func:`evidence`, rendered once (plots cost tens of ms each)."""
    from claims.report import render_html

    return render_html(build_evidence())


# --- auditing a page for anything a browser would fetch --------------------------------
import re  # noqa: E402
from html.parser import HTMLParser  # noqa: E402

# Attributes through which a browser loads or navigates to a resource.
URL_ATTRIBUTES = {
    "src",
    "href",
    "xlink:href",
    "action",
    "formaction",
    "poster",
    "srcset",
    "data",
    "background",
    "cite",
    "longdesc",
    "manifest",
    "ping",
    "icon",
    "lowsrc",
    "dynsrc",
}
FETCHING_TAGS = {
    "link",
    "base",
    "iframe",
    "frame",
    "embed",
    "object",
    "img",
    "audio",
    "video",
    "source",
    "track",
    "image",
    "input",
}
_CSS_URL = re.compile(r"url\(\s*(['\"]?)(?!#)(?!data:)", re.I)


class ReferenceAudit(HTMLParser):
    """Collects every place a page could make a request: URL attributes, tags, CSS, script."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.problems: list[str] = []
        self.ids: list[str] = []
        self.scripts: list[str] = []
        self._in: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._in.append(tag)
        values = dict(attrs)
        if tag in FETCHING_TAGS and tag != "input":
            self.problems.append(f"<{tag}> element")
        if tag == "input" and (values.get("type") or "").lower() == "image":
            self.problems.append("<input type=image>")
        if tag == "meta" and (values.get("http-equiv") or "").lower() == "refresh":
            self.problems.append("<meta http-equiv=refresh>")
        if tag == "script" and "src" in values:
            self.problems.append("<script src>")
        for key, value in attrs:
            if key == "id" and value:
                self.ids.append(value)
            if value is None:
                continue
            text = value.strip()
            if key in URL_ATTRIBUTES and not (
                text.startswith("#") or text.lower().startswith("data:")
            ):
                self.problems.append(f"<{tag} {key}={text[:60]!r}>")
            if key == "style":
                self._css(text, f"style attribute of <{tag}>")
            if key.startswith("on"):
                self.problems.append(f"<{tag} {key}> event handler attribute")

    def handle_endtag(self, tag: str) -> None:
        if self._in and self._in[-1] == tag:
            self._in.pop()

    def handle_data(self, data: str) -> None:
        if not self._in:
            return
        if self._in[-1] == "style":
            self._css(data, "<style>")
        elif self._in[-1] == "script":
            self.scripts.append(data)
            for token in (
                "http:",
                "https:",
                "//",
                "fetch(",
                "XMLHttpRequest",
                "import(",
                "WebSocket",
                "src=",
            ):
                if token == "//" and re.search(r"(?<![:\w])//(?!\s)", data) is None:
                    continue
                if token != "//" and token in data:
                    self.problems.append(f"script uses {token}")

    def _css(self, css: str, where: str) -> None:
        if "@import" in css.lower():
            self.problems.append(f"@import in {where}")
        if _CSS_URL.search(css):
            self.problems.append(f"url(...) in {where}")


def audit_page(html: str) -> ReferenceAudit:
    audit = ReferenceAudit()
    audit.feed(html)
    audit.close()
    return audit


@pytest.fixture
def audit() -> Callable[[str], ReferenceAudit]:
    """``audit(html).problems`` lists every way the page could fetch something."""
    return audit_page
