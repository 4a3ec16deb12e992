"""The claim catalog: one TOML data file per source document, and its loader.

Data files: ``W1.toml`` … ``W4.toml`` (From API to GPU, weeks 1–4) and
``MC.toml`` (the Ollama masterclass). Each states the document's claims in the
project's own words, cites the section, records the stated figures with the
precision they were printed with, and marks known errata.

The record types are in :mod:`claims.catalog.records`, the strict loader in
:mod:`claims.catalog.loader`; a claim's tiers are names from the tier table
(:mod:`claims.tiers`), its profile one of :data:`claims.profiles.PROFILES`.
"""

from claims.catalog.loader import Catalog, CatalogError, load_catalog, load_document
from claims.catalog.records import Claim, Document, Erratum, StatedFigure

__all__ = [
    "Catalog",
    "CatalogError",
    "Claim",
    "Document",
    "Erratum",
    "StatedFigure",
    "load_catalog",
    "load_document",
]
