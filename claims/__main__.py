"""``python -m claims``: see :mod:`claims.cli`."""

from claims.cli import main

raise SystemExit(main())
