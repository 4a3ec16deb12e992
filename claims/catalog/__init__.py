"""The claim catalog: one TOML data file per source document, and its loader.

Data files: ``<ID>.toml``, one per document (From API to GPU week by week, the
Ollama masterclass): the one list of the documents, everything else that names them
derives from it. Each states the document's claims in the project's own words, cites
the section, records the stated figures with the precision they were printed with,
and marks known errata; its ``[document]`` table says where its words are (seeds, or
bundled lab ``text``) and which bundled files it relies on (``lab``, ``hub``).

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
