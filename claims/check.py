"""The one helper every claim test asserts through.

A :class:`Check` belongs to one test. The test records measurements against the
catalog's stated figures (``check.against``), or with an explicit predicate
(``check.measure``) and attaches raw evidence (``check.attach``). Where the
evidence comes from (``check.source``: recorded, fixture or live) is declared
before the test body runs, because it changes how figures are judged: by the
test's ``@pytest.mark.claim(ID, source="recorded")``, by a fixture whose data
decides it (:meth:`Check.declare_source`, during setup), or by the tier (live
tiers "live", else "fixture"). It cannot be assigned afterwards. Assertions are
soft: every measurement is recorded, and :meth:`Check.conclude` decides the
outcome once the test body has run, so a report shows all figures of a claim and
not only the first that failed.

Known errata: when the claim's catalog record carries an erratum, the figures it
names are expected not to hold. Each is judged on its own: its failure is a
*known erratum*; an unlisted figure failing is a refutation; any listed figure
that holds fails the test strictly, naming it, so the catalog gets corrected
even when the other listed figures still fail.

:meth:`Check.conclude` says what the measurements found (a :class:`Conclusion`);
the verdict follows from it, and from how the test ended, in
:func:`claims.verdicts.decide`; the report only displays it.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypedDict, get_args

from claims.catalog.records import Claim, StatedFigure
from claims.figures import Interval, UnitError, agrees, convert, parse_literal
from claims.probes.files.ollama_store.names import model_matches
from claims.profiles import GENERIC
from claims.records import (
    Attachment,
    Chart,
    ConclusionKind,
    IntervalRecord,
    Measurement,
    Premise,
    SourceName,
    StatedFor,
    StatedRange,
)
from claims.terminal import encodable

if TYPE_CHECKING:
    from claims.catalog.loader import Catalog

# The record's word for where evidence came from (claims.records.SourceName), by
# the name claim tests know it by.
Source = SourceName
SOURCES: tuple[str, ...] = get_args(SourceName)

# Raw evidence is for reading, not archiving: keep each attachment bounded so a
# chatty server cannot bloat evidence.json.
MAX_ATTACHMENT_CHARS = 8000


class CheckUsageError(Exception):
    """A test used the check API wrongly (unknown figure, unit mismatch...)."""


@dataclass(frozen=True)
class Conclusion:
    """What the measurements say once the test body has finished.

    ``kind``: every figure judged holds ("holds"), one not listed by an erratum
    fails ("refuted"), only listed ones fail ("known-erratum"), a listed one
    holds ("erratum-holds"), nothing was judged ("nothing-compared"), or every
    figure was about another model or profile ("not-applicable"). Which verdict
    that gives (a confirmation is "reproduced" only from a live source) is
    :func:`claims.verdicts.decide`'s to say.
    """

    kind: ConclusionKind
    message: str | None = None
    # For "not-applicable": what the figures were stated for, so the report can say
    # how to run them without parsing the reason's wording.
    scope: StatedFor = field(default_factory=StatedFor)


def out_of_scope(
    fig: StatedFigure, *, model: str | None, profile: str, source: str
) -> str | None:
    """The suite's one scope rule: why a stated figure is not judged, or None when it is.

    * A figure stated for a ``model`` is judged only when that model is the one
      under test, by Ollama's name rule (:func:`model_matches`).
    * A figure stated for a machine ``profile`` is judged on recorded data always
      (the document recorded it on the author's machine, which is that profile),
      and on live or fixture data only when this run's profile is that profile.

    Claim tests never decide scope themselves: they hand the measurement to the
    check (``check.against``) and, when their measuring differs, ask
    ``check.applies``.
    """
    if fig.model is not None and not model_matches(fig.model, model):
        return f"figure stated for {fig.model}; model under test is {model or 'none'}"
    if fig.profile is not None and source != "recorded" and fig.profile != profile:
        return f"figure stated for the {fig.profile} profile; this run is {profile}"
    return None


def jsonable(value: Any) -> Any:
    """Make a measured value safe for JSON (and for xdist's serializer).

    xdist's serializer (execnet) dispatches on the exact type, so subclasses of
    the builtins (torch's ``TorchVersion`` is a ``str``, ``numpy.float64`` a
    ``float``, an ``IntEnum`` an ``int``) are turned into the builtin itself:
    one of them in a record would crash the worker and end the whole run. So would
    a lone surrogate (a file name that is not UTF-8): text gets U+FFFD in its place,
    as the evidence file would (:func:`claims.terminal.encodable`), so a record reads
    the same under -n 0 and -n 2.
    """
    if isinstance(value, Interval):
        return value.to_json()
    if value is None or isinstance(value, bool):
        return None if value is None else bool(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, str):
        return encodable(str(value))
    if isinstance(value, float):
        return float(value) if math.isfinite(value) else str(value)
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, dict):
        return {encodable(str(k)): jsonable(v) for k, v in value.items()}
    if hasattr(value, "item"):  # numpy scalars
        return jsonable(value.item())
    return encodable(str(value))


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


class CheckEvidence(TypedDict):
    """What a check recorded, as its :class:`~claims.records.CheckRecord` carries it (the
    record's source is the one the check declared, :attr:`Check.source`)."""

    measurements: list[Measurement]
    attachments: list[Attachment]
    facts: dict[str, Any]
    notes: list[str]
    charts: list[Chart]
    premises: list[Premise]


@dataclass
class Check:
    """Evidence for one test of one or more claims."""

    claims: tuple[Claim, ...]
    nodeid: str
    source: Source = "fixture"
    profile: str = GENERIC.name
    measurements: list[Measurement] = field(default_factory=list)
    attachments: list[Attachment] = field(default_factory=list)
    facts: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    charts: list[Chart] = field(default_factory=list)
    # Figures the check computed with rather than compared (see premise()).
    premises: list[Premise] = field(default_factory=list)
    # The run's catalog, for premises stated under another claim.
    catalog: Catalog | None = None
    # Set by the plugin when the test body starts (begin()): the source is fixed from then on.
    started: bool = field(default=False, repr=False)

    def __setattr__(self, name: str, value: Any) -> None:
        # The source decides reproduced vs consistent and which stated figures apply, so it
        # is fixed before anything is judged: set once, here by the constructor, and
        # changed only through declare_source() while the test is being set up.
        if name == "source":
            if "source" in self.__dict__:
                raise CheckUsageError(
                    "check.source is declared, not assigned: @pytest.mark.claim(ID, "
                    "source=...) on the test, or Check.declare_source() in a fixture"
                )
            _validate_source(value)
        super().__setattr__(name, value)

    def declare_source(self, source: Source) -> None:
        """Where the evidence comes from, declared by a fixture whose data decides it.

        For a source known only at setup (the user's own store given by
        --ollama-models-dir, the Hub or the transcribed snapshot of a parametrised
        fixture). Refused once the test body runs or anything was measured: a
        figure already judged was judged for the old source.
        """
        _validate_source(source)
        if self.started:
            raise CheckUsageError(
                f"{self.nodeid}: the source is declared before the test body runs "
                "(@pytest.mark.claim(ID, source=...) or a fixture), not inside it"
            )
        if self.measurements:
            raise CheckUsageError(
                f"{self.nodeid}: the source is declared before anything is measured "
                f"({len(self.measurements)} measurement(s) judged as {self.source!r} already)"
            )
        object.__setattr__(self, "source", source)

    def begin(self) -> None:
        """The test body starts: the evidence source is fixed from here on."""
        self.started = True

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

    def _premise(self, figure: str, claim: str | None) -> tuple[Claim, StatedFigure]:
        if claim is not None and all(c.id != claim for c in self.claims):
            if self.catalog is None or claim not in self.catalog:
                raise CheckUsageError(f"{self.nodeid}: no catalog claim {claim!r} to read from")
            owner = self.catalog.get(claim)
            try:
                fig = owner.figure(figure)
            except KeyError as exc:
                raise CheckUsageError(str(exc.args[0])) from None
        else:
            owner, fig = self._figure(figure, claim)
        entry: Premise = {"claim": owner.id, "name": fig.name, "stated_display": fig.display}
        if entry not in self.premises:
            self.premises.append(entry)
        return owner, fig

    def premise(self, figure: str, *, claim: str | None = None) -> float:
        """The number a stated figure gives, for a check that computes with it.

        A test reads the document's figures here instead of spelling them out,
        so a changed figure changes what is measured (``claims audit`` checks
        that it does). ``claim`` may name another claim of the run's catalog
        (the masterclass restates 2.4's Llama 3 8B shape in Q11). The premise is
        recorded with the check, so the evidence says what the result rests on.
        """
        owner, fig = self._premise(figure, claim)
        if fig.kind != "number" or fig.text is None:
            raise CheckUsageError(f"premise {figure!r} of {owner.id} is {fig.kind}, not a number")
        return float(parse_literal(fig.text).value)

    def premise_interval(self, figure: str, *, claim: str | None = None) -> Interval:
        """A stated number as the interval its printed precision admits, or a stated range
        with its tolerance (a premise)."""
        owner, fig = self._premise(figure, claim)
        if fig.kind == "range":
            return fig.expected()
        if fig.kind != "number" or fig.text is None:
            raise CheckUsageError(f"premise {figure!r} of {owner.id} is {fig.kind}, not a number")
        return Interval.stated(fig.text.replace(",", ""))

    def premise_text(self, figure: str, *, claim: str | None = None) -> str:
        """A stated text (a command, a path) that the check uses rather than compares."""
        owner, fig = self._premise(figure, claim)
        if fig.kind != "text" or fig.text is None:
            raise CheckUsageError(f"premise {figure!r} of {owner.id} is {fig.kind}, not text")
        return fig.text

    def premise_values(self, figure: str, *, claim: str | None = None) -> tuple[str, ...]:
        """A stated list (the directives a document prints) that the check computes with."""
        owner, fig = self._premise(figure, claim)
        if fig.kind != "list":
            raise CheckUsageError(f"premise {figure!r} of {owner.id} is {fig.kind}, not a list")
        return fig.values

    def not_judged(self, figure: str, reason: str, *, claim: str | None = None) -> None:
        """Show a stated figure this check cannot judge, and why (e.g. another OS's path).

        Recorded as not applicable, never compared: the check's verdict rests on
        its other figures, and ``claims audit`` reports ``reason`` for this one.
        """
        owner, fig = self._figure(figure, claim)
        record = self._stated_measurement(owner.id, fig, None, "—", holds=True)
        record["compared"] = False
        record["applicable"] = False
        record["note"] = reason
        self.measurements.append(record)

    def _stated_measurement(
        self, claim_id: str, fig: StatedFigure, measured: Any, measured_display: str, *, holds: bool
    ) -> Measurement:
        """A measurement of a stated figure: the fields describing the figure, then the value."""
        return {
            "name": fig.name,
            "claim": claim_id,
            "stated": self._stated_json(fig),
            "stated_display": fig.display,
            "unit": fig.unit,
            "tolerance": fig.tolerance_display(),
            "measured": measured,
            "measured_display": measured_display,
            "holds": holds,
        }

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
        reason = self._not_applicable_because(fig, model)
        if reason is not None:
            record = self._stated_measurement(
                owner.id, fig, jsonable(measured), _display(measured, unit or fig.unit), holds=True
            )
            record["compared"] = False
            record["applicable"] = False
            record["note"] = reason
            stated_for: StatedFor = {}
            if fig.model:
                stated_for["model"] = fig.model
            if fig.profile:
                stated_for["profile"] = fig.profile
            record["stated_for"] = stated_for
            self.measurements.append(record)
            return True
        value = measured
        interval: IntervalRecord | None = None
        if fig.kind in ("number", "range"):
            value = self._in_unit(fig, measured, unit, owner)
            holds = self._judge_number(owner, fig, value)
            if fig.form in ("equal", "range", "ratio"):
                interval = fig.expected().to_json()
        elif fig.form == "text":
            holds = str(measured) == fig.text
        elif fig.form == "true":
            holds = bool(measured) is fig.flag and isinstance(measured, bool)
        elif fig.form == "one-of":
            holds = str(measured) in fig.values
        else:  # list
            if not isinstance(measured, (list, tuple)):
                raise CheckUsageError(f"figure {fig.name!r} is a list; measured {measured!r}")
            got = [str(v) for v in measured]
            holds = sorted(got) == sorted(fig.values) if unordered else got == list(fig.values)
        shown = _display(value, fig.unit if fig.kind in ("number", "range") else unit)
        record = self._stated_measurement(owner.id, fig, jsonable(value), shown, holds=bool(holds))
        if interval is not None:
            record["expected_interval"] = interval
        record["compared"] = True
        if note:
            record["note"] = note
        if fig.particular is not None and self.source != "recorded":
            # The figure describes the author's own run or download (a digest, an
            # exact reply, a count prompt caching can lower): a new run that differs
            # does not contradict the claim, so it is shown beside, not judged.
            matched = "matches" if holds else "differs from"
            record["holds"] = True
            record["compared"] = False
            record["matches"] = bool(holds)
            record["note"] = (
                f"{matched} the document's own run; not judged: {fig.particular}"
                + (f" ({note})" if note else "")
            )
        self.measurements.append(record)
        return record["holds"]

    def _not_applicable_because(self, fig: StatedFigure, model: str | None) -> str | None:
        """Why a figure is not compared in this check, or None when it applies."""
        return out_of_scope(fig, model=model, profile=self.profile, source=self.source)

    def applies(self, figure: str, *, claim: str | None = None, model: str | None = None) -> bool:
        """Whether the stated figure is judged in this check (:func:`out_of_scope`).

        For a test whose measuring differs with the figure's scope (a Spark-only
        figure needs a probe the general form does not): it asks the check, and
        never spells a model or profile name itself.
        """
        _, fig = self._figure(figure, claim)
        return self._not_applicable_because(fig, model) is None

    def _in_unit(self, fig: StatedFigure, measured: Any, unit: str | None, owner: Claim) -> Any:
        """The measurement in the unit it is judged in: the figure's own, or for a
        ratio the unit of the figure it is over."""
        target = fig.unit
        if fig.form == "ratio":
            assert fig.of is not None
            target = owner.figure(fig.of).unit
        if unit is None or target is None or unit == target:
            return measured
        try:
            return convert(measured, unit, target)
        except UnitError as exc:
            raise CheckUsageError(f"figure {fig.name!r}: {exc}") from None

    def _judge_number(self, owner: Claim, fig: StatedFigure, value: Any) -> bool:
        """Whether a number or interval meets a numeric figure in its form."""
        if isinstance(value, bool) or not isinstance(value, (int, float, Interval)):
            raise CheckUsageError(
                f"{owner.id}, figure {fig.name!r}: cannot compare "
                f"{type(value).__name__} with a number ({fig.form})"
            )
        if fig.form == "at-most":
            low = value.lo if isinstance(value, Interval) else float(value)
            return low <= fig.bound
        if fig.form == "at-least":
            high = value.hi if isinstance(value, Interval) else float(value)
            return high >= fig.bound
        if fig.form == "ratio":
            value = value / self._measured_base(owner, fig)
        return agrees(value, fig.expected())

    def _measured_base(self, owner: Claim, fig: StatedFigure) -> float:
        """The value measured for the figure a ratio is over, in this check."""
        for m in reversed(self.measurements):
            if m.get("claim") == owner.id and m["name"] == fig.of:
                base = m.get("measured")
                if isinstance(base, (int, float)) and not isinstance(base, bool) and base:
                    return float(base)
                raise CheckUsageError(
                    f"{owner.id}, figure {fig.name!r}: a ratio over {fig.of!r} needs a "
                    f"nonzero number measured for it, got {base!r}"
                )
        raise CheckUsageError(
            f"{owner.id}, figure {fig.name!r} is a ratio over {fig.of!r}: "
            f"check.against({fig.of!r}, ...) first"
        )

    @staticmethod
    def _stated_json(fig: StatedFigure) -> float | str | bool | list[str] | StatedRange | None:
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
        record: Measurement = {
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
        record: Measurement = {
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
        * ``precisions``: label (whose run), source ("recorded"/"measured"), precision
          ("fp32"/"fp16"/"bf16"), gflops and/or peak_mib
        """
        self.charts.append({"kind": kind, "title": title, "rows": jsonable(rows)})

    # --- concluding ------------------------------------------------------------
    def not_applicable_reason(self) -> str | None:
        """Why the check is not applicable, when its figures were all about another
        model or profile, or the author's own run (``particular``), and nothing else
        was compared; None otherwise."""
        if any(m.get("compared") for m in self.measurements):
            return None
        reasons = [
            m["note"]
            for m in self.measurements
            if m.get("applicable") is False or "matches" in m
        ]
        return "; ".join(dict.fromkeys(reasons)) if reasons else None

    def failing(self) -> list[Measurement]:
        """Measurements whose figure or relation does not hold."""
        return [m for m in self.measurements if not m["holds"]]

    def compared(self) -> list[Measurement]:
        """Measurements judged against a stated figure or relation."""
        return [m for m in self.measurements if m.get("compared")]

    def conclude(self) -> Conclusion:
        """Judge the recorded measurements against the claims' errata: what the check found."""
        listed: dict[str, set[str]] = {
            c.id: set(c.erratum.refutes) for c in self.claims if c.erratum is not None
        }

        def is_listed(m: Measurement) -> bool:
            # An erratum with no figures named covers the claim as a whole.
            owners = [m["claim"]] if m.get("claim") else [c.id for c in self.claims]
            return any(o in listed and (not listed[o] or m["name"] in listed[o]) for o in owners)

        failing = self.failing()
        unexpected = [m for m in failing if not is_listed(m)]
        if unexpected:
            return Conclusion("refuted", _describe(unexpected))
        # Each listed figure on its own: one that holds is news even when the
        # others still fail (a partial correction of the document).
        now_hold = [m for m in self.compared() if m["holds"] and is_listed(m)]
        if now_hold:
            owners = sorted({str(m.get("claim") or self.claims[0].id) for m in now_hold})
            shown = ", ".join(dict.fromkeys(m["name"] for m in now_hold))
            return Conclusion(
                "erratum-holds",
                f"{', '.join(owners)}: catalogued as a known erratum, but {shown} now "
                f"hold{'s' if len(now_hold) == 1 else ''} ({_describe(now_hold)}); "
                "update the catalog",
            )
        if failing:
            return Conclusion("known-erratum", _describe(failing))
        if not self.compared():
            reason = self.not_applicable_reason()
            if reason is not None:
                return Conclusion("not-applicable", reason, self._scope())
            recorded = len(self.measurements)
            return Conclusion(
                "nothing-compared",
                "the test compared nothing with a stated figure or relation "
                f"({recorded} measurement{'s' if recorded != 1 else ''} recorded, none judged): "
                "a check that cannot fail decides nothing",
            )
        return Conclusion("holds")

    def _scope(self) -> StatedFor:
        """What the figures were stated for: each of model and profile as the first
        measurement that names one says."""
        scope: StatedFor = {}
        for m in self.measurements:
            stated_for = m.get("stated_for") or {}
            model, profile = stated_for.get("model"), stated_for.get("profile")
            if model and "model" not in scope:
                scope["model"] = model
            if profile and "profile" not in scope:
                scope["profile"] = profile
        return scope

    def to_json(self) -> CheckEvidence:
        """What this check recorded, for its check record."""
        return {
            "measurements": self.measurements,
            "attachments": self.attachments,
            "facts": self.facts,
            "notes": self.notes,
            "charts": self.charts,
            "premises": self.premises,
        }


def _validate_source(value: Any) -> None:
    # The schema's enum: a typo would otherwise surface only as an invalid evidence.json.
    if value not in SOURCES:
        raise CheckUsageError(f"source must be one of {', '.join(SOURCES)}, got {value!r}")


def _describe(measurements: Sequence[Measurement]) -> str:
    parts = []
    for m in measurements:
        stated = m.get("stated_display") or m.get("stated")
        parts.append(f"{m['name']}: measured {m.get('measured_display')}, stated {stated}")
    return "; ".join(parts)
