"""One sentence, one truth: the catalog's words agree with the structure it is judged by.

A claim is shown to a reader as its ``statement`` and judged by its stated figures
(their value and ``form``); a known erratum is shown as its ``explanation``. Nothing
in the loader ties the words to the structure, so a statement could say "at most"
while its figure is judged "at least", or an explanation could quote a number the
catalog does not state. This module checks, per claim, what can be checked from the
words themselves:

* :func:`statement_problems`: the comparison words of a statement (at least, at most,
  more than, less than, above, below, over/under a number, up to, faster, slower,
  larger, smaller, twice, half...) agree with the forms and names of the figures it
  is judged by: a number the statement qualifies ("over 4 GB", "up to 50%", "8.0+")
  is judged in that form, a bound figure is printed with its bound word, and a
  relation a figure's name or bound form carries ("peak above the payload", "≥ 5 x"
  for "far slower") is said, not contradicted, by the statement;
* :func:`erratum_problems`: the arithmetic an explanation shows ("64 / 18 = 3.56")
  is right at its printed precision, and a number it says the document printed
  wrongly ("not 3.5x", "not 120-140") is one of the claim's stated figures;
* :func:`printed_form`: the form the words printed right before a number give it
  ("about", "up to", "over", "$>", "~"), shared with the anchors' check
  (:func:`claims.text.anchors.printed_disagreement`), which holds every figure's
  form to the words the document prints around it.

A figure whose ``reading`` says why it is read otherwise is the catalog's argument
against the words, so the number-by-number rules leave it alone; the relation words
still have to agree. :func:`catalog_problems` runs both checks over a catalog, and
is called at the start of every run (``claims.plugin.session.load_session``) and by
``tests/catalog/test_wording.py``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Literal

from claims.catalog.records import Claim, StatedFigure
from claims.figures import unit_spellings, units_printed_as

__all__ = [
    "ABOUT",
    "AT_LEAST",
    "AT_MOST",
    "RELATIONS",
    "Arithmetic",
    "PrintedForm",
    "arithmetic",
    "catalog_problems",
    "erratum_numbers",
    "erratum_problems",
    "form_disagreement",
    "numbers_in",
    "printed_form",
    "relation_words",
    "statement_problems",
]

PrintedForm = Literal["at-least", "at-most", "about"]

# Words printed right before a number that make it a bound or an approximation. Longer
# phrases first, so "no more than" is not read as "more than".
AT_LEAST: tuple[str, ...] = (
    "no less than", "at least", "more than", "greater than", "higher than", "exceeds",
    "exceeding", "above", "over", ">=", "≥", ">",
)
AT_MOST: tuple[str, ...] = (
    "no more than", "at most", "up to", "less than", "fewer than", "lower than", "under",
    "below", "<=", "≤", "<",
)
ABOUT: tuple[str, ...] = (
    "approximately", "roughly", "around", "about", "nearly", "almost", r"\approx", "≈", "~",
)
# ... and right after it ("8.0+", "8B+ models", "4 GB or more").
_AFTER_LEAST = re.compile(r"^(?:\+(?!\s*\d)|\s*or more\b|\s*or above\b|\s*or higher\b)")
_AFTER_MOST = re.compile(r"^\s*(?:or less\b|or fewer\b|or below\b|or lower\b)")

# Markup the documents print between a qualifier and its number: LaTeX ("$>4096",
# "$\approx 1,008"), a parenthesis, an article after "up to" ("up to a 50%").
_LEAD = re.compile(r"(?:[\s$({]|\\text\{)+$")
_ARTICLE = re.compile(r"\s(?:a|an)\s*$")

# A number as printed: digits with thousands commas, a decimal part, an exponent.
_NUMBER = re.compile(r"(?<![\w.])-?\d[\d,]*(?:\.\d+)?(?:[eE][-+]?\d+)?(?![\d])")

# Relation words on three axes, each with the words of its opposite: a statement that
# says one while the structure says the other contradicts itself. "Higher" and "lower"
# are "above" and "below" ("a peak above the payload", "lower at 16 bits"). "Over" and
# "under" count only before a number (elsewhere they are "over SSH", "under /usr/local").
RELATIONS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "bound": (
        ("at least", "more than", "greater than", "above", "exceeds", "exceed", "beyond",
         "over", "larger", "bigger", "higher", "greater"),
        ("at most", "less than", "fewer than", "below", "up to", "under", "within",
         "smaller", "lower"),
    ),
    "speed": (("faster", "beating", "beats", "speedup", "as fast", "speeds", "speed up",
               "speeds up"), ("slower",)),
    "factor": (("twice", "double", "doubling"), ("half", "halves", "halving")),
}
_NUMBER_ONLY = {"over", "under"}  # a relation only when a number follows


def _phrase_at_end(context: str, phrases: Iterable[str]) -> str | None:
    """The phrase ``context`` ends with (whole words), or None."""
    low = context.lower()
    for phrase in phrases:
        if not low.endswith(phrase):
            continue
        start = len(low) - len(phrase)
        prev = low[start - 1] if start > 0 else " "
        if phrase[0].isalpha() and (prev.isalnum() or prev in "_-"):
            continue
        if not phrase[0].isalpha() and not (prev.isspace() or prev in "$(:="):
            continue  # "<|im_end|>", "->": a token's bracket, not a comparison
        if phrase == "up to" and re.search(r"\b(?:add|adds|added|adding|sum|sums)\s+$",
                                           low[:start]):
            continue  # "add up to 3,085,938,688": a sum, not a bound
        return phrase
    return None


def printed_form(before: str, after: str = "") -> PrintedForm | None:
    """The form the words around a printed number give it: "at-least" ("over 4 GB",
    "$>4096", "8.0+"), "at-most" ("up to a 50%", "under 5 ms"), "about" ("~16.0",
    "$\\approx 1,008", "about 6"), or None (a plain number, read as printed).

    "over" and "under" after a number and its noun ("89 tokens over 3.82 s", "8 phases
    over 32 weeks") divide or span, they do not bound, so they count only where no
    number stands just before them."""
    if _AFTER_LEAST.match(after):
        return "at-least"
    if _AFTER_MOST.match(after):
        return "at-most"
    context = _LEAD.sub("", " " + before)
    for phrases, form in ((AT_MOST, "at-most"), (AT_LEAST, "at-least"), (ABOUT, "about")):
        found = _phrase_at_end(context, phrases)
        if found is None and form == "at-most" and _ARTICLE.search(context):
            # "up to a 50% reduction": the article belongs to the number.
            found = _phrase_at_end(_ARTICLE.sub("", context), ("up to",))
        if found is None:
            continue
        if found in _NUMBER_ONLY and _divides(context[: len(context) - len(found)]):
            return None  # "89 tokens over 3.82 s": a division or a span, not a bound
        return form  # type: ignore[return-value]
    return None


# What a number is counted in before an "over" that divides or spans ("89 tokens over
# 3.82 s", "1,008 GB/s over a 4.7 GB model", "8 phases over 32 weeks", a split of "16
# query heads over 2 key/value heads").
_COUNTED = re.compile(r"(?:^|\s)-?\d[\d,.]*\s*(?:tokens|GB/s|GB|phases|weeks|steps|runs|"
                      r"layers|bytes|B|(?:query\s+)?heads)?\s*$", re.IGNORECASE)


def _divides(before: str) -> bool:
    """Whether an "over"/"under" after ``before`` follows a counted number, so that it
    divides or spans rather than bounds."""
    return _COUNTED.search(before) is not None


def numbers_in(text: str) -> Iterator[re.Match[str]]:
    """Every number ``text`` prints (digits, thousands commas, decimals)."""
    yield from _NUMBER.finditer(text)


def _value(literal: str) -> Decimal | None:
    try:
        return Decimal(literal.replace(",", ""))
    except InvalidOperation:
        return None


def _same(printed: str, stated: str) -> bool:
    """The printed number is the stated one at the stated precision ("56.0" is not "56",
    but a whole count printed with commas is the same count)."""
    a, b = _value(printed), _value(stated)
    if a is None or b is None or a != b:
        return False
    return a.as_tuple().exponent == b.as_tuple().exponent or "." not in stated


def _literals(fig: StatedFigure) -> tuple[str, ...]:
    """The number literals a numeric figure states (a range: both ends)."""
    if fig.kind == "number" and fig.text is not None:
        return (fig.text,)
    if fig.kind == "range" and fig.low is not None and fig.high is not None:
        return (fig.low, fig.high)
    return ()


def form_disagreement(fig: StatedFigure, before: str, after: str = "") -> str | None:
    """Why a numeric figure's form does not fit the words printed around its number
    (None: it does). ``before``/``after``: the text printed right before and after it.

    A bound word makes it that bound (or a range, whose ends bound it); "about" or no
    word makes it a value (equal, range or ratio), never a bound on itself. A figure
    with a ``reading`` (the catalog's argument for reading otherwise: a threshold's own
    value, a vague word's bar) is not held to the words: its anchor pins the reading."""
    if fig.kind not in ("number", "range") or fig.reading is not None:
        return None
    printed = printed_form(before, after)
    if printed in ("at-least", "at-most"):
        if fig.form == printed or fig.form == "range":
            return None
        word = printed.replace("-", " ")
        return (f"printed as {word} ({_tail(before)!r}), judged {fig.form}: make it "
                f"{printed}, or give the figure a reading that says why")
    if fig.form in ("at-least", "at-most"):
        how = f"printed {'about' if printed == 'about' else 'as a plain number'}"
        return (f"{how} ({_tail(before)!r}), judged {fig.form}: a bound needs the document's "
                "bound word, or a reading that says why the figure is read so")
    return None


def _tail(text: str, n: int = 24) -> str:
    text = " ".join(text.split())
    return text[-n:]


# --- statements -------------------------------------------------------------------
def relation_words(text: str) -> dict[str, set[int]]:
    """The relation words ``text`` says, per axis: {axis: {0 (the first list), 1}}."""
    out: dict[str, set[int]] = {}
    low = text.lower()
    for axis, sides in RELATIONS.items():
        for side, words in enumerate(sides):
            for word in words:
                if word not in low:  # most words are absent: no pattern to build or run
                    continue
                for m in re.finditer(rf"(?<![\w-]){re.escape(word)}(?![\w-])", low):
                    if word in _NUMBER_ONLY and not re.match(r"\s*[$(~≈]*\d", low[m.end():]):
                        continue
                    if word in _NUMBER_ONLY and printed_form(text[: m.end()],
                                                             "") != ("at-least" if side == 0
                                                                     else "at-most"):
                        continue
                    out.setdefault(axis, set()).add(side)
    return out


def _named_relations(claim: Claim) -> dict[str, set[int]]:
    """The relations the claim's figures carry in their names: a bool "peak above the
    payload", a bar "16-bit faster than FP32", "FP32 over FP16 bytes" (no number after:
    a ratio, not a bound). The statement must say each of them."""
    out: dict[str, set[int]] = {}
    for fig in claim.stated:
        for axis, sides in relation_words(fig.name).items():
            out.setdefault(axis, set()).update(sides)
    return out


def _factors(claim: Claim) -> set[int]:
    """The factors the claim's figures state: 2 (0: twice) and 0.5 (1: half), as a count
    ("sent twice": 2 runs), a factor (2 x) or a size (half a byte: 0.5 B).

    A figure whose number the statement prints in digits ("FP16 2 bytes") is said by its
    digits, not by "twice" or "half": only the others carry a factor word ("INT4 half a
    byte" beside "FP16 2 bytes" is the 0.5, never the 2)."""
    out: set[int] = set()
    for fig in claim.stated:
        if fig.kind == "number" and fig.text is not None and fig.form == "equal":
            value = _value(fig.text)
            side = 0 if value == 2 else 1 if value == Decimal("0.5") else None
            if side is not None and not _said_in_digits(claim.statement, fig):
                out.add(side)
    return out


def _said_in_digits(statement: str, fig: StatedFigure) -> bool:
    """Whether the statement prints the figure's number in digits, in the figure's unit
    where it has one ("2 bytes" is FP16's 2 B, not a ratio of 2 x)."""
    for _, after in _occurrences(statement, fig):
        if fig.unit is None:
            return True
        rest = after.lstrip()
        for spelling in unit_spellings():
            if re.match(rf"{re.escape(spelling)}(?![\w])", rest) and fig.unit in (
                    units_printed_as(spelling)):
                return True
    return False


def _bound_forms(claim: Claim) -> set[int]:
    """The bound sides the claim's figures are judged in (0: at least, 1: at most)."""
    return {0 if f.form == "at-least" else 1 for f in claim.stated
            if f.form in ("at-least", "at-most")}


def _compared_figures(claim: Claim) -> list[str]:
    """Where a comparison word stands between two figures the statement prints in one
    unit ("about 130 GiB: more than the DGX Spark's 121 GiB"): the figures' values must
    stand in that relation (130 > 121), or the sentence says the opposite of its figures."""
    text = claim.statement
    numbers = [(m, fig) for m in numbers_in(text) for fig in claim.stated
               if fig.kind == "number" and fig.text is not None and _same(m.group(), fig.text)]
    problems = []
    for side, words in enumerate(RELATIONS["bound"]):
        for word in words:
            for w in re.finditer(rf"(?<![\w-]){re.escape(word)}(?![\w-])", text.lower()):
                left = [(m, f) for m, f in numbers if m.end() <= w.start()
                        and not re.search(r"[.;]\s", text[m.end(): w.start()])]
                right = [(m, f) for m, f in numbers if m.start() >= w.end()
                         and not re.search(r"[.;]\s", text[w.end(): m.start()])]
                if not left or not right:
                    continue
                (_, a), (_, b) = left[-1], right[0]
                if a.unit is None or a.unit != b.unit or a is b:
                    continue
                x, y = _value(str(a.text)), _value(str(b.text))
                if x is None or y is None or (x > y if side == 0 else x < y):
                    continue
                problems.append(f"the statement says {a.name!r} ({a.text} {a.unit}) is {word} "
                                f"{b.name!r} ({b.text} {b.unit}); the figures say otherwise")
    return problems


def _mentions(text: str, bound: str) -> bool:
    """Whether ``text`` says a bound of that direction (a word or a symbol)."""
    side = 0 if bound == "at-least" else 1
    phrases = (AT_LEAST if side == 0 else AT_MOST) + RELATIONS["bound"][side]
    low = text.lower()
    return any(re.search(rf"(?<![\w-]){re.escape(p)}(?![\w-])", low) if p[0].isalpha()
               else p in low for p in phrases)


def _occurrences(statement: str, fig: StatedFigure) -> list[tuple[str, str]]:
    """Where the statement prints the figure's number: (text before, text after) each."""
    out = []
    for literal in _literals(fig)[:1]:
        for m in numbers_in(statement):
            if _same(m.group(), literal):
                out.append((statement[: m.start()], statement[m.end():]))
    return out


def _words(axis: str, side: int) -> str:
    return "/".join(RELATIONS[axis][side][:3])


def statement_problems(claim: Claim) -> list[str]:
    """Where the claim's statement and the figures it is judged by disagree; each problem
    names the figure or the words. Three rules:

    * a relation a figure's name carries is said by the statement (its side, on its
      axis: "above" or "higher" for "peak above the payload");
    * a statement that says only one side of the bound axis ("at least", "above"...)
      while every bound figure is judged the other way contradicts them;
    * a number of a figure the statement prints with a bound word ("over 4 GB") is
      judged in that form; a bound figure whose number it prints, with its word.
    """
    problems: list[str] = []
    said = relation_words(claim.statement)
    for axis, sides in _named_relations(claim).items():
        for side in sorted(sides):
            if side not in said.get(axis, set()):
                instead = (f"{_words(axis, 1 - side)} instead" if said.get(axis)
                           else "neither")
                problems.append(f"a figure's name says {_words(axis, side)} ({axis}), the "
                                f"statement says {instead}")
    named = _named_relations(claim)
    for axis, sides in said.items():
        # Both sides said where the figures' names carry one: the other is a slip
        # ("runs much faster ... much slower is read as ...").
        if len(sides) == 2 and len(named.get(axis, set())) == 1:
            (side,) = named[axis]
            problems.append(f"the statement says {_words(axis, 1 - side)} as well as "
                            f"{_words(axis, side)}, its figures' names only {_words(axis, side)}")
    for axis, carried in (("bound", _bound_forms(claim)), ("factor", _factors(claim))):
        words = said.get(axis, set())
        if len(carried) == 1 and len(words) == 1 and carried != words:
            (side,) = words
            what = "bound figures are judged" if axis == "bound" else "figures state"
            problems.append(f"the statement says {_words(axis, side)}, its {what} "
                            f"{_words(axis, 1 - side)}")
        elif axis == "factor" and len(carried) == 1 and len(words) == 2:
            # A factor word the figures do not state, beside one they do ("moves half the
            # bytes ... roughly doubles the speed" with only a 2 x figure): a slip. The bound
            # axis is left alone: "room for larger models" and "stays below" are two things.
            (side,) = carried
            problems.append(f"the statement says {_words(axis, 1 - side)} as well as "
                            f"{_words(axis, side)}, its figures state only {_words(axis, side)}")
    problems += _compared_figures(claim)
    for fig in claim.stated:
        if fig.kind not in ("number", "range"):
            continue
        places = _occurrences(claim.statement, fig)
        if not places:
            continue
        printed = {printed_form(before, after) for before, after in places}
        if fig.reading is not None:
            # The catalog's own reading ("read as at least 1.5 times"): its words must
            # not turn the bound around.
            other: str = {"at-least": "at-most", "at-most": "at-least"}.get(fig.form, "")
            if other and other in printed and fig.form not in printed:
                shown = other.replace("-", " ")
                problems.append(f"figure {fig.name!r}: printed as {shown}, judged {fig.form}")
            for bound in sorted(p for p in printed if p in ("at-least", "at-most")):
                # A figure read as a bound's own value ("alerts below 20": the threshold
                # is 20): its reading quotes the bound it is the value of.
                if fig.form not in ("at-least", "at-most") and not _mentions(fig.reading,
                                                                              bound):
                    problems.append(
                        f"figure {fig.name!r}: printed as {bound.replace('-', ' ')}, judged "
                        f"{fig.form}, and its reading quotes no {bound.replace('-', ' ')} "
                        "it is the value of")
            continue
        whys = [form_disagreement(fig, before, after) for before, after in places]
        if fig.form in ("at-least", "at-most"):
            # A bound must be printed as one at least once where the statement prints it.
            if all(w is not None for w in whys):
                problems.append(f"figure {fig.name!r}: {whys[0]}")
        else:
            bad = next((w for w in whys if w is not None), None)
            if bad is not None and not _other_figure_takes(claim, fig, places):
                problems.append(f"figure {fig.name!r}: {bad}")
    return problems


def _other_figure_takes(claim: Claim, fig: StatedFigure, places: list[tuple[str, str]]) -> bool:
    """Whether another figure of the claim with the same number is the bound the words
    print (two figures, one value: "2" bytes and "at least 2" replies)."""
    mine = _literals(fig)[:1]
    for other in claim.stated:
        theirs = _literals(other)[:1]
        if other is fig or not mine or not theirs or not _same(theirs[0], mine[0]):
            continue
        if all(form_disagreement(other, b, a) is None for b, a in places):
            return True
    return False


# --- errata -----------------------------------------------------------------------
@dataclass(frozen=True)
class Arithmetic:
    """One computation an explanation prints: "64 / 18 = 3.56"."""

    text: str
    operands: tuple[str, ...]
    operators: tuple[str, ...]
    result: str
    start: int  # where it starts in the explanation


_OPERATOR = r"\s*([×x*/÷+−-])\s*"
_UNIT_WORD = r"(?:\s*(?:[A-Za-z%]{1,3}\b|bytes?\b)?)"
_ARITH = re.compile(
    rf"(?<![\w.,])(?P<first>\d[\d,]*(?:\.\d+)?(?:e\d+)?){_UNIT_WORD}"
    rf"(?P<rest>(?:\s*[×x*/÷+−-]\s*\d[\d,]*(?:\.\d+)?(?:e\d+)?{_UNIT_WORD})+)"
    r"\s*=\s*(?P<result>\d[\d,]*(?:\.\d+)?)"
)
_TERM = re.compile(rf"{_OPERATOR}(\d[\d,]*(?:\.\d+)?(?:e\d+)?)")


def arithmetic(explanation: str) -> list[Arithmetic]:
    """The computations an explanation prints, "a op b [op c] = r" (units after a number
    are skipped: "8e9 × 2 B = 16.0 GB", "34/32 B = 8.5")."""
    out = []
    for m in _ARITH.finditer(explanation):
        terms = _TERM.findall(m.group("rest"))
        out.append(Arithmetic(
            text=m.group(0),
            operands=(m.group("first"), *(t[1] for t in terms)),
            operators=tuple(t[0] for t in terms),
            result=m.group("result"),
            start=m.start(),
        ))
    return out


def _computed(a: Arithmetic) -> Decimal | None:
    values = [_value(v) for v in a.operands]
    if any(v is None for v in values):
        return None
    total = values[0]
    assert total is not None
    for op, v in zip(a.operators, values[1:], strict=True):
        assert v is not None
        if op in "×x*":
            total *= v
        elif op in "/÷":
            if v == 0:
                return None
            total /= v
        elif op == "+":
            total += v
        else:
            total -= v
    return total


def _agrees_at_precision(result: str, exact: Decimal) -> bool:
    """Whether ``exact`` printed at ``result``'s precision is ``result`` (rounded, not cut;
    a whole result with a unit of a thousand steps may be scaled: "8e9 x 2 B = 16.0 GB")."""
    printed = _value(result)
    if printed is None:
        return False
    exponent = printed.as_tuple().exponent
    assert isinstance(exponent, int)  # a finite number: _value parsed digits
    half = Decimal(1).scaleb(exponent) / 2
    # A result in another unit than its operands: a thousand step ("8e9 x 2 B = 16.0 GB")
    # or bytes as bits ("34/32 B = 8.5" bits per weight).
    scales = (Decimal(1), Decimal(10) ** -3, Decimal(10) ** -6, Decimal(10) ** -9, Decimal(8))
    return any(abs(exact * scale - printed) <= half for scale in scales)


def _not_quoted(explanation: str) -> Iterator[tuple[re.Match[str], str]]:
    """The numbers an explanation says the document printed wrongly: "not 3.5x",
    "not 120-140", "(2.6, not 2.5)"; each with the words before it."""
    for m in re.finditer(r"\bnot\s+(?:the\s+)?([$(~]*)(\d[\d,]*(?:\.\d+)?)(?:\s*[-–]\s*(\d[\d,]*"
                         r"(?:\.\d+)?))?", explanation):
        if re.match(r"\s*(?:\w+\s*)?[×x*/÷]\s*\d", explanation[m.end():]):
            continue  # "not 4.5 bits x 8e9": a computation, not the figure printed
        yield m, explanation[: m.start()]


def erratum_numbers(claim: Claim) -> list[tuple[int, int, str]]:
    """The numbers of the claim's explanation this check reads, as (start, end, text):
    every number of a printed computation, and every number quoted as the document's
    wrong figure ("not 3.5")."""
    if claim.erratum is None:
        return []
    text = claim.erratum.explanation
    spans: dict[tuple[int, int], str] = {}
    for a in arithmetic(text):
        for m in numbers_in(a.text):
            spans[(a.start + m.start(), a.start + m.end())] = m.group()
    for m, _ in _not_quoted(text):
        for group in (2, 3):
            if m.group(group):
                spans[(m.start(group), m.end(group))] = m.group(group)
    return sorted((s, e, t) for (s, e), t in spans.items())


def erratum_problems(claim: Claim) -> list[str]:
    """Where the claim's erratum explanation disagrees with itself or with the figures it
    explains (see the module docstring)."""
    if claim.erratum is None:
        return []
    text = claim.erratum.explanation
    problems = []
    computations = arithmetic(text)
    for a in computations:
        exact = _computed(a)
        if exact is None or not _agrees_at_precision(a.result, exact):
            shown = "undefined" if exact is None else f"{exact.normalize():f}"
            problems.append(f"the explanation computes {a.text.strip()!r}, but that is {shown}")
    stated = [lit for fig in claim.stated for lit in _literals(fig)]
    stated += [v for fig in claim.stated if fig.kind == "list" for v in fig.values]
    # Every number a computation starts from is the claim's own figure, another
    # computation's result, or quoted with its source (records.Erratum.quotes), which
    # tests/catalog/test_errata_quotes.py reads: an operand can slip below the result's
    # printed precision ("7.44 / 1.577 = 4.72") and only its source tells.
    quoted = {number for number, _ in claim.erratum.quotes}
    results = {a.result for a in computations}
    seen: set[str] = set()
    for a in computations:
        for operand in a.operands:
            if operand in seen or operand in quoted or operand in results or any(
                    _same(operand, s) for s in stated):
                continue
            seen.add(operand)
            problems.append(f"the explanation computes with {operand}, which the claim does "
                            "not state and its quotes give no source for")
    for m, _ in _not_quoted(text):
        for group in (2, 3):
            literal = m.group(group)
            if literal and not any(_same(literal, s) for s in stated):
                problems.append(f"the explanation says the document's figure is not "
                                f"{literal}, but the claim states no figure {literal} "
                                f"(it states: {', '.join(stated) or 'none'})")
    return problems


def catalog_problems(claims: Iterable[Claim]) -> list[str]:
    """Every wording problem of every claim, each naming its claim."""
    out = []
    for claim in claims:
        out += [f"{claim.id}: statement: {p}" for p in statement_problems(claim)]
        out += [f"{claim.id}: erratum: {p}" for p in erratum_problems(claim)]
    return out
