"""The controller-side evidence writer: check records in, evidence.json and report out.

:func:`open_evidence` starts the run's :class:`~claims.evidence.EvidenceLog` and
registers an :class:`EvidenceWriter` as a plugin of its own, kept on
``config.stash`` under :data:`EVIDENCE_WRITER` (as pytest keeps its junitxml
writer); it exists only in the controlling process, never in an xdist worker.
"""

from __future__ import annotations

import contextlib
import os
import signal
import stat
import threading
import time
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import Any, cast

import pytest

from claims.catalog import Catalog
from claims.evidence import EvidenceLog, clean, dumps, now_iso, write_atomic
from claims.inputs.audit_result import load_summary
from claims.plugin.check_record import after_teardown, with_check
from claims.plugin.evidence_target import (
    RunFiles,
    WriteFailures,
    check_targets,
    claim_targets,
    release,
)
from claims.plugin.keys import CHECK, INPUTS, RECORD_KEY, SETTINGS, SIMULATED
from claims.plugin.markers import claim_ids, item_tiers
from claims.plugin.options import RENAMED, Settings, redact_arguments
from claims.plugin.tiers import Tiers
from claims.probes.machine.system import fingerprint
from claims.profiles import ProfileChoice
from claims.records import PYTEST_COUNTS, Evidence, PendingCheck, PytestOutcome, Run, TierState
from claims.report import render_html
from claims.terminal import safe
from claims.text.html import INDEX, verdicts_of, write_pages
from claims.text.measure import account
from claims.verdicts import Ending, Stop, decide

# While tests finish, evidence.json is rewritten now and then, so a run killed outright
# (SIGKILL, the machine's power) leaves recent evidence; a Ctrl-C, SIGTERM or full disk
# loses nothing anyway (the final write, the fallback copy). A rewrite costs time in
# proportion to the evidence so far, so a fixed interval made the run's writing grow
# with the square of its checks (26 % of the offline tier at six documents, issue 51).
# Instead the writer waits, after each rewrite, WRITE_SPACING times as long as that
# rewrite took (and at least WRITE_INTERVAL_S): the rewrites then take at most
# 1 / (1 + WRITE_SPACING) of the run, about 5 %, at any size, and what a kill loses is
# the last interval's checks, about a twentieth of the run so far.
WRITE_INTERVAL_S = 1.0
WRITE_SPACING = 19.0

# Where the controller keeps its writer (absent in xdist workers and without evidence).
EVIDENCE_WRITER: pytest.StashKey[EvidenceWriter] = pytest.StashKey()
EXIT_MEANINGS: dict[int, str] = {
    0: "all selected tests passed (known errata are expected failures, xfail)",
    1: "some tests failed: a claim was refuted, a check could not decide its claim, or a "
    "test of the suite failed",
    2: "the run was interrupted",
    3: "pytest hit an internal error",
    4: "pytest was called with bad options",
    5: "no test was selected",
}


def pytest_outcomes(session: pytest.Session, exitstatus: int) -> PytestOutcome:
    """pytest's own counts and exit status, as its summary line and ``$?`` report them.

    Counts every test of the session, claim tests or not, so the report's top
    line agrees with the terminal; None where the terminal reporter is disabled.
    """
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    stats = getattr(reporter, "stats", None)
    counts: dict[str, int] | None = None
    if isinstance(stats, dict):
        counts = {
            key: sum(1 for r in stats.get(key, []) if getattr(r, "count_towards_summary", True))
            for key in PYTEST_COUNTS
        }
    code = int(exitstatus)
    return {"exit_status": code, "meaning": EXIT_MEANINGS.get(code, "unknown"), "counts": counts}


