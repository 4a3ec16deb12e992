"""The claims suite's pytest plugin (an installed ``pytest11`` entry point; the root
``conftest.py`` also names it, for a checkout that is not installed).

Hooks, in the order a run meets them:

* ``pytest_addoption`` – the claims option group (:mod:`claims.plugin.options`).
* ``pytest_load_initial_conftests`` – finds the project's configuration again when
  pytest took the value of a spaced path option for a test path
  (:mod:`claims.plugin.invocation`).
* ``pytest_configure`` – registers the tier and ``claim`` markers, loads and
  validates the catalog, resolves the machine profile, and (in the controller
  process only, so ``-n`` works) opens the evidence log.
* ``pytest_collection_modifyitems`` – ``--claim`` selection, the loopback-only
  socket guard, and validation of each test's claim and tier markers.
* ``pytest_runtest_setup`` / ``_call`` wrappers – profile and tier
  prerequisites (skip with a reason, or fail under ``--require-live``), then
  the soft-assertion verdict of the test's :class:`~claims.check.Check`.
* ``pytest_runtest_makereport`` – writes the check's verdict (decided once:
  by :meth:`~claims.check.Check.conclude`, or by how setup ended) into the check
  record and puts it into the report's ``user_properties``, which pytest-xdist
  ships to the controller.
* ``pytest_runtest_logreport`` / ``pytest_sessionfinish`` – the controller
  aggregates records into ``evidence.json`` (rewritten atomically as tests
  finish) and renders the HTML report.
"""

from __future__ import annotations

from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

from claims.catalog import TIERS, CatalogError, load_catalog
from claims.check import Check, Conclusion, jsonable
from claims.evidence import (
    EvidenceLog,
    NonFiniteMeasurement,
    non_finite_names,
    non_finite_problem,
    now_iso,
    write_atomic,
)
from claims.plugin.fixtures import (
    catalog,
    check,
    claims_settings,
    machine_profile,
    reports_dir,
    tiers,
)
from claims.plugin.keys import (
    CATALOG,
    CHECK,
    CONCLUSION,
    LIVE_TIERS,
    LOOPBACK,
    PROBLEM,
    PROFILE,
    PROFILE_CHOICE,
    RECORD_KEY,
    SETTINGS,
    SIMULATED,
    TIERS_KEY,
)
from claims.plugin.options import Settings, pytest_addoption
from claims.plugin.outcomes import (
    ClaimRefuted,
    ErratumNowHolds,
    NotApplicable,
    NothingCompared,
    NotRun,
    RequiredButNotRun,
    not_applicable,
    not_run,
)
from claims.plugin.source import declared_source
from claims.plugin.tiers import Tiers
from claims.plugin.writer import LOG, EvidenceWriter
from claims.verdicts import check_verdict

# --ollama-serve (the suite's own Ollama server) is a plugin of its own.
pytest_plugins = ("claims.plugin.serve",)

# Fixtures are imported so that pytest finds them on this plugin module.
__all__ = [
    "catalog",
    "check",
    "claims_settings",
    "machine_profile",
    "pytest_addoption",
    "reports_dir",
    "tiers",
]

MARKERS = {
    "offline": "needs nothing beyond installed packages and files on disk (CI tier)",
    "engine": "needs llama-cpp-python and a GGUF model file (llama.cpp on this machine)",
    "ollama": "needs a reachable Ollama server (--ollama-host) and its model (--ollama-model)",
    "gpu": "needs torch with CUDA and nvidia-smi",
    "hub": "needs network access to the Hugging Face Hub (select explicitly with -m hub)",
    "claim(id, source=None)": "links the test to a catalog claim id (select with --claim ID); "
    "source= declares where its evidence comes from: recorded, fixture or live",
}


def _is_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


def claim_ids(item: pytest.Item) -> list[str]:
    ids: list[str] = []
    for mark in item.iter_markers("claim"):
        ids.extend(str(a) for a in mark.args)
    return list(dict.fromkeys(ids))


def item_tiers(item: pytest.Item) -> list[str]:
    return [t for t in TIERS if item.get_closest_marker(t) is not None]


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(
    early_config: pytest.Config, parser: pytest.Parser, args: list[str]
) -> None:
    """Find the project's configuration again if a spaced path option hid it (.invocation)."""
    from claims.plugin.invocation import recover_configuration

    recover_configuration(early_config, parser, args)


