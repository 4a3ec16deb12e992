"""The exit status of ``python -m claims`` and its commands, in one place.

0: success; 1: a verification failed (a digest or size mismatch, a regression
with ``--fail-on-regression``, machines disagreeing with
``--fail-on-disagreement``, a figure the audit found no check sensitive to);
2: unreadable or malformed input, or bad usage. Kept below the CLI so that the
commands' own modules (``claims.report.compare``) need not import it.
"""

from __future__ import annotations

EXIT_OK = 0
EXIT_VERIFY = 1
EXIT_INPUT = 2
