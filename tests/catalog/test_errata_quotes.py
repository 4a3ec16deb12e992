"""An erratum's quotes (records.Erratum.quotes) are what their sources hold.

An explanation computes with numbers the claim does not state ("7.44 / 1.576 = 4.72"):
the wording check (claims.catalog.wording) requires each to be quoted with its source,
and this test reads every source and compares it with the number as the explanation
prints it, at that number's precision. A slip below the result's rounding ("1.577")
is then caught twice: the wording check finds an unquoted number, and a quote edited
to match finds its source disagreeing here.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from gguf.constants import GGML_QUANT_SIZES, GGMLQuantizationType

from claims.catalog import load_catalog
from claims.catalog.loader import CatalogError, load_document
from claims.figures import convert, parse_literal
from claims.testing import lab, recordings
from claims.text.transcribed import leaves, recorded_data

CATALOG = load_catalog()
QUOTES = [(claim.id, number, source) for claim in CATALOG if claim.erratum is not None
          for number, source in claim.erratum.quotes]


def _value(source: str) -> Decimal:
    """The number a quote's source holds, in the unit the explanation computes with."""
    kind, document, path = source.split(":", 2)
    if kind == "figure":
        fig = CATALOG.get(document).figure(path)
        assert fig.text is not None, source
        value = Decimal(str(parse_literal(fig.text).value))
        # A count stated in billions ("8" B params) is computed with as a plain count (8e9).
        return Decimal(str(convert(float(value), fig.unit, "params"))) if (
            fig.unit == "B params") else value
    if kind == "ggml":
        weights, nbytes = GGML_QUANT_SIZES[GGMLQuantizationType[document]]
        return Decimal({"weights": weights, "bytes": nbytes}[path])
    # recorded_data takes the checkout (it reads <root>/fixtures/recorded/<DOC>.json).
    data: Any = lab.results(document) if kind == "lab" else recorded_data(
        recordings.fixtures_dir().parent, document)
    found = dict(leaves(data))
    assert path in found, f"{source}: no such value (one of {sorted(found)[:8]}...)"
    return Decimal(str(found[path]))


def test_the_bundled_catalog_quotes_its_explanations_sources() -> None:
    # Four errata compute with numbers their claims do not state: all of them are quoted.
    assert {claim for claim, _, _ in QUOTES} >= {
        "W1-COLD-VS-CPU-RUN", "W5-16BIT-TIME", "MC-QUANT-BITS", "MC-KV-BASE-WEIGHTS"}


def test_every_kind_of_source_resolves() -> None:
    # The catalog quotes no transcribed value today: a recorded source must still name
    # the value the fixtures hold (W1's CPU time is recorded as a reference to its figure).
    assert _value("recorded:W1:benchmark.cpu_ms") == _value(
        "figure:W1-RECORDED-ARITH:CPU time") == Decimal("172.57")
    assert _value("lab:W5:matmul.precisions[2].median_ms") == Decimal("1.576")
    assert (_value("ggml:Q5_K:weights"), _value("ggml:Q5_K:bytes")) == (256, 176)
    assert _value("figure:MC-KV-BASE-WEIGHTS:parameters") == Decimal("8e9")


@pytest.mark.parametrize(("claim", "number", "source"), QUOTES,
                         ids=[f"{c}:{n}" for c, n, _ in QUOTES])
def test_each_quoted_number_is_what_its_source_holds(claim: str, number: str,
                                                     source: str) -> None:
    value = _value(source)
    # The number as printed stands for its rounding interval (claims.figures).
    assert parse_literal(number).interval().contains(float(value)), (
        f"{claim}: the explanation prints {number}, {source} holds {value}")


def _document(quotes: str) -> str:
    return ('[document]\nid = "T9"\ntitle = "t"\nseeds = []\nsections = ["S"]\n\n'
            '[[claim]]\nid = "T9-Q"\nsection = "S"\nstatement = "It is 3.5 x."\n'
            'tiers = ["offline"]\nstated = [{ name = "r", value = "3.5", unit = "x" }]\n'
            '[claim.erratum]\nexplanation = "64 / 18 = 3.56, not 3.5."\nrefutes = ["r"]\n'
            f'[claim.erratum.quotes]\n{quotes}\n')


@pytest.mark.parametrize(("quotes", "problem"), [
    ('"65" = "ggml:F16:bytes"', "quote '65': the explanation does not print that number"),
    ('"6" = "ggml:F16:bytes"', "quote '6': the explanation does not print that number"),
    ('"64" = "web:F16:bytes"', "quote '64': unknown source kind 'web'"),
    ('"64" = "ggml"', "quote '64': the source must be a string"),
    ('"64" = 64', "quote '64': the source must be a string"),
])
def test_a_malformed_quote_is_a_catalog_error_naming_the_claim(quotes: str,
                                                                problem: str) -> None:
    with pytest.raises(CatalogError) as caught:
        load_document("T9.toml", text=_document(quotes))
    assert "T9-Q" in str(caught.value) and problem in str(caught.value)
