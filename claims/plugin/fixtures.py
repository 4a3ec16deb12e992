"""Fixtures the plugin provides to claim tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from claims.catalog import Catalog
from claims.check import Check
from claims.plugin.keys import CATALOG, CHECK, PROFILE, SETTINGS, TIERS_KEY
from claims.plugin.options import Settings
from claims.plugin.tiers import Tiers


@pytest.fixture
def check(request: pytest.FixtureRequest) -> Check:
    """The evidence recorder of a test marked ``@pytest.mark.claim(ID)``."""
    found: Check | None = request.node.stash.get(CHECK, None)
    if found is None:
        pytest.fail("the check fixture needs @pytest.mark.claim(ID) on the test", pytrace=False)
    return found


@pytest.fixture(scope="session")
def claims_settings(pytestconfig: pytest.Config) -> Settings:
    return pytestconfig.stash[SETTINGS]


@pytest.fixture(scope="session")
def catalog(pytestconfig: pytest.Config) -> Catalog:
    return pytestconfig.stash[CATALOG]


@pytest.fixture(scope="session")
def machine_profile(pytestconfig: pytest.Config) -> str:
    return pytestconfig.stash[PROFILE]


@pytest.fixture(scope="session")
def tiers(pytestconfig: pytest.Config) -> Tiers:
    return pytestconfig.stash[TIERS_KEY]


@pytest.fixture(scope="session")
def reports_dir(pytestconfig: pytest.Config) -> Path:
    return Path(str(pytestconfig.rootpath)) / "reports"
