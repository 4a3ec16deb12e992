"""Claims suite: the lab write-ups' checkable claims as marked pytest tests.

Layout (top-down import graph): ``claims.plugin`` (pytest hooks) and
``claims.evidence`` build on ``claims.check`` and ``claims.catalog``; the tier
table ``claims.tiers`` is read by the plugin, the catalog and the report alike;
probes in ``claims.probes`` are plain functions that never import pytest.
"""

__version__ = "0.1.0"