class EvidenceWriter:
    """Controller-side plugin: aggregates check records into evidence.json.

    Registered only in the controlling process (never in an xdist worker), like
    pytest's own junitxml writer; records arrive inside each report's
    ``user_properties``, which xdist transfers from the workers.
    """

    def __init__(self, log: EvidenceLog, settings: Settings, tiers: Tiers) -> None:
        self.log = log
        self.settings = settings
        self.tiers = tiers
        self.pending: dict[str, PendingCheck] = {}
        self.last_write = 0.0  # when the last rewrite ended (monotonic)
        self.next_write_after = 0.0  # how long after it the next may start (s)
        self.written: Evidence | None = None
        self.report_problem: str | None = None
        # The test running now (None between tests), and since when (monotonic):
        # a run stopped in the middle of one names it and how long it had run.
        self.current: pytest.Item | None = None
        self.current_since = 0.0
        self.interrupted_by: str | None = None
        self.signals: dict[int, Any] = {}  # the handlers this run installed (to restore)
        # The files this run writes (its lock), and its writes that failed (a full disk).
        self.files: RunFiles | None = None
        self.failures = WriteFailures()
        self.write_problem: str | None = None
        self.lost: list[str] = []  # tests whose xdist worker crashed under them
        # For the annotated documents beside the report (claims.text.measure): the rootdir
        # and the catalog their figures were accounted for against.
        self.root: Path | None = None
        self.catalog: Catalog | None = None
        self.pages: Path | None = None  # their index, once written
        # A signal that arrived while the final evidence and report were written (held).
        self.held_signal: str | None = None

    def _record(self, nodeid: str, rec: PendingCheck) -> None:
        prev = self.pending.get(nodeid)
        if prev is None:
            self.pending[nodeid] = rec
            return
        if rec.get("when") == "teardown":
            # Decided with the earlier ending: a pass is spoiled, a failure stands.
            after_teardown(prev, rec)
            return
        self.pending[nodeid] = rec

    def _finalize(self, nodeid: str) -> None:
        rec = self.pending.pop(nodeid, None)
        if rec is None:
            return
        ids = rec.pop("claims")
        rec.pop("when", None)
        self.log.add(ids, rec)
        if time.monotonic() - self.last_write >= self.next_write_after:
            self.write(complete=False)

    def write(self, *, complete: bool) -> bool:
        """Write the evidence as it stands; False (and the run goes on) if the disk refused."""
        if self.settings.evidence_path is None:
            return False
        started = time.monotonic()
        try:
            self.written = self.log.write(self.settings.evidence_path, complete=complete)
        except OSError as exc:  # ENOSPC, EIO: the checks stay in memory (evidence_target)
            self.failures.add(exc)
            return False
        finally:
            self.last_write = time.monotonic()
            self.next_write_after = max(
                WRITE_INTERVAL_S, WRITE_SPACING * (self.last_write - started)
            )
        return True

    def _record_interrupted(self) -> None:
        """The test a signal or Ctrl-C stopped: "not run (interrupted)", named, with its time.

        pytest makes no report for it (the interrupt leaves the test at once), so
        without this its claim would read "not run" as if it had never started.
        """
        item = self.current
        if item is None:
            return
        ids = claim_ids(item)
        after = time.monotonic() - self.current_since
        self.log.run["interrupted"]["test"] = item.nodeid
        self.log.run["interrupted"]["test_seconds"] = round(after, 3)
        if not ids:
            return
        self.pending.pop(item.nodeid, None)
        check = item.stash.get(CHECK, None)
        source = check.source if check else "fixture"
        message = (
            f"not run (interrupted): {self.interrupted_by} after {after:.1f} s while this "
            "test ran; nothing was decided"
        )
        fakes: list[str] = item.config.stash.get(SIMULATED, [])
        end = Ending(stop=Stop.INTERRUPTED, source=source, fakes=tuple(fakes), message=message)
        decision = decide(end)
        rec: PendingCheck = {
            "nodeid": item.nodeid,
            "source": source,
            "duration_s": round(after, 6),
            "message": message,
            "tiers": item_tiers(item),
            "outcome": decision.outcome,
            "verdict": decision.verdict,
            "measurements": [],  # what the check measured before it was stopped (with_check)
        }
        decision.write(rec)
        self.log.add(ids, with_check(rec, check, decision))

    # --- hooks -----------------------------------------------------------------
    def pytest_sessionstart(self, session: pytest.Session) -> None:
        self.write(complete=False)

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_runtest_protocol(self, item: pytest.Item) -> Generator[None, object, object]:
        self.current, self.current_since = item, time.monotonic()
        result = yield  # an interrupt raises here, and the item stays current
        self.current = None
        return result

    def pytest_keyboard_interrupt(self, excinfo: pytest.ExceptionInfo[BaseException]) -> None:
        # A SIGTERM or SIGHUP arrives as KeyboardInterrupt("SIGTERM") (interrupt_on_signals).
        self.interrupted_by = str(excinfo.value) or "Ctrl-C"

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        for key, value in report.user_properties:
            if key == RECORD_KEY:
                # pytest types user_properties' values as object: under RECORD_KEY the plugin
                # puts only check_record's PendingCheck (through xdist: its JSON-ready copy).
                self._record(report.nodeid, cast(PendingCheck, value).copy())
        if report.when == "teardown":
            self._finalize(report.nodeid)
        elif report.when not in ("setup", "call"):
            # pytest-xdist's report of a test whose worker died under it (when "???"):
            # whatever it measured is lost, so the run is not complete (issue 35).
            self.pending.pop(report.nodeid, None)
            self.lost.append(report.nodeid)

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        # The final write keeps every check that finished since the last periodic one: a
        # Ctrl-C in its middle would leave the older file (atomic writes). It is short,
        # so a signal now waits for it, and the run then ends as interrupted.
        with held_signals() as held:
            self._finish(session, exitstatus)
        if held:
            self.held_signal = held[0]
            session.exitstatus = pytest.ExitCode.INTERRUPTED

    def _finish(self, session: pytest.Session, exitstatus: int) -> None:
        for nodeid in list(self.pending):
            self._finalize(nodeid)
        aborted = (
            pytest.ExitCode.INTERRUPTED,
            pytest.ExitCode.INTERNAL_ERROR,
            pytest.ExitCode.USAGE_ERROR,
        )
        interrupted = exitstatus in aborted or bool(session.shouldstop) or bool(session.shouldfail)
        if self.lost and self.interrupted_by is None:
            interrupted = True  # a lost check is never reported as a complete run
            self.log.run["interrupted"] = {
                "by": f"a pytest-xdist worker crashed ({len(self.lost)} test(s) lost)",
                "test": self.lost[0],
            }
        if self.interrupted_by is not None:
            self.log.run["interrupted"] = {"by": self.interrupted_by}
            self._record_interrupted()
        self.log.run["tier_status"] = {
            # A detector's details are TierState's optional keys, held untyped by
            # claims.tiers (dict[str, Any]); the schema's tier_status names each of them.
            tier: cast(TierState, {"available": st.available, "reason": st.reason, **st.details})
            for tier, st in self.tiers.known().items()
        }
        self.log.run["pytest"] = pytest_outcomes(session, exitstatus)
        pages = self._pages_dir()
        if pages is not None:
            self._accounting()["pages"] = f"{pages.name}/{INDEX}"
        written = self.write(complete=not interrupted)
        if self.failures and self.settings.evidence_path is not None:
            # Some write failed: say so, keep everything (at the target or a fallback
            # copy), and never end as if all went well.
            doc: Evidence = clean(self.log.document(complete=not interrupted))
            self.write_problem = self.failures.settle(
                self.settings.evidence_path, written, "" if written else dumps(doc))
            self.written = self.written if written else doc
            if session.exitstatus == pytest.ExitCode.OK:
                session.exitstatus = pytest.ExitCode.TESTS_FAILED
        if self.written is not None and self.settings.report_path is not None:
            try:
                write_atomic(self.settings.report_path, render_html(self.written))
            except Exception as exc:  # the evidence is already safe; say why the page is missing
                self.report_problem = f"HTML report not written: {exc!r}"
        if self.written is not None and pages is not None:
            self._write_pages(pages, self.written)

    def _accounting(self) -> dict[str, Any]:
        inputs = self.log.run.get("inputs")
        if not inputs:
            return {}
        return cast(dict[str, Any], inputs.get("accounting") or {})

    def _pages_dir(self) -> Path | None:
        """Where the annotated documents go: beside the report, named after it (a second
        run's report-2.html gets report-2-documents/); None when there are none to write."""
        report = self.settings.report_path
        if report is None or not self._accounting().get("ran"):
            return None
        return report.parent / f"{report.stem}-documents"

    def _write_pages(self, out: Path, evidence: Evidence) -> None:
        report, documents = self.settings.report_path, self.settings.documents_dir
        if report is None or documents is None or self.catalog is None or self.root is None:
            return
        try:
            acc = account(self.catalog, documents, self.root)
            self.pages = write_pages(acc, out, verdicts_of(evidence), report,
                                     f"Verdicts from {self.settings.evidence_path}.")
        except Exception as exc:  # the evidence and report are written; say what is missing
            self.report_problem = f"annotated documents not written: {exc!r}"

    def pytest_report_header(self) -> str | None:
        # A second run in this checkout: which files it writes instead (evidence_target).
        return None if self.files is None or not self.files.note else f"claims: {self.files.note}"

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self.written is None:
            return
        counts = self.written["summary"]["by_verdict"]
        shown = ", ".join(f"{n} {v}" for v, n in counts.items() if n)
        terminalreporter.write_sep("-", "claims")
        terminalreporter.write_line(f"verdicts: {shown}")
        if self.write_problem:
            terminalreporter.write_line(self.write_problem, red=True, bold=True)
        else:
            terminalreporter.write_line(f"evidence: {safe(self.settings.evidence_path)}")
        if self.settings.destination_note:
            terminalreporter.write_line(f"note:     {safe(self.settings.destination_note)}")
        if self.files is not None and self.files.note:
            terminalreporter.write_line(self.files.note)
        if self.report_problem:
            terminalreporter.write_line(safe(self.report_problem))
        elif self.settings.report_path is not None:
            terminalreporter.write_line(f"report:   {safe(self.settings.report_path)}")
        if self.pages is not None:
            terminalreporter.write_line(f"documents: {safe(self.pages)}")
        if self.held_signal:
            terminalreporter.write_line(
                f"stopped: {self.held_signal} arrived while the evidence was written; "
                "it was finished first")



