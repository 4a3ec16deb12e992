"""Fixtures the plugin provides to claim tests.

Each loads the session's settings and catalog on first use (:func:`claims.plugin.session.
load_session`), so a test that asks for one works in any session, and a session that
asks for none pays nothing for them.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from claims.plugin.keys import CATALOG, CHECK, PROFILE, SETTINGS, TIERS_KEY
from claims.plugin.session import load_session

if TYPE_CHECKING:
    from claims.catalog import Catalog
    from claims.check import Check
    from claims.plugin.options import Settings
    from claims.plugin.tiers import Tiers


def _loaded(config: pytest.Config) -> pytest.Config:
    load_session(config)
    return config


@pytest.fixture
def check(request: pytest.FixtureRequest) -> Check:
    """The evidence recorder of a test marked ``@pytest.mark.claim(ID)``."""
    found: Check | None = request.node.stash.get(CHECK, None)
    if found is None:
        pytest.fail("the check fixture needs @pytest.mark.claim(ID) on the test", pytrace=False)
    return found


@pytest.fixture(scope="session")
def claims_settings(pytestconfig: pytest.Config) -> Settings:
    return _loaded(pytestconfig).stash[SETTINGS]


@pytest.fixture(scope="session")
def catalog(pytestconfig: pytest.Config) -> Catalog:
    return _loaded(pytestconfig).stash[CATALOG]


@pytest.fixture(scope="session")
def machine_profile(pytestconfig: pytest.Config) -> str:
    return _loaded(pytestconfig).stash[PROFILE]


# Named apart from the fixture: importing the submodule claims.plugin.tiers (done lazily,
# once the session is the suite's) sets the package attribute ``tiers`` to that module,
# which would hide a function of that name from pytest's fixture discovery.
@pytest.fixture(scope="session", name="tiers")
def tiers_fixture(pytestconfig: pytest.Config) -> Tiers:
    return _loaded(pytestconfig).stash[TIERS_KEY]


@pytest.fixture(scope="session")
def reports_dir(pytestconfig: pytest.Config) -> Path:
    return Path(str(pytestconfig.rootpath)) / "reports"