def pytest_configure(config: pytest.Config) -> None:
    for name, text in MARKERS.items():
        config.addinivalue_line("markers", f"{name}: {text}")
    settings = Settings.from_config(config)
    try:
        catalog = load_catalog(settings.catalog_paths or None)
    except CatalogError as exc:
        raise pytest.UsageError(f"claims catalog is invalid: {exc}") from None
    unknown = [cid for cid in settings.claim_ids if cid not in catalog]
    if unknown:
        raise pytest.UsageError(f"--claim: unknown claim id(s) {', '.join(unknown)}")
    from claims.profiles import choose_profile
    from claims.simulation import fakes_in_use

    choice = choose_profile(settings.profile_option)
    profile = choice.name
    simulated = fakes_in_use()
    config.stash[PROFILE_CHOICE] = choice
    config.stash[SIMULATED] = simulated
    config.stash[SETTINGS] = settings
    config.stash[CATALOG] = catalog
    config.stash[TIERS_KEY] = Tiers(settings)
    config.stash[PROFILE] = profile
    if not _is_worker(config) and settings.evidence_path is not None:
        from claims.probes.machine.system import fingerprint

        run = {
            "started": now_iso(),
            "finished": now_iso(),
            "markexpr": settings.markexpr,
            "profile": profile,
            "profile_choice": choice.to_json(),
            "simulated": simulated,
            "machine": fingerprint(),
            "options": settings.to_json(),
            "complete": False,
            "args": [str(a) for a in config.invocation_params.args],
        }
        log = EvidenceLog(catalog, run)
        from claims.audit.report import load_summary

        # `claims audit` keeps its result beside the evidence; the report shows its summary.
        log.audit = load_summary(settings.evidence_path.parent / "audit.json", catalog)
        writer = EvidenceWriter(log, settings, config.stash[TIERS_KEY])
        config.stash[LOG] = writer
        config.pluginmanager.register(writer, "claims-evidence")


def pytest_unconfigure(config: pytest.Config) -> None:
    writer = config.stash.get(LOG, None)
    if writer is not None:
        config.pluginmanager.unregister(writer)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    settings = config.stash[SETTINGS]
    catalog = config.stash[CATALOG]
    coverage_path = config.getoption("--claims-coverage")
    if coverage_path:
        _write_coverage(Path(coverage_path), items)
    if settings.claim_ids:
        wanted = set(settings.claim_ids)
        keep: list[pytest.Item] = []
        drop: list[pytest.Item] = []
        for item in items:
            (keep if wanted & set(claim_ids(item)) else drop).append(item)
        if drop:
            config.hook.pytest_deselected(items=drop)
            items[:] = keep
    ollama_hosts = [*LOOPBACK, _host_of(settings.ollama_host)]
    for item in items:
        tiers = item_tiers(item)
        # Offline means offline: any connection beyond loopback fails the test (pytest-socket).
        if "hub" in tiers:
            pass
        elif "ollama" in tiers:
            item.add_marker(pytest.mark.allow_hosts(ollama_hosts))
        else:
            item.add_marker(pytest.mark.allow_hosts(LOOPBACK))
        ids = claim_ids(item)
        if not ids:
            continue
        problems = []
        for cid in ids:
            if cid not in catalog:
                problems.append(f"unknown claim id {cid!r} (not in the catalog)")
                continue
            claim = catalog.get(cid)
            if not claim.testable:
                problems.append(f"claim {cid} is catalogued as untestable but has a test")
            stray = [t for t in tiers if t not in claim.tiers]
            if stray:
                problems.append(
                    f"tier(s) {', '.join(stray)} not listed for claim {cid} in the catalog"
                )
        if not tiers:
            problems.append(
                "a claim test needs a tier marker (offline, engine, ollama, gpu or hub)"
            )
        if problems:
            item.stash[PROBLEM] = "; ".join(problems)


def _write_coverage(path: Path, items: list[pytest.Item]) -> None:
    """Every collected test's claim ids and tiers, before any deselection (for `claims list`)."""
    import json

    coverage: dict[str, list[dict[str, Any]]] = {}
    for item in items:
        for cid in claim_ids(item):
            coverage.setdefault(cid, []).append({"nodeid": item.nodeid, "tiers": item_tiers(item)})
    write_atomic(path, json.dumps(coverage, indent=1, sort_keys=True))