def interrupt_on_signals() -> dict[int, Any]:
    """Make SIGTERM and SIGHUP take pytest's Ctrl-C path, so the evidence and report are written.

    Python's default for both ends the interpreter at once: a run stopped by
    ``timeout`` or a closed terminal left ``complete: false`` evidence from its
    last periodic write, a duration that ended there, the test that was running
    read "not run", and no report. Raised as KeyboardInterrupt instead, pytest
    finishes as interrupted and the writer records who stopped it and during
    which test. A handler someone else installed (a CI runner, xdist, the
    ``--ollama-serve`` plugin's) is left alone; a second signal during the
    cleanup ends the process the default way.
    """
    installed: dict[int, Any] = {}
    if threading.current_thread() is not threading.main_thread():
        return installed
    _TERMINALS.update(_terminals())
    for signum in (signal.SIGTERM, signal.SIGHUP):
        if signal.getsignal(signum) is not signal.SIG_DFL:
            continue
        signal.signal(signum, _interrupt)
        installed[signum] = _interrupt
    return installed


def _interrupt(received: int, frame: object) -> None:
    signal.signal(received, signal.SIG_DFL)
    if received == signal.SIGHUP:
        _leave_a_closed_terminal()
    raise KeyboardInterrupt(signal.Signals(received).name)


