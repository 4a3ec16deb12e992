"""The one helper every claim test asserts through.

A :class:`Check` belongs to one test. The test records measurements against the
catalog's stated figures (``check.against``), or with an explicit predicate
(``check.measure``), attaches raw evidence (``check.attach``), and says where the
evidence came from (``check.source``: recorded, fixture or live). Assertions are
soft: every measurement is recorded, and :meth:`Check.conclude` decides the
outcome once the test body has run, so a report shows all figures of a claim and
not only the first that failed.

Known errata: when the claim's catalog record carries an erratum, the figures it
names are expected not to hold. Their failure is a *known erratum*; an unlisted
figure failing is a refutation; a listed figure that holds fails the test
strictly, so the catalog gets corrected.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from claims.catalog.records import Claim, StatedFigure
from claims.figures import Interval, UnitError, agrees, convert

Source = Literal["recorded", "fixture", "live"]
SOURCES: tuple[str, ...] = ("recorded", "fixture", "live")

# Raw evidence is for reading, not archiving: keep each attachment bounded so a
# chatty server cannot bloat evidence.json.
MAX_ATTACHMENT_CHARS = 8000


class CheckUsageError(Exception):
    """A test used the check API wrongly (unknown figure, unit mismatch...)."""


@dataclass(frozen=True)
class Conclusion:
    """What the measurements say once the test body has finished."""

    kind: Literal["holds", "refuted", "known-erratum", "erratum-holds"]
    message: str | None = None


def model_matches(stated_model: str, model: str | None) -> bool:
    """'phi4' matches 'phi4' and 'phi4:latest'; tags other than latest must match."""
    if model is None:
        return False

    def norm(name: str) -> str:
        name = name.strip().lower()
        name = name.removeprefix("registry.ollama.ai/library/")
        return name[: -len(":latest")] if name.endswith(":latest") else name

    return norm(stated_model) == norm(model)


def jsonable(value: Any) -> Any:
    """Make a measured value safe for JSON (and for xdist's serializer).

    xdist's serializer (execnet) dispatches on the exact type, so subclasses of
    the builtins (torch's ``TorchVersion`` is a ``str``, ``numpy.float64`` a
    ``float``, an ``IntEnum`` an ``int``) are turned into the builtin itself:
    one of them in a record would crash the worker and end the whole run.
    """
    if isinstance(value, Interval):
        return value.to_json()
    if value is None or isinstance(value, bool):
        return None if value is None else bool(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, str):
        return str(value)
    if isinstance(value, float):
        return float(value) if math.isfinite(value) else str(value)
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if hasattr(value, "item"):  # numpy scalars
        return jsonable(value.item())
    return str(value)


def _display(value: Any, unit: str | None) -> str:
    if isinstance(value, float):
        text = f"{value:.6g}" if abs(value) < 1e7 else f"{value:,.0f}"
    elif isinstance(value, int) and not isinstance(value, bool):
        text = f"{value:,}"
    elif isinstance(value, (list, tuple)):
        shown = ", ".join(str(v) for v in value[:12])
        text = f"[{shown}{', …' if len(value) > 12 else ''}]"
    else:
        text = str(value)
    return f"{text} {unit}" if unit else text


@dataclass
class Check:
    """Evidence for one test of one or more claims."""

    claims: tuple[Claim, ...]
    nodeid: str
    source: Source = "fixture"
    profile: str = "generic"
    measurements: list[dict[str, Any]] = field(default_factory=list)
    attachments: list[dict[str, Any]] = field(default_factory=list)
    facts: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    charts: list[dict[str, Any]] = field(default_factory=list)

    def __setattr__(self, name: str, value: Any) -> None:
        # The source decides reproduced vs consistent and must follow the schema's
        # enum: a typo would otherwise surface only as an invalid evidence.json.
        if name == "source" and value not in SOURCES:
            raise CheckUsageError(f"source must be one of {', '.join(SOURCES)}, got {value!r}")
        super().__setattr__(name, value)

    # --- recording -----------------------------------------------------------
    def _figure(self, name: str, claim_id: str | None) -> tuple[Claim, StatedFigure]:
        candidates = [c for c in self.claims if claim_id in (None, c.id)]
        if not candidates:
            raise CheckUsageError(f"{self.nodeid}: not marked with claim {claim_id!r}")
        found = []
        for claim in candidates:
            for fig in claim.stated:
                if fig.name == name:
                    found.append((claim, fig))
        if not found:
            ids = ", ".join(c.id for c in candidates)
            raise CheckUsageError(f"claim(s) {ids} state no figure named {name!r}")
        if len(found) > 1:
            raise CheckUsageError(f"figure {name!r} is ambiguous; pass claim=")
        return found[0]

    def against(
        self,
        figure: str,
        measured: Any,
        *,
        unit: str | None = None,
        claim: str | None = None,
        model: str | None = None,
        unordered: bool = False,
        note: str | None = None,
    ) -> bool:
        """Compare ``measured`` with the catalog's stated figure named ``figure``.

        Numbers and ranges use the figure's interval (printed precision, or the
        catalog's justified tolerance); ``measured`` may be an :class:`Interval`
        when it was itself computed from printed figures. ``unit`` converts the
        measurement into the figure's unit first (GB vs GiB stays explicit).
        Text, lists and booleans compare exactly. A figure stated for another
        model or machine profile is recorded as not applicable, not compared. A
        figure the catalog marks ``particular`` (one run or download of the
        author's) is judged only against recorded data; beside a live or fixture
        measurement it is shown with whether it matches, not judged.
        Returns whether the figure holds (True when not judged).
        """
        owner, fig = self._figure(figure, claim)
        record: dict[str, Any] = {
            "name": fig.name,
            "claim": owner.id,
            "stated": self._stated_json(fig),
            "stated_display": fig.display,
            "unit": fig.unit,
            "tolerance": fig.tolerance_display(),
        }
        if note:
            record["note"] = note
        reason = self._not_applicable_because(fig, model)
        if reason is not None:
            record.update(
                measured=jsonable(measured),
                measured_display=_display(measured, unit or fig.unit),
                holds=True,
                compared=False,
                applicable=False,
                note=reason,
            )
            self.measurements.append(record)
            return True
        value = measured
        if fig.kind in ("number", "range"):
            if unit is not None and fig.unit is not None and unit != fig.unit:
                try:
                    value = convert(measured, unit, fig.unit)
                except UnitError as exc:
                    raise CheckUsageError(f"figure {fig.name!r}: {exc}") from None
            try:
                holds = agrees(value, fig.expected())
            except TypeError as exc:
                raise CheckUsageError(f"figure {fig.name!r}: {exc}") from None
            record["expected_interval"] = fig.expected().to_json()
        elif fig.kind == "text":
            holds = str(measured) == fig.text
        elif fig.kind == "bool":
            holds = bool(measured) is fig.flag and isinstance(measured, bool)
        else:  # list
            if not isinstance(measured, (list, tuple)):
                raise CheckUsageError(f"figure {fig.name!r} is a list; measured {measured!r}")
            got = [str(v) for v in measured]
            holds = sorted(got) == sorted(fig.values) if unordered else got == list(fig.values)
        record.update(
            measured=jsonable(value),
            measured_display=_display(value, fig.unit if fig.kind in ("number", "range") else unit),
            holds=bool(holds),
            compared=True,
        )
        if fig.particular is not None and self.source != "recorded":
            # The figure describes the author's own run or download (a digest, an
            # exact reply, a count prompt caching can lower): a new run that differs
            # does not contradict the claim, so it is shown beside, not judged.
            matched = "matches" if holds else "differs from"
            record.update(
                holds=True,
                compared=False,
                matches=bool(holds),
                note=f"{matched} the document's own run; not judged: {fig.particular}"
                + (f" ({note})" if note else ""),
            )
            self.measurements.append(record)
            return True
        self.measurements.append(record)
        return bool(holds)

    def _not_applicable_because(self, fig: StatedFigure, model: str | None) -> str | None:
        """Why a figure is not compared in this check, or None when it applies."""
        if fig.model is not None and not model_matches(fig.model, model):
            return f"figure stated for {fig.model}; model under test is {model or 'none'}"
        # Recorded figures were measured on the author's machine, which is the
        # figure's profile; only live and fixture checks are held to this machine's.
        if fig.profile is not None and self.source != "recorded" and fig.profile != self.profile:
            return f"figure stated for the {fig.profile} profile; this run is {self.profile}"
        return None

    @staticmethod
    def _stated_json(fig: StatedFigure) -> Any:
        if fig.kind == "number":
            assert fig.text is not None
            return float(fig.text.replace(",", ""))
        if fig.kind == "range":
            assert fig.low is not None and fig.high is not None
            return {
                "low": float(fig.low.replace(",", "")),
                "high": float(fig.high.replace(",", "")),
            }
        if fig.kind == "list":
            return list(fig.values)
        if fig.kind == "bool":
            return fig.flag
        return fig.text

    def measure(
        self,
        name: str,
        measured: Any,
        *,
        holds: bool,
        expected: str | None = None,
        unit: str | None = None,
        note: str | None = None,
    ) -> bool:
        """Record a measurement judged by an explicit predicate.

        For claims whose statement is a relation rather than a printed figure
        ("GPU faster than CPU", "at least two distinct texts"): ``expected``
        says the relation in words, ``holds`` whether it was met.
        """
        if not isinstance(holds, bool):
            raise CheckUsageError(f"measurement {name!r}: holds must be a bool, got {holds!r}")
        record: dict[str, Any] = {
            "name": name,
            "stated": expected,
            "stated_display": expected,
            "measured": jsonable(measured),
            "measured_display": _display(measured, unit),
            "unit": unit,
            "tolerance": None,
            "holds": holds,
            "compared": expected is not None,
        }
        if note:
            record["note"] = note
        self.measurements.append(record)
        return holds

    def observe(
        self, name: str, measured: Any, *, unit: str | None = None, note: str | None = None
    ) -> None:
        """Record a measured value that no statement is compared with (context)."""
        record: dict[str, Any] = {
            "name": name,
            "stated": None,
            "measured": jsonable(measured),
            "measured_display": _display(measured, unit),
            "unit": unit,
            "tolerance": None,
            "holds": True,
            "compared": False,
        }
        if note:
            record["note"] = note
        self.measurements.append(record)

    def attach(self, label: str, content: Any, *, kind: str = "text") -> None:
        """Keep raw evidence: an HTTP exchange, command output, generated text."""
        if not isinstance(content, str):
            content = json.dumps(jsonable(content), indent=2, ensure_ascii=False)
        truncated = len(content) > MAX_ATTACHMENT_CHARS
        if truncated:
            content = (
                content[:MAX_ATTACHMENT_CHARS]
                + f"\n… [{len(content) - MAX_ATTACHMENT_CHARS} more characters]"
            )
        self.attachments.append(
            {"label": label, "kind": kind, "content": content, "truncated": truncated}
        )

    def fact(self, key: str, value: Any) -> None:
        """A fact about the machine or model under test (digest, version...)."""
        self.facts[key] = jsonable(value)

    def note(self, text: str) -> None:
        self.notes.append(text)

    def chart(self, kind: str, rows: list[dict[str, Any]], *, title: str | None = None) -> None:
        """Data the HTML report plots. Kinds and their row keys (units in the names):

        * ``ttft``: label, cold (bool), ttft_ms, and when known load_ms, prefill_ms, decode_ms
        * ``matmul``: device ("cpu"/"gpu"), precision ("fp32"/"tf32"), tflops, ms
        * ``bits_per_param``: file, label (quantization label), bits_per_param
        * ``kv_growth``: context, measured_bytes, formula_bytes
        """
        self.charts.append({"kind": kind, "title": title, "rows": jsonable(rows)})

    # --- concluding ------------------------------------------------------------
    def not_applicable_reason(self) -> str | None:
        """Why the check is not applicable, when its figures were all about another
        model or profile and nothing else was compared; None otherwise."""
        if any(m.get("compared") for m in self.measurements):
            return None
        reasons = [m["note"] for m in self.measurements if m.get("applicable") is False]
        return "; ".join(dict.fromkeys(reasons)) if reasons else None

    def failing(self) -> list[dict[str, Any]]:
        return [m for m in self.measurements if not m["holds"]]

    def conclude(self) -> Conclusion:
        """Judge the recorded measurements against the claims' errata."""
        expected: dict[str, set[str]] = {}
        for claim in self.claims:
            if claim.erratum is not None:
                expected[claim.id] = set(claim.erratum.refutes)
        failing = self.failing()

        def is_expected(m: dict[str, Any]) -> bool:
            owners = [m["claim"]] if m.get("claim") else [c.id for c in self.claims]
            for owner in owners:
                if owner in expected and (not expected[owner] or m["name"] in expected[owner]):
                    return True
            return False

        unexpected = [m for m in failing if not is_expected(m)]
        if unexpected:
            return Conclusion("refuted", _describe(unexpected))
        if failing:
            return Conclusion("known-erratum", _describe(failing))
        # Nothing failed: an expected erratum that now holds must be noticed.
        for claim in self.claims:
            if claim.erratum is None:
                continue
            names = set(claim.erratum.refutes)
            compared = [
                m
                for m in self.measurements
                if m.get("compared")
                and m.get("claim", claim.id) == claim.id
                and (not names or m["name"] in names)
            ]
            if compared:
                shown = ", ".join(sorted({m["name"] for m in compared}))
                return Conclusion(
                    "erratum-holds",
                    f"{claim.id} is catalogued as a known erratum but now holds ({shown}); "
                    "update the catalog",
                )
        return Conclusion("holds")

    def to_json(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "measurements": self.measurements,
            "attachments": self.attachments,
            "facts": self.facts,
            "notes": self.notes,
            "charts": self.charts,
        }


def _describe(measurements: Sequence[dict[str, Any]]) -> str:
    parts = []
    for m in measurements:
        stated = m.get("stated_display") or m.get("stated")
        parts.append(f"{m['name']}: measured {m.get('measured_display')}, stated {stated}")
    return "; ".join(parts)
