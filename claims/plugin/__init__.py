"""The claims suite's pytest plugin (an installed ``pytest11`` entry point; the root
``conftest.py`` also names it, for a checkout that is not installed).

Installed, it is loaded by every pytest run of the environment, so it stays out of
the way of any session that is not the suite's (:mod:`claims.plugin.session`): until
a run names one of its options or collects a claim test, its hooks return at once,
and this module imports nothing but pytest and the option table (each hook imports
what it needs when it first acts).

The hooks are thin; each calls the module named for what it does. In the order
a run meets them:

* ``pytest_addoption`` – the claims option group (:mod:`claims.plugin.options`).
* ``pytest_load_initial_conftests`` – finds the project's configuration again when
  pytest took the value of a spaced path option for a test path
  (:mod:`claims.plugin.invocation`).
* ``pytest_configure`` – registers the tier and ``claim`` markers
  (:mod:`claims.plugin.markers`, one per record of :mod:`claims.tiers`); when an
  option of the suite is named, activates the plugin: loads and validates the
  catalog, resolves the machine profile (:mod:`claims.plugin.session`), checks the
  run's inputs (:mod:`claims.plugin.inputs`), and in the controller process only
  (so ``-n`` works) opens the evidence log (:mod:`claims.plugin.writer`).
* ``pytest_collection_modifyitems`` – activates the plugin if a claim test was
  collected; then ``--claim`` selection, the socket guard (each test reaches only
  its tiers' hosts), and validation of each test's claim and tier markers (tier
  markers are for claim tests; :mod:`claims.plugin.collection`). Under xdist the
  controller collects nothing, so it activates on the first check record a worker
  sends instead (``_RecordWatcher``).
* ``pytest_runtest_setup`` / ``_call`` wrappers – the test's check, with the
  source its ``claim`` marker declares (:mod:`claims.plugin.source`), its profile
  and tier prerequisites (:mod:`claims.plugin.prerequisites`: skip with a
  reason, or fail under ``--claims-require-live``), then the conclusion of the
  test's :class:`~claims.check.Check` (:mod:`claims.plugin.conclusion`).
* ``pytest_runtest_makereport`` – the check record (:mod:`claims.plugin.check_record`):
  how the test ended, and the verdict :func:`claims.verdicts.decide` makes of it,
  go into the report's ``user_properties``, which pytest-xdist ships to the
  controller.
* ``pytest_runtest_makereport`` / ``pytest_make_collect_report`` – then every text
  pytest will print of the report is escaped (:mod:`claims.plugin.sanitize`).
* ``pytest_runtest_logreport`` / ``pytest_sessionfinish`` – the controller's
  :class:`~claims.plugin.writer.EvidenceWriter` aggregates records into
  ``evidence.json`` (rewritten atomically as tests finish) and renders the HTML
  report.

``--ollama-serve`` (the suite's own Ollama servers) is a plugin of its own,
:mod:`claims.plugin.serve`. The tiers themselves (markers, prerequisites,
allowed hosts, hints) are one table, :mod:`claims.tiers`: adding a tier means
adding its record there (its docstring says what else: the evidence schema's
enum, the tier's own tests).
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import pytest

from claims.plugin.fixtures import (
    catalog,
    check,
    claims_settings,
    machine_profile,
    reports_dir,
    tiers_fixture,
)
from claims.plugin.keys import (
    ACTIVE,
    CHECK,
    INPUTS,
    PROBLEM,
    PROFILE_CHOICE,
    RECORD_KEY,
    SETTINGS,
    SIMULATED,
)
from claims.plugin.options import pytest_addoption

# --ollama-serve (the suite's own Ollama server) is a plugin of its own.
# The ollama tier's live fixtures (its session client, ``live``) are one too.
pytest_plugins = ("claims.plugin.serve", "claims.plugin.ollama_fixtures")

# Fixtures are imported so that pytest finds them on this plugin module.
__all__ = [
    "catalog",
    "check",
    "claims_settings",
    "machine_profile",
    "pytest_addoption",
    "reports_dir",
    "tiers_fixture",
]


def _active(config: pytest.Config) -> bool:
    return config.stash.get(ACTIVE, False)


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(
    early_config: pytest.Config, parser: pytest.Parser, args: list[str]
) -> None:
    """Find the project's configuration again if a spaced path option hid it (.invocation)."""
    from claims.plugin.invocation import recover_configuration

    recover_configuration(early_config, parser, args)