def _host_of(url: str) -> str:
    rest = url.split("://", 1)[-1]
    if rest.startswith("["):
        return rest[1 : rest.index("]")]
    return rest.rsplit(":", 1)[0]


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Generator[None, None, None]:
    config = item.config
    settings = config.stash[SETTINGS]
    problem = item.stash.get(PROBLEM, None)
    if problem:
        pytest.fail(problem, pytrace=False)
    ids = claim_ids(item)
    tiers = item_tiers(item)
    # A rerun of the same item (claims audit) starts without the last run's conclusion.
    if CONCLUSION in item.stash:
        del item.stash[CONCLUSION]
    try:
        if ids:
            catalog = config.stash[CATALOG]
            claims = tuple(catalog.get(cid) for cid in ids)
            live = any(t in LIVE_TIERS for t in tiers)
            item.stash[CHECK] = Check(
                claims=claims,
                nodeid=item.nodeid,
                source=declared_source(item, live=live),
                profile=config.stash[PROFILE],
                catalog=catalog,
            )
            profile = config.stash[PROFILE]
            for claim in claims:
                if claim.profile and claim.profile != profile:
                    not_applicable(
                        f"{claim.id} is about the {claim.profile} profile; this machine is "
                        f"{profile} (override with --profile)",
                        scope={"profile": claim.profile},
                    )
        tier_status = config.stash[TIERS_KEY]
        for tier in tiers:
            status = tier_status.status(tier)
            if not status.available:
                not_run(status.reason or f"{tier} tier unavailable")
        return (yield)
    except NotRun as exc:
        if settings.require_live:
            raise RequiredButNotRun(f"--require-live: not run: {exc.msg}", pytrace=False) from None
        raise


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    settings = item.config.stash[SETTINGS]
    started = item.stash.get(CHECK, None)
    if started is not None:
        started.begin()  # the declared source is fixed from here on
    try:
        result = yield
    except NotRun as exc:
        if settings.require_live:
            raise RequiredButNotRun(f"--require-live: not run: {exc.msg}", pytrace=False) from None
        raise
    check = item.stash.get(CHECK, None)
    if check is None:
        return result
    # NaN or an infinity is the probe failing, not a figure: the test errs (issue 13).
    non_finite = non_finite_names(check.measurements)
    if non_finite:
        raise NonFiniteMeasurement(non_finite_problem(non_finite))
    conclusion = check.conclude()
    item.stash[CONCLUSION] = conclusion
    if conclusion.kind == "refuted":
        raise ClaimRefuted(f"refuted: {conclusion.message}", pytrace=False)
    if conclusion.kind == "known-erratum":
        pytest.xfail(f"known erratum: {conclusion.message}")
    if conclusion.kind == "erratum-holds":
        raise ErratumNowHolds(str(conclusion.message), pytrace=False)
    if conclusion.kind == "nothing-compared":
        raise NothingCompared(str(conclusion.message), pytrace=False)
    if conclusion.kind == "not-applicable":
        # Every figure was about another model or profile: nothing was compared, so
        # the check confirms nothing (a pass would report the claim consistent).
        not_applicable(str(conclusion.message), scope=conclusion.scope)
    return result


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Certification mode cannot pass on a profile it failed to detect."""
    config = session.config
    choice = config.stash.get(PROFILE_CHOICE, None)
    settings = config.stash.get(SETTINGS, None)
    if choice is not None and settings is not None and settings.require_live \
            and choice.detection_failed and session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    choice = config.stash.get(PROFILE_CHOICE, None)
    if choice is None:
        return
    terminalreporter.write_sep("-", "claims profile")
    terminalreporter.write_line(f"profile: {choice.name} ({choice.reason})")
    settings = config.stash[SETTINGS]
    if choice.detection_failed and settings.require_live:
        terminalreporter.write_line("--require-live: the profile could not be detected; "
                                    "name it with --profile dgx-spark or --profile generic")
    fakes = config.stash.get(SIMULATED, [])
    if fakes:
        terminalreporter.write_line(f"SIMULATED run through {', '.join(fakes)}: nothing here "
                                    "was measured on a real machine")


def _message(report: pytest.TestReport, call: pytest.CallInfo[None]) -> str | None:
    if report.skipped:
        wasxfail = getattr(report, "wasxfail", None)
        if wasxfail:
            return str(wasxfail)
        skip = call.excinfo.value if call.excinfo is not None else None
        if isinstance(skip, pytest.skip.Exception):
            # The reason itself: pytest's text would start with the class path
            # ("claims.plugin.outcomes.NotRun: ...") for our subclasses.
            return str(skip.msg)
        longrepr = report.longrepr
        if isinstance(longrepr, tuple) and len(longrepr) == 3:
            return str(longrepr[2]).removeprefix("Skipped: ")
        return str(longrepr)
    if call.excinfo is not None:
        value = call.excinfo.value
        text = getattr(value, "msg", None) or str(value) or call.excinfo.typename
        if isinstance(value, pytest.fail.Exception):
            return str(text)
        return f"{call.excinfo.typename}: {text}"
    return None


def _label_skip(report: pytest.TestReport, call: pytest.CallInfo[None]) -> None:
    """Let pytest's -rs line say "not run: <reason>" at the test's own location.

    pytest would print the class path of our Skipped subclasses
    ("claims.plugin.outcomes.NotRun: ...") at the line in outcomes.py that raised.
    """
    exc = call.excinfo.value if call.excinfo is not None else None
    if not report.skipped or not isinstance(exc, (NotRun, NotApplicable)):
        return
    if not isinstance(report.longrepr, tuple) or len(report.longrepr) != 3:
        return
    label = "not applicable" if isinstance(exc, NotApplicable) else "not run"
    fspath, lineno, _domain = report.location  # 0-based line of the test itself
    report.longrepr = (fspath, (lineno or 0) + 1, f"{label}: {exc.msg}")


def _ending(
    report: pytest.TestReport,
    exc: BaseException | None,
    conclusion: Conclusion | None,
    message: str | None,
) -> dict[str, Any]:
    """The check's outcome, verdict and (when it did not pass) why: decided here, once.

    A test that ran to its end carries the :class:`Conclusion` of its check;
    every other ending is decided by what stopped it (a missing prerequisite,
    another profile, a failing assertion, a broken probe).
    """
    if report.passed:
        if conclusion is None:  # a pass without a conclusion compared nothing
            return {"outcome": "passed", "verdict": "error", "failure": "nothing-compared"}
        return {"outcome": "passed", "verdict": conclusion.verdict}
    if report.skipped:
        if getattr(report, "wasxfail", None) is not None:
            if conclusion is not None and conclusion.kind == "known-erratum":
                return {"outcome": "xfailed", "verdict": "known-erratum"}
            # Only a catalogued erratum makes an expected failure a known
            # erratum; an xfail marker or a bare pytest.xfail() decided nothing.
            return {
                "outcome": "xfailed",
                "verdict": "error",
                "failure": "error",
                "message": f"expected failure without a catalogued erratum: {message}",
            }
        if isinstance(exc, NotApplicable):
            return {"outcome": "skipped", "verdict": "not-applicable", "status": "not-applicable"}
        return {"outcome": "skipped", "verdict": "not-run", "status": "not-run"}
    if isinstance(exc, RequiredButNotRun):
        # Certification mode: the missing prerequisite fails the run, and the check
        # stays "not run" (nothing was measured).
        return {"outcome": "failed", "verdict": "not-run", "failure": "not-run"}
    if isinstance(exc, ErratumNowHolds):
        return {"outcome": "failed", "verdict": "error", "failure": "erratum-holds"}
    if isinstance(exc, NothingCompared):
        return {"outcome": "failed", "verdict": "error", "failure": "nothing-compared"}
    if isinstance(exc, (AssertionError, pytest.fail.Exception)) and report.when == "call":
        return {"outcome": "failed", "verdict": "refuted", "failure": "refuted"}
    return {"outcome": "error", "verdict": "error", "failure": "error"}


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    _label_skip(report, call)
    ids = claim_ids(item)
    if not ids:
        return report
    if report.when in ("setup", "teardown") and report.passed:
        return report
    check = item.stash.get(CHECK, None)
    rec: dict[str, Any] = {
        "nodeid": item.nodeid,
        "claims": ids,
        "when": report.when,
        "source": check.source if check else "fixture",
        "duration_s": round(float(report.duration), 6),
        "message": _message(report, call),
        "tiers": item_tiers(item),
    }
    exc = call.excinfo.value if call.excinfo is not None else None
    rec.update(_ending(report, exc, item.stash.get(CONCLUSION, None), rec["message"]))
    if isinstance(exc, NotApplicable) and exc.scope:
        rec["applies_to"] = exc.scope
    if check is not None:
        rec.update(check.to_json())
    else:
        rec.update(measurements=[], attachments=[], facts={}, notes=[], charts=[])
    fakes = item.config.stash.get(SIMULATED, [])
    if fakes and rec["source"] == "live":
        # Measured through a fake (claims.simulation): never "reproduced" (claims.verdicts).
        rec["simulated"] = True
        if rec["verdict"] == "reproduced":
            rec["verdict"] = check_verdict(rec)
            rec["message"] = (f"simulated: passed through {', '.join(fakes)}; a fake confirms "
                              "nothing about a machine")
    # Plain builtins only: xdist cannot ship a str or float subclass to the controller.
    report.user_properties.append((RECORD_KEY, jsonable(rec)))
    return report
