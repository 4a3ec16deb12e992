"""Stash keys and constants the plugin's modules share.

The session's settings, catalog, tiers and profile live on ``config.stash``
(:mod:`claims.plugin.session`), a test's check, conclusion, ending and marker problem on
``item.stash``. The controller's evidence writer keeps its own key
(:data:`claims.plugin.writer.EVIDENCE_WRITER`): this module is the bottom of the
plugin and imports none of it but its settings and tiers, for types. The types are
imported for the type checker only: the entry point imports this module in every
pytest run of the environment, so it must cost nothing where the suite is not in use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from claims.catalog import Catalog
    from claims.check import Check, Conclusion
    from claims.plugin.options import Settings
    from claims.plugin.tiers import Tiers
    from claims.profiles import ProfileChoice
    from claims.records import Inputs
    from claims.verdicts import Ending

SETTINGS: pytest.StashKey[Settings] = pytest.StashKey()
CATALOG: pytest.StashKey[Catalog] = pytest.StashKey()
TIERS_KEY: pytest.StashKey[Tiers] = pytest.StashKey()
PROFILE: pytest.StashKey[str] = pytest.StashKey()
# How the profile was chosen (claims.profiles.ProfileChoice) and the fakes in use, if any.
PROFILE_CHOICE: pytest.StashKey[ProfileChoice] = pytest.StashKey()
SIMULATED: pytest.StashKey[list[str]] = pytest.StashKey()
CHECK: pytest.StashKey[Check] = pytest.StashKey()
CONCLUSION: pytest.StashKey[Conclusion] = pytest.StashKey()
# How the check ended before its teardown (claims.verdicts.Ending), which a failing
# teardown is judged with.
ENDING: pytest.StashKey[Ending] = pytest.StashKey()
PROBLEM: pytest.StashKey[str] = pytest.StashKey()
# Set once the plugin acts on this session (a claim test collected or one of its options
# named); until then every hook leaves the session alone.
ACTIVE: pytest.StashKey[bool] = pytest.StashKey()
# What the run's inputs were (fixture manifest, documents, transcription check).
INPUTS: pytest.StashKey[Inputs] = pytest.StashKey()

# The user_properties key a check record travels under (worker -> controller under xdist).
RECORD_KEY = "claims.check"