def pytest_configure(config: pytest.Config) -> None:
    from claims.plugin.markers import register_markers
    from claims.plugin.options import deprecations
    from claims.plugin.session import activate, is_controller, wants_activation

    for message in deprecations(config):
        config.issue_config_time_warning(pytest.PytestDeprecationWarning(message), stacklevel=2)
    # Registered in every session: cheap, and strict markers are checked at import time.
    register_markers(config)
    if wants_activation(config):
        from claims.plugin.xdist_args import check_worker_arguments

        check_worker_arguments(config)  # before xdist starts a worker (issue 35)
        activate(config)
    elif is_controller(config):
        # Under xdist the controller collects nothing: it learns that the session is the
        # suite's from the first check record a worker sends.
        config.pluginmanager.register(_RecordWatcher(config), "claims-record-watcher")


class _RecordWatcher:
    """Controller side under xdist: activate on the first check record, then step aside."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if _active(self.config) or not any(k == RECORD_KEY for k, _ in report.user_properties):
            return
        from claims.plugin.session import activate
        from claims.plugin.writer import EVIDENCE_WRITER

        activate(self.config, late=True)
        writer = self.config.stash.get(EVIDENCE_WRITER, None)
        if writer is not None:  # registered during this very call: hand it this report
            writer.pytest_runtest_logreport(report)


def pytest_unconfigure(config: pytest.Config) -> None:
    if _active(config):
        from claims.plugin.writer import close_evidence

        close_evidence(config)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    from claims.plugin.markers import claim_ids

    if not _active(config):
        if not any(claim_ids(item) for item in items):
            return  # not the suite's session: leave it alone
        from claims.plugin.session import activate

        activate(config, late=True)
    from claims.plugin.collection import collected

    collected(config, items)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Generator[None, None, None]:
    if not _active(item.config):
        return (yield)
    from claims.plugin.prerequisites import prepare, require_live

    problem = item.stash.get(PROBLEM, None)
    if problem:
        pytest.fail(problem, pytrace=False)
    with require_live(item.config.stash[SETTINGS]):
        prepare(item)
        return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    if not _active(item.config):
        return (yield)
    from claims.plugin.conclusion import conclude
    from claims.plugin.prerequisites import require_live

    started = item.stash.get(CHECK, None)
    if started is not None:
        started.begin()  # the declared source is fixed from here on
    with require_live(item.config.stash[SETTINGS]):
        result = yield
    conclude(item)
    return result


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    if not _active(item.config):
        return report
    from claims.plugin.check_record import check_record, label_skip

    label_skip(report, call)
    from claims.plugin.pytest_private import basetemp
    from claims.plugin.sanitize import sanitize_report
    from claims.plugin.tmp_paths import stable

    record = check_record(item, report, call)
    # pytest's numbered temporary folder moves run to run: recorded one way (.tmp_paths).
    base = basetemp(item.config)
    if record is not None:
        report.user_properties.append((RECORD_KEY, stable(record, base)))
    if report.skipped and isinstance(report.longrepr, tuple):
        report.longrepr = stable(report.longrepr, base)
    # After the record took the original text: the terminal gets it escaped (.sanitize).
    sanitize_report(report)
    return report


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(
    collector: pytest.Collector,
) -> Generator[None, pytest.CollectReport, pytest.CollectReport]:
    report = yield
    if not _active(collector.config):
        return report
    from claims.plugin.sanitize import sanitize_report

    sanitize_report(report)
    return report


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Certification mode cannot pass on a profile it failed to detect."""
    config = session.config
    if not _active(config):
        return
    choice = config.stash.get(PROFILE_CHOICE, None)
    settings = config.stash.get(SETTINGS, None)
    if choice is not None and settings is not None and settings.require_live \
            and choice.detection_failed and session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    if not _active(config):
        return
    from claims.plugin.skips import summarize_skips

    summarize_skips(terminalreporter)
    choice = config.stash.get(PROFILE_CHOICE, None)
    if choice is None:
        return
    from claims.terminal import safe

    terminalreporter.write_sep("-", "claims profile")
    terminalreporter.write_line(f"profile: {choice.name} ({safe(choice.reason)})")
    inputs = config.stash.get(INPUTS, None)
    if inputs is not None and not inputs["transcription"]["ran"]:
        from claims.plugin.inputs import DOCUMENTS_OPTIONAL

        terminalreporter.write_line(f"documents: not given; {DOCUMENTS_OPTIONAL}")
    settings = config.stash[SETTINGS]
    if choice.detection_failed and settings.require_live:
        terminalreporter.write_line(
            "--claims-require-live: the profile could not be detected; "
            "name it with --claims-profile dgx-spark or --claims-profile generic"
        )
    fakes = config.stash.get(SIMULATED, [])
    if fakes:
        terminalreporter.write_line(f"SIMULATED run through {', '.join(fakes)}: nothing here "
                                    "was measured on a real machine")
