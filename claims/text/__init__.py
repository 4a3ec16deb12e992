"""The documents, accounted for: every figure they print judged, recorded or excluded.

``python -m claims coverage`` (see :mod:`claims.cli`) measures it as coverage.py measures
code: :mod:`.printed` says what a printed figure is, :mod:`.texts` reads each document's
text, :mod:`.ledger` reads the figures no claim judges (with the reason), and
:mod:`.measure` gives each figure its status. Not to be confused with
:mod:`claims.claim_tests`, which is which tests cover which claims (``claims list --tests``).
The ledger's format: docs/accounting.md.
"""
