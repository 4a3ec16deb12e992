"""What one session of the suite holds, and when the plugin starts to act on it.

The plugin is installed as a ``pytest11`` entry point, so it is loaded by every
pytest run in the environment, the user's other projects included. It acts only
on a session that is the suite's: one that names any of its options
(:func:`claims.plugin.options.named_options`, checked at ``pytest_configure``) or
collects a claim test (``@pytest.mark.claim``, checked once collection is done).
Any other session gets no evidence, no report, no socket guard and no terminal
section, and pays for nothing but the option table and the marker registration.

:func:`load_session` resolves the settings, loads and validates the catalog (a bad
catalog or an unknown ``--claim`` is a usage error), chooses the machine profile,
notes any fake in use, and keeps each on ``config.stash`` under the keys of
:mod:`claims.plugin.keys` (the fixtures call it too, so it runs at most once).
:func:`activate` does that, checks the run's inputs (:mod:`claims.plugin.inputs`)
and, in the controlling process, that the cache folder can be written (one usage
error naming it and what to set, not a traceback per test) and opens the evidence
log (:mod:`claims.plugin.writer`).
"""

from __future__ import annotations

import pytest

from claims.plugin.keys import (
    ACTIVE,
    CATALOG,
    INPUTS,
    PROFILE,
    PROFILE_CHOICE,
    SETTINGS,
    SIMULATED,
    TIERS_KEY,
)

__all__ = [
    "activate",
    "is_active",
    "is_controller",
    "is_worker",
    "load_session",
    "wants_activation",
]


def is_worker(config: pytest.Config) -> bool:
    """Whether this process is a pytest-xdist worker (not the controller)."""
    return hasattr(config, "workerinput")


def is_controller(config: pytest.Config) -> bool:
    """The controller of a pytest-xdist run (its workers collect and run the tests)."""
    if is_worker(config):
        return False
    return bool(getattr(config.option, "numprocesses", None)) or getattr(
        config.option, "dist", "no"
    ) not in ("no", None)


def is_active(config: pytest.Config) -> bool:
    return config.stash.get(ACTIVE, False)


def wants_activation(config: pytest.Config) -> bool:
    """Whether this run names one of the suite's options (so it is the suite's run)."""
    from claims.plugin.options import named_options

    return bool(named_options(config)) or config.getoption("--ollama-serve", None) is not None


def load_session(config: pytest.Config) -> None:
    """Load the session's settings, catalog, profile and tiers onto ``config.stash`` (once)."""
    if SETTINGS in config.stash:
        return
    from claims.catalog import Catalog, CatalogError, load_catalog
    from claims.catalog.wording import catalog_problems
    from claims.plugin.options import Settings
    from claims.plugin.tiers import Tiers
    from claims.profiles import choose_profile
    from claims.simulation import fakes_in_use
    from claims.suggest import did_you_mean
    from claims.terminal import safe

    settings = Settings.from_config(config)
    try:
        catalog: Catalog = load_catalog(settings.catalog_paths or None)
    except CatalogError as exc:
        raise pytest.UsageError(f"claims catalog is invalid: {safe(exc)}") from None
    # The loader checks each record's shape; whether a claim's words say what its figures
    # are judged by needs the whole claim (claims.catalog.wording). A statement that
    # contradicts its check would be shown to the reader beside a verdict on another
    # sentence, so the run does not start.
    wording = catalog_problems(catalog)
    if wording:
        raise pytest.UsageError("claims catalog is invalid: its words disagree with its "
                                "figures: " + safe("; ".join(wording)))
    unknown = [cid for cid in settings.claim_ids if cid not in catalog]
    if unknown:
        ids = [claim.id for claim in catalog]
        named = ", ".join(cid + did_you_mean(cid, ids) for cid in unknown)
        raise pytest.UsageError(f"--claim: unknown claim id(s) {safe(named)}")
    choice = choose_profile(settings.profile_option)
    config.stash[PROFILE_CHOICE] = choice
    config.stash[SIMULATED] = fakes_in_use()
    config.stash[SETTINGS] = settings
    config.stash[CATALOG] = catalog
    config.stash[TIERS_KEY] = Tiers(settings)
    config.stash[PROFILE] = choice.name


def _check_cache() -> None:
    """Stop the run with one message when the cache folder cannot be written.

    The offline checks assemble the Gemma GGUF and the cl100k vocabulary there; without
    this, each would end in its own PermissionError traceback. Checked once, in the
    process that reports (xdist's workers inherit the same environment).
    """
    from claims.probes.files.artifacts import CacheUnwritable, cache_dir
    from claims.terminal import safe

    try:
        cache_dir()
    except CacheUnwritable as exc:
        raise pytest.UsageError(f"claims-suite: {safe(str(exc))}") from None


def activate(config: pytest.Config, *, late: bool = False) -> None:
    """Make the plugin act on this session (``late``: after pytest_sessionstart)."""
    if is_active(config):
        return
    from claims.plugin.inputs import check_inputs
    from claims.plugin.writer import open_evidence

    load_session(config)
    if not is_worker(config):
        _check_cache()
    config.stash[ACTIVE] = True
    if not is_controller(config):
        from claims.plugin.sanitize import WarningSanitizer

        # Only the suite's sessions: an unrelated project's warnings are left as they
        # are. Under xdist the workers escape theirs, so the controller would escape
        # the escapes' backslashes again.
        config.pluginmanager.register(WarningSanitizer(), "claims-warning-sanitizer")
    settings = config.stash[SETTINGS]
    # Only the bundled catalog has anchors (claims/catalog/*.anchors.toml).
    bundled = None if settings.catalog_paths else config.stash[CATALOG]
    config.stash[INPUTS] = check_inputs(config.rootpath, settings.documents_dir, bundled)
    if not is_worker(config) and settings.evidence_path is not None:
        writer = open_evidence(
            config,
            settings,
            config.stash[CATALOG],
            config.stash[PROFILE_CHOICE],
            config.stash[SIMULATED],
            config.stash[TIERS_KEY],
        )
        if late:  # its pytest_sessionstart has passed: start the file now
            writer.write(complete=False)
