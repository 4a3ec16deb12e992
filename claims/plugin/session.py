"""What one session of the suite holds, loaded once at ``pytest_configure``.

:func:`configure` registers the markers, resolves the settings, loads and
validates the catalog (a bad catalog or an unknown ``--claim`` is a usage
error), chooses the machine profile, notes any fake in use, and keeps each on
``config.stash`` under the keys of :mod:`claims.plugin.keys`. In the
controlling process it also opens the evidence log (:mod:`claims.plugin.writer`).
"""

from __future__ import annotations

import pytest

from claims.catalog import Catalog, CatalogError, load_catalog
from claims.plugin.keys import CATALOG, PROFILE, PROFILE_CHOICE, SETTINGS, SIMULATED, TIERS_KEY
from claims.plugin.markers import register_markers
from claims.plugin.options import Settings
from claims.plugin.tiers import Tiers
from claims.plugin.writer import open_evidence
from claims.terminal import safe

__all__ = ["configure", "is_worker"]


def is_worker(config: pytest.Config) -> bool:
    """Whether this process is a pytest-xdist worker (not the controller)."""
    return hasattr(config, "workerinput")


def configure(config: pytest.Config) -> None:
    """Load the session's settings, catalog, profile and tiers onto ``config.stash``."""
    from claims.profiles import choose_profile
    from claims.simulation import fakes_in_use

    register_markers(config)
    settings = Settings.from_config(config)
    catalog = _load_catalog(settings)
    choice = choose_profile(settings.profile_option)
    simulated = fakes_in_use()
    tiers = Tiers(settings)
    config.stash[PROFILE_CHOICE] = choice
    config.stash[SIMULATED] = simulated
    config.stash[SETTINGS] = settings
    config.stash[CATALOG] = catalog
    config.stash[TIERS_KEY] = tiers
    config.stash[PROFILE] = choice.name
    if not is_worker(config) and settings.evidence_path is not None:
        open_evidence(config, settings, catalog, choice, simulated, tiers)


def _load_catalog(settings: Settings) -> Catalog:
    try:
        catalog = load_catalog(settings.catalog_paths or None)
    except CatalogError as exc:
        raise pytest.UsageError(f"claims catalog is invalid: {safe(exc)}") from None
    unknown = [cid for cid in settings.claim_ids if cid not in catalog]
    if unknown:
        raise pytest.UsageError(f"--claim: unknown claim id(s) {safe(', '.join(unknown))}")
    return catalog
