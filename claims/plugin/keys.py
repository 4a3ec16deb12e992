"""Stash keys and constants the plugin's modules share.

The session's settings, catalog, tiers and profile live on ``config.stash``
(:mod:`claims.plugin.session`), a test's check, conclusion and marker problem on
``item.stash``; the evidence writer's key is with the writer
(:data:`claims.plugin.writer.EVIDENCE_WRITER`).
"""

from __future__ import annotations

import pytest

from claims.catalog import Catalog
from claims.check import Check, Conclusion
from claims.plugin.options import Settings
from claims.plugin.tiers import Tiers
from claims.profiles import ProfileChoice

SETTINGS = pytest.StashKey[Settings]()
CATALOG = pytest.StashKey[Catalog]()
TIERS_KEY = pytest.StashKey[Tiers]()
PROFILE = pytest.StashKey[str]()
# How the profile was chosen (claims.profiles.ProfileChoice) and the fakes in use, if any.
PROFILE_CHOICE = pytest.StashKey[ProfileChoice]()
SIMULATED = pytest.StashKey[list[str]]()
CHECK = pytest.StashKey[Check]()
CONCLUSION = pytest.StashKey[Conclusion]()
PROBLEM = pytest.StashKey[str]()

# The user_properties key a check record travels under (worker -> controller under xdist).
RECORD_KEY = "claims.check"