def _terminals() -> set[int]:
    """The devices of the terminals stdin, stdout and stderr are (their st_rdev)."""
    found: set[int] = set()
    for fd in (0, 1, 2):
        with contextlib.suppress(OSError):
            if os.isatty(fd):
                found.add(os.fstat(fd).st_rdev)
    return found


# The run's terminal, read when the handlers are installed: a hung-up one is no tty.
_TERMINALS: set[int] = set()


def _leave_a_closed_terminal() -> None:
    """Point every descriptor of the run's terminal, now hung up, at /dev/null.

    A closed terminal fails every write with EIO: pytest's interrupt path, which prints
    as it goes, would end in an OSError traceback (exit status 1) instead of finishing
    as interrupted. pytest's capture keeps copies of stdout and stderr, so every open
    descriptor is looked at (/proc/self/fd; 0 to 2 where there is none).
    """
    try:
        fds = [int(name) for name in os.listdir("/proc/self/fd")]
    except OSError:
        fds = [0, 1, 2]
    with contextlib.suppress(OSError):
        devnull = os.open(os.devnull, os.O_RDWR)
        try:
            for fd in fds:
                with contextlib.suppress(OSError):
                    st = os.fstat(fd)
                    if (stat.S_ISCHR(st.st_mode) and st.st_rdev in _TERMINALS
                            and not os.isatty(fd)):
                        os.dup2(devnull, fd)
        finally:
            os.close(devnull)


