"""The documents' text: where each figure is printed, what ties it to the catalog, and the
count of every printed figure.

Where the documents print their figures, and what ties each to the catalog:

* :mod:`.anchors`: every stated figure of the catalog tied to the text that prints it
  (``claims/catalog/<DOC>.anchors.toml``);
* :mod:`.transcribed` and :mod:`.typos`: the transcribed values (``fixtures/recorded/``)
  anchored where the documents print them, and the slips a transcriber makes;
* :mod:`.references`: a transcribed fixture's ``{"$figure": ...}``, naming a catalog
  figure instead of copying it; :mod:`.digests`, the SHA-256 of the documents and of the
  figures a fixture names;
* :mod:`.reads`: which transcribed values the claim tests read (what "recorded" means in
  the count).

The count (``python -m claims coverage``, see :mod:`claims.cli`) measures the documents as
coverage.py measures code: :mod:`.printed` says what a printed figure is, :mod:`.sources`
reads each document's text (its seeds and bundled files), :mod:`.ledger` reads the figures
no claim judges (with the reason), :mod:`.credit` which figures an anchor's claim is
credited with, and :mod:`.measure` gives each figure its status; :mod:`.copies`,
:mod:`.repeats` and :mod:`.programs` find what the documents print twice or copy from the
lab; :mod:`.text_report` and :mod:`.html` show the count on the terminal and as annotated
pages. Not to be confused with :mod:`claims.claim_tests`, which is which tests cover which
claims (``claims list --tests``). The ledger's format: docs/accounting.md.

It stands below the inputs checked on every run (:mod:`claims.inputs`, which read it) and
above the catalog it reads; it imports nothing of :mod:`claims.inputs`.
"""
