"""The catalog's record types: documents, claims, stated figures and errata.

Records are immutable and carry only what the source documents say plus the
project's judgement about them (testable or not, known errata). Measurement and
verdict logic live elsewhere (:mod:`claims.check`, :mod:`claims.verdicts`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Literal

from claims.figures import Interval, parse_literal

if TYPE_CHECKING:
    from claims.records import DocumentRecord

# What a timing figure judges (the catalog's ``quantity``) and how it is measured
# (``procedure``). Every claim whose figure names one quantity reads one shared sample of
# it (claims.timing.pools), so a new claim on a quantity costs no extra request.
TIMING_QUANTITIES: dict[str, str] = {
    "prefill over decode rate": "per request",
    "server over client decode rate": "per request",
    "cold over warm TTFT": "paired cold/warm",
    "cold over warm load": "paired cold/warm",
    "cold load": "paired cold/warm",
    "decode rate by context": "alternated",
    "batched over sequential embedding": "alternated",
}
TIMING_PROCEDURES = ("per request", "paired cold/warm", "alternated")

FigureKind = Literal["number", "range", "text", "list", "bool"]

# How a stated figure is judged (the catalog's ``form``):
#   equal    a number, equal at its printed precision (or its set tolerance)
#   at-most  a number the measurement must not exceed (the literal, plus any set tolerance)
#   at-least a number the measurement must reach (the literal, less any set tolerance)
#   range    low to high, each bound at its printed precision
#   ratio    a number the measurement over the figure named by ``of`` must equal
#   true     a truth value the measurement must be
#   one-of   a list the measured value must be a member of
#   list     a list the measured list must equal
#   text     a text the measurement must equal exactly
FigureForm = Literal[
    "equal", "at-most", "at-least", "range", "ratio", "true", "one-of", "list", "text"
]
FORMS: tuple[str, ...] = (
    "equal", "at-most", "at-least", "range", "ratio", "true", "one-of", "list", "text"
)
# The forms each kind of literal can be judged in; the first is the default.
FORMS_OF_KIND: dict[str, tuple[str, ...]] = {
    "number": ("equal", "at-most", "at-least", "ratio"),
    "range": ("range",),
    "text": ("text",),
    "list": ("list", "one-of"),
    "bool": ("true",),
}


@dataclass(frozen=True)
class StatedFigure:
    """One figure a claim states, as the document printed it.

    ``text`` keeps the literal ("23.3", "6,171,877,376") so that its precision
    is part of the record; the tolerance follows from it unless ``tolerance`` is
    set, and then ``tolerance_reason`` says why.
    """

    name: str
    kind: FigureKind
    text: str | None = None
    unit: str | None = None
    low: str | None = None
    high: str | None = None
    values: tuple[str, ...] = ()
    flag: bool | None = None
    tolerance: Decimal | None = None
    tolerance_reason: str | None = None
    model: str | None = None
    profile: str | None = None
    note: str | None = None
    # Why the figure belongs to one particular run or download of the author's
    # (a digest, an exact reply): compared with recorded data, shown beside live data.
    particular: str | None = None
    # How the figure is judged (FORMS); the loader always sets it, from the catalog's
    # ``form`` or the one form its kind allows by default.
    form: FigureForm = "equal"
    # For a ratio: the figure of the same claim the measurement is divided by.
    of: str | None = None
    # The suite's own reading of a vague word ("much faster", "nearly all"), and why.
    # The words it reads are anchored in the document's sidecar (claims/text/anchors.py).
    reading: str | None = None
    # A figure no document states, and where it comes from (a published specification
    # the claim is judged against): the one kind of figure with no anchor.
    source: str | None = None
    # A timing figure: the measured quantity it judges and its procedure (TIMING_QUANTITIES).
    quantity: str | None = None
    procedure: str | None = None

    @property
    def bound(self) -> float:
        """The number a bound (at-most, at-least) or ratio admits up to, tolerance applied."""
        if self.kind != "number" or self.text is None:
            raise TypeError(f"stated figure {self.name!r} is {self.kind}, not a number")
        value = parse_literal(self.text).value
        tol = self.tolerance or Decimal(0)
        if self.form == "at-most":
            return float(value + tol)
        if self.form == "at-least":
            return float(value - tol)
        return float(value)

    def expected(self) -> Interval:
        """The interval a numeric figure or range admits, tolerance included."""
        if self.kind == "number":
            assert self.text is not None
            return parse_literal(self.text).interval(self.tolerance)
        if self.kind == "range":
            assert self.low is not None and self.high is not None
            lo, hi = parse_literal(self.low), parse_literal(self.high)
            tol_lo = lo.half_unit if self.tolerance is None else self.tolerance
            tol_hi = hi.half_unit if self.tolerance is None else self.tolerance
            return Interval(float(lo.value - tol_lo), float(hi.value + tol_hi))
        raise TypeError(f"stated figure {self.name!r} is {self.kind}, not numeric")

    @property
    def display(self) -> str:
        """The figure as a reader would quote it, unit included."""
        if self.kind == "range":
            core = f"{self.low}–{self.high}"
        elif self.form == "one-of":
            core = "one of " + ", ".join(self.values)
        elif self.kind == "list":
            core = ", ".join(self.values)
        elif self.kind == "bool":
            core = str(self.flag).lower()
        elif self.form == "at-most":
            core = f"≤ {self.text}"
        elif self.form == "at-least":
            core = f"≥ {self.text}"
        else:
            core = str(self.text)
        shown = f"{core} {self.unit}" if self.unit else core
        return f"{shown} × {self.of}" if self.form == "ratio" else shown

    def tolerance_display(self) -> str | None:
        if self.kind not in ("number", "range"):
            return "exact"
        if self.form in ("at-most", "at-least"):
            # A bound is the literal itself: its printed precision is no slack.
            if self.tolerance is not None:
                return f"±{self.tolerance} (set: {self.tolerance_reason})"
            return f"a bound ({self.form})"
        if self.tolerance is not None:
            return f"±{self.tolerance} (set: {self.tolerance_reason})"
        if self.kind == "number":
            assert self.text is not None
            half = parse_literal(self.text).half_unit
            # An integer literal admits ±0.5: exact for whole counts, not for measured rates.
            return f"±{half} (printed precision)"
        return "bounds ± half the last printed digit"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "name": self.name,
            "kind": self.kind,
            "form": self.form,
            "display": self.display,
        }
        for key in (
            "text",
            "unit",
            "low",
            "high",
            "model",
            "profile",
            "note",
            "tolerance_reason",
            "particular",
            "of",
            "reading",
            "source",
        ):
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        if self.values:
            out["values"] = list(self.values)
        if self.flag is not None:
            out["flag"] = self.flag
        if self.tolerance is not None:
            out["tolerance"] = str(self.tolerance)
        return out


@dataclass(frozen=True)
class Erratum:
    """A claim the catalog expects to be refuted, and why.

    ``refutes`` names the stated figures expected not to hold; empty means the
    claim as a whole is expected to fail. A listed figure that starts to hold
    fails the test strictly, so the catalog is corrected rather than drifting.
    """

    explanation: str
    refutes: tuple[str, ...] = ()
    # Where each number the explanation computes with comes from, when the claim does not
    # state it: (the number as printed in the explanation, its source). A source is
    # "lab:<DOC>:<path>" (the lab's results.json for that document), "recorded:<DOC>:<path>"
    # (a transcribed value, fixtures/recorded/<DOC>.json), "ggml:<TYPE>:<weights|bytes>" (a
    # ggml block type's size, as the gguf library gives it) or "figure:<CLAIM>:<name>".
    quotes: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Claim:
    id: str
    document: str
    section: str
    statement: str
    tiers: tuple[str, ...]
    testable: bool = True
    untestable_reason: str | None = None
    profile: str | None = None
    stated: tuple[StatedFigure, ...] = ()
    erratum: Erratum | None = None
    note: str | None = None

    def figure(self, name: str) -> StatedFigure:
        for fig in self.stated:
            if fig.name == name:
                return fig
        known = ", ".join(repr(f.name) for f in self.stated) or "none"
        raise KeyError(f"claim {self.id} states no figure {name!r} (it states: {known})")

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "document": self.document,
            "section": self.section,
            "statement": self.statement,
            "tiers": list(self.tiers),
            "testable": self.testable,
            "untestable_reason": self.untestable_reason,
            "profile": self.profile,
            "stated": [f.to_json() for f in self.stated],
            "erratum": (
                {"explanation": self.erratum.explanation, "refutes": list(self.erratum.refutes)}
                if self.erratum
                else None
            ),
            "note": self.note,
        }


@dataclass(frozen=True)
class Document:
    id: str
    title: str
    seeds: tuple[str, ...]
    sections: tuple[str, ...]
    published: str | None = None
    claims: tuple[Claim, ...] = field(default=())
    # Paths under fixtures/lab (files or folders) of the bundled lab copy this
    # document relies on: a changed byte there fails this document's claims.
    lab: tuple[str, ...] = ()
    # The document's own text when it is bundled lab files rather than a seed
    # (paths under fixtures/lab, each inside one of ``lab``).
    text: tuple[str, ...] = ()
    # Paths under fixtures/hub (the pinned Hub snapshots) this document relies on.
    hub: tuple[str, ...] = ()

    def to_json(self) -> DocumentRecord:
        return {
            "id": self.id,
            "title": self.title,
            "published": self.published,
            "seeds": list(self.seeds),
            "sections": list(self.sections),
        }