@contextlib.contextmanager
def held_signals() -> Iterator[list[str]]:
    """Hold Ctrl-C, SIGTERM and SIGHUP for a short step that must not be cut in half.

    Yields the names of the signals that arrived meanwhile (the caller ends as
    interrupted once the step is done); the handlers before it are put back after it.
    A signal this process ignores stays ignored. Outside the main thread (where no
    handler can be set) it holds nothing.
    """
    held: list[str] = []
    if threading.current_thread() is not threading.main_thread():
        yield held
        return

    def hold(received: int, frame: object) -> None:
        if received == signal.SIGHUP:
            _leave_a_closed_terminal()
        held.append("Ctrl-C" if received == signal.SIGINT else signal.Signals(received).name)

    before: dict[int, Any] = {}
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        handler = signal.getsignal(signum)
        if handler is signal.SIG_IGN or handler is None:
            continue
        before[signum] = handler
        signal.signal(signum, hold)
    try:
        yield held
    finally:
        for held_signum, handler in before.items():
            signal.signal(held_signum, handler)


def _restore_signals(installed: dict[int, Any]) -> None:
    """Put back the default handlers this run installed (a pytester run must not leak them)."""
    if threading.current_thread() is not threading.main_thread():
        return
    for signum, handler in installed.items():
        if signal.getsignal(signum) is handler:
            signal.signal(signum, signal.SIG_DFL)


def open_evidence(
    config: pytest.Config,
    settings: Settings,
    catalog: Catalog,
    choice: ProfileChoice,
    simulated: list[str],
    tiers: Tiers,
) -> EvidenceWriter:
    """Start the run's evidence log and register its writer (the controller only)."""

    assert settings.evidence_path is not None
    # Before any test runs: a target that is no file is a usage error, and a file another
    # run of this checkout is writing is left to it (this run takes files of its own).
    check_targets(settings)
    files = claim_targets(settings)
    settings = files.settings
    config.stash[SETTINGS] = settings
    assert settings.evidence_path is not None
    run: Run = {
        "started": now_iso(),
        "finished": now_iso(),
        "markexpr": settings.markexpr,
        "profile": choice.name,
        "profile_choice": choice.to_json(),
        "simulated": simulated,
        "machine": fingerprint(),
        "options": settings.to_json(),
        "complete": False,
        # Credentials in a URL argument (--ollama-host) are never written.
        "args": redact_arguments(
            [str(a) for a in config.invocation_params.args],
            ("--ollama-host", *(old for old, new in RENAMED.items() if new == "--ollama-host")),
        ),
        # the fixture manifest and transcription check (claims.plugin.inputs)
        "inputs": config.stash.get(INPUTS, None),
    }
    log = EvidenceLog(catalog, run)
    # `claims audit` keeps its result beside the evidence; the report shows its summary,
    # as this checkout's only when it was made on this checkout (its digest).
    log.audit = load_summary(settings.evidence_path.parent / "audit.json",
                             Path(config.rootpath))
    writer = EvidenceWriter(log, settings, tiers)
    writer.root, writer.catalog = config.rootpath, catalog
    writer.files = files
    writer.signals = interrupt_on_signals()
    config.stash[EVIDENCE_WRITER] = writer
    config.pluginmanager.register(writer, "claims-evidence")
    return writer


def close_evidence(config: pytest.Config) -> None:
    """Unregister the writer (pytest_unconfigure); nothing to do where there is none."""
    writer = config.stash.get(EVIDENCE_WRITER, None)
    if writer is not None:
        _restore_signals(writer.signals)
        if writer.files is not None:
            release(writer.files)
        config.pluginmanager.unregister(writer)
