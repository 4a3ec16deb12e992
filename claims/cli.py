"""``python -m claims``: the catalog, reports and probes from the command line.

Commands::

    claims list [--json] [--document W2] [--tier T] [--tests [DIR]]
                                              the catalog (--tests: and the tests covering
                                              each claim, as pytest collects them)
    claims report EVIDENCE.json -o OUT.html   render the HTML report from evidence
    claims diff A.json B.json [-o OUT.html]   what differs between two runs or machines
    claims compare EVIDENCE... [-o OUT.html] [--json FILE] [--csv FILE]
                                              many runs and machines on one page
    claims inspect gguf PATH [--json]         GGUF header facts (no tensor data read)
    claims inspect store DIR [--json] [--model NAME] [--verify]
                                              an Ollama store: manifests, blobs, sharing
    claims audit [--claim ID]... [--claims-documents DIR] [--json] [--force]
                 [-o reports/audit.json]
                                              perturb each stated figure, rerun its checks;
                                              the result kept at -o is reused while the
                                              checkout is the one it was made on (--force:
                                              rerun anyway)
    claims coverage [--claims-documents DIR] [--document ID]... [--show-missing]
                    [--fail-under PCT] [--json PATH] [--html DIR [--claims-evidence PATH]]
                                              every figure the documents print: judged,
                                              recorded, excluded by the ledger, or not

Exit status: 0 success; 1 a verification failed (digest or size mismatch, a
diff that found regressions with --fail-on-regression, a compare that found
verdicts differing between machines with --fail-on-disagreement, a stated figure or
transcribed value the audit found no check sensitive to, documents accounted for
below --fail-under); 2 unreadable or
malformed input or bad usage (compare: fewer than two runs readable; a file it
skips is named on stderr and on the page, and does not change the status).
Errors are one line on stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from claims.exit_codes import EXIT_INPUT, EXIT_OK, EXIT_VERIFY
from claims.plugin.options import DOCUMENTS_ENV, OPTION
from claims.probes.errors import InputError, PrerequisiteMissing, ProbeError, VerificationError
from claims.suggest import did_you_mean
from claims.terminal import safe, safe_json
from claims.verdicts import Verdict

__all__ = ["EXIT_INPUT", "EXIT_OK", "EXIT_VERIFY", "build_parser", "main"]


# Every text printed here may come from a file or a server (GGUF keys, model
# folder names, evidence fields): it goes through claims.terminal first, so no
# control sequence, bidi override or lone surrogate reaches the terminal raw.
def _print_json(data: Any) -> None:
    text = json.dumps(data, indent=2, ensure_ascii=False, default=str, allow_nan=False)
    sys.stdout.write(safe_json(text) + "\n")


def _print_mapping(data: Any, indent: int = 0) -> None:
    """A readable, stable text rendering of a probe's summary dictionary."""
    pad = "  " * indent
    if isinstance(data, dict):
        for key, value in data.items():
            if isinstance(value, (dict, list)) and value:
                print(f"{pad}{safe(key)}:")
                _print_mapping(value, indent + 1)
            else:
                print(f"{pad}{safe(key)}: {safe(value)}")
    elif isinstance(data, list):
        for value in data:
            if isinstance(value, (dict, list)):
                print(f"{pad}-")
                _print_mapping(value, indent + 1)
            else:
                print(f"{pad}- {safe(value)}")
    else:
        print(f"{pad}{safe(data)}")


def _error(text: str) -> None:
    """One line on stderr; the message may quote a file's or server's text."""
    print(safe(text), file=sys.stderr)


# --- list ---------------------------------------------------------------------
def cmd_list(args: argparse.Namespace) -> int:
    """The catalog's claims, from the catalog alone: no test is collected (well under a
    second). ``--tests DIR`` adds which tests cover each claim, as pytest collects them."""
    from claims.catalog import load_catalog

    catalog = load_catalog()
    known = [d.id for d in catalog.documents]
    if args.document is not None and args.document not in known:
        _error(f"unknown document {args.document!r}{did_you_mean(args.document, known)} "
               f"(the catalog's: {', '.join(known)})")
        return EXIT_INPUT
    tiers = sorted({tier for claim in catalog for tier in claim.tiers})
    if args.tier and args.tier not in tiers:
        _error(f"claims list: --tier: unknown tier {args.tier!r}"
               f"{did_you_mean(args.tier, tiers)}; one of: {', '.join(tiers)}")
        return EXIT_INPUT
    coverage: dict[str, list[dict[str, Any]]] | None = None
    note = None
    if args.tests is not None:
        from claims.claim_tests import collect_claim_tests

        coverage, note = collect_claim_tests(Path(args.tests) if args.tests else None)
    rows: list[dict[str, Any]] = []
    for doc in catalog.documents:
        if args.document and doc.id != args.document:
            continue
        for claim in doc.claims:
            if args.tier and args.tier not in claim.tiers:
                continue
            row: dict[str, Any] = {
                "id": claim.id,
                "document": doc.id,
                "section": claim.section,
                "statement": claim.statement,
                "tiers": list(claim.tiers),
                "testable": claim.testable,
                "untestable_reason": claim.untestable_reason,
                "erratum": claim.erratum.explanation if claim.erratum else None,
            }
            if args.tests is not None:
                row["tests"] = coverage.get(claim.id, []) if coverage is not None else None
            rows.append(row)
    if args.json:
        listing: dict[str, Any] = {
            "documents": [d.to_json() for d in catalog.documents],
            "claims": rows,
        }
        if args.tests is not None:
            listing["coverage_note"] = note
        _print_json(listing)
        return EXIT_OK
    for row in rows:
        status: str
        if not row["testable"]:
            status = Verdict.UNTESTABLE
        elif "tests" not in row:
            status = "testable"
        elif row["tests"] is None:
            status = "tests unknown"
        else:
            status = f"{len(row['tests'])} test(s)" if row["tests"] else "NO TEST"
        flag = " [erratum]" if row["erratum"] else ""
        print(f"{row['id']:<28} {','.join(row['tiers']):<22} {status}{flag}")
    if note:
        _error(f"note: {note}")
    return EXIT_OK


# --- report / diff --------------------------------------------------------------
def cmd_report(args: argparse.Namespace) -> int:
    from claims.evidence import EvidenceError, load_evidence, write_atomic
    from claims.report import render_html

    out = Path(args.output)
    if out.is_dir():  # `-o /tmp`: the page goes into the folder, under its usual name
        out = out / "report.html"
    doc = load_evidence(args.evidence)
    try:
        page = render_html(doc)
    except Exception as exc:  # evidence the schema allows but the page cannot show: name it
        if os.environ.get("CLAIMS_DEBUG"):
            raise
        raise EvidenceError(
            f"{args.evidence}: cannot render a report ({type(exc).__name__}: {exc})"
        ) from None
    write_atomic(out, page)
    print(f"report written: {safe(out)}")
    return EXIT_OK


def cmd_diff(args: argparse.Namespace) -> int:
    from claims.evidence import load_evidence, write_atomic
    from claims.report.diff import diff_evidence, format_diff_text, render_diff_html

    a, b = load_evidence(args.a), load_evidence(args.b)
    result = diff_evidence(a, b, labels=(str(args.a), str(args.b)))
    if args.json:
        _print_json(result)
    else:
        # format_diff_text makes each field it prints terminal-safe itself.
        sys.stdout.write(format_diff_text(result))
    if args.output:
        write_atomic(Path(args.output), render_diff_html(result, a, b))
        _error(f"diff report written: {args.output}")
    if args.fail_on_regression and result["regressions"]:
        return EXIT_VERIFY
    return EXIT_OK


def cmd_compare(args: argparse.Namespace) -> int:
    from claims.report.compare import run_compare

    return run_compare(args, _error)


# --- inspect ----------------------------------------------------------------------
def cmd_inspect_gguf(args: argparse.Namespace) -> int:
    from claims.probes.files.gguf_file import inspect

    summary = inspect(Path(args.path))
    if args.json:
        _print_json(summary)
    else:
        _print_mapping(summary)
    return EXIT_OK


def _bundled_blob(path: Path) -> tuple[str, Path] | None:
    """The bundled Gemma GGUF, when ``path`` is a store that names it as a model blob it
    lacks: the recorded store (fixtures/ollama-0.31.2/store) keeps everything but that
    253 MB blob, which the package ships (assembled once into ~/.cache/claims-suite).

    The store is read through the store probe's bounded walk (claims.probes.files.
    ollama_store): no link out of the store is followed, no special file read, and the
    walk and each manifest have their limits; a store it refuses is left to ``inspect``
    to name the problem.
    """
    from claims.probes.files.artifacts import gemma_expected_sha256, gemma_gguf
    from claims.probes.files.ollama_store import OllamaStore

    try:
        store = OllamaStore(path)
        manifests, skipped = store.scan(strict=False)
        sha = gemma_expected_sha256()
    except ProbeError:
        return None
    if skipped:
        return None  # a store with entries the probe refuses is inspected as it is: it says why
    if os.path.lexists(store.root / "blobs" / f"sha256-{sha}"):
        return None
    named = any(blob.digest == f"sha256:{sha}" for m in manifests for blob in m.blobs)
    return (sha, gemma_gguf()) if named else None


def _replace_text(data: Any, old: str, new: str) -> Any:
    if isinstance(data, str):
        return data.replace(old, new)
    if isinstance(data, dict):
        return {k: _replace_text(v, old, new) for k, v in data.items()}
    if isinstance(data, list):
        return [_replace_text(v, old, new) for v in data]
    return data


def cmd_inspect_store(args: argparse.Namespace) -> int:
    import tempfile

    from claims.probes.files.ollama_store import inspect

    path = Path(args.path)
    bundled = _bundled_blob(path)
    if bundled is None:
        summary = inspect(path, model=args.model, verify=args.verify)
    else:
        from claims.testing.recorded_store import assemble

        sha, gguf = bundled
        with tempfile.TemporaryDirectory(prefix="claims-store-") as tmp:
            summary = inspect(assemble(path, Path(tmp), gguf, sha),
                              model=args.model, verify=args.verify)
        # Name the files where they really are, not in the temporary store just removed.
        blob = str(Path(tmp) / "blobs" / f"sha256-{sha}")
        summary = _replace_text(_replace_text(summary, blob, str(gguf)), tmp, str(path))
        summary["model_blob"] = (
            f"sha256-{sha} is the bundled Gemma GGUF ({gguf}), linked in for this inspection"
        )
    if args.json:
        _print_json(summary)
    else:
        _print_mapping(summary)
    problems = summary.get("problems") or []
    if problems:
        for problem in problems:
            _error(f"verification failed: {problem}")
        return EXIT_VERIFY
    return EXIT_OK


# --- audit --------------------------------------------------------------------
def cmd_audit(args: argparse.Namespace) -> int:
    from claims.inputs.audit_digest import KEPT_AUDIT, audit_digest, documents_digest
    from claims.inputs.audit_result import current_audit, print_audit, reused_line, write_audit

    if args.claim:
        from claims.catalog import load_catalog

        catalog = load_catalog()
        unknown = [cid for cid in args.claim if cid not in catalog]
        if unknown:  # as pytest's --claim does: a misspelt id is bad usage, not "0 of 0"
            ids = [claim.id for claim in catalog]
            named = ", ".join(cid + did_you_mean(cid, ids) for cid in unknown)
            _error(f"claims audit: --claim: unknown claim id(s) {named}")
            return EXIT_INPUT
    documents = args.claims_documents or os.environ.get(DOCUMENTS_ENV) or None
    folder = Path(documents).expanduser() if documents else None
    # The kept result is the answer while nothing it was made from has changed
    # (claims.inputs.audit_digest): checking that costs a few hundredths of a second,
    # rerunning a minute or more.
    kept = None
    with_sources = False
    if args.output and not args.force:
        root = Path(args.tests).resolve().parent
        digest, documents_now = audit_digest(root), documents_digest(folder)
        kept = current_audit(Path(args.output), digest, documents_now, args.claim)
        if kept is None:
            # The result kept with the sources (claims/audit/kept.json), which the suite's
            # own tests and CI prove current: a fresh clone's first certification answers
            # without rerunning the audit (issue 51). Copied to the output, where the
            # report reads it.
            kept = current_audit(root / KEPT_AUDIT, digest, documents_now, args.claim)
            with_sources = kept is not None
            if kept is not None and (root / KEPT_AUDIT).resolve() != Path(args.output).resolve():
                write_audit(Path(args.output), kept)
    if kept is not None:
        result = kept
    else:
        from claims.audit import run_audit

        result = run_audit(args.claim or None, tests=args.tests, documents=folder)
        if args.output:
            write_audit(Path(args.output), result)
    if args.json:
        _print_json(result)
    else:
        print_audit(result)
        if kept is not None:
            print(reused_line(kept, with_sources=with_sources))
    failed = result["defects"] or result["transcriptions"].get("survivors")
    return EXIT_VERIFY if failed else EXIT_OK


# --- coverage -------------------------------------------------------------------
def cmd_coverage(args: argparse.Namespace) -> int:
    """Every printed figure of the documents accounted for (claims.text.measure). Not the
    claims -> tests coverage of ``claims list --tests`` (claims.claim_tests)."""
    from claims.catalog import load_catalog
    from claims.evidence import write_atomic
    from claims.text.measure import account
    from claims.text.text_report import format_missing, format_table

    catalog = load_catalog()
    known = [d.id for d in catalog.documents]
    unknown = [d for d in args.document or () if d not in known]
    if unknown:
        _error("claims coverage: --document: unknown document(s) "
               + ", ".join(d + did_you_mean(d, known) for d in unknown)
               + f" (the catalog's: {', '.join(known)})")
        return EXIT_INPUT
    if args.fail_under is not None and not 0 <= args.fail_under <= 100:
        _error("claims coverage: --fail-under: a percent from 0 to 100")
        return EXIT_INPUT
    documents = args.claims_documents or os.environ.get(DOCUMENTS_ENV) or None
    # The checkout's fixtures (the transcribed values' anchors, a bundled week's text) are
    # read from the working directory, as `claims list --tests` reads ./tests.
    root = Path.cwd()
    if not (root / "fixtures" / "recorded").is_dir():
        _error(f"claims coverage: run it from a checkout of the suite (no fixtures/recorded "
               f"under {root}: the transcribed values' anchors)")
        return EXIT_INPUT
    acc = account(catalog, Path(documents).expanduser() if documents else None, root,
                  args.document or None)
    print(format_table(acc))
    if args.show_missing:
        missing = format_missing(acc)
        print("\nUnaccounted figures (document  file:line:column  figure  | context):")
        print(missing or "(none)")
    for problem in acc.problems:
        _error(f"claims coverage: {problem}")
    if args.json:
        write_atomic(Path(args.json), acc.dumps())
    if args.html:
        _coverage_pages(args, acc)
    total = acc.totals()
    if args.fail_under is not None and (
            (total["printed"] - total["unaccounted"]) * 100 < args.fail_under * total["printed"]):
        _error(f"claims coverage: {total['percent']:.2f}% of printed figures accounted for, "
               f"under --fail-under {args.fail_under:g}")
        return EXIT_VERIFY
    return EXIT_OK


def _coverage_pages(args: argparse.Namespace, acc: Any) -> None:
    """--html DIR: the annotated documents, judged figures with their claims' verdicts
    from the evidence (default: the certification's, when it is there)."""
    from claims.evidence import load_evidence
    from claims.text.html import verdicts_of, write_pages

    evidence = Path(args.claims_evidence or DEFAULT_EVIDENCE)
    verdicts = None
    note = f"Verdicts from {evidence}."
    if evidence.is_file() or args.claims_evidence:
        verdicts = verdicts_of(load_evidence(evidence))  # EvidenceError names the file
    else:
        note = f"No evidence at {evidence}: verdicts are not shown."
    report = (Path(args.claims_report_html) if args.claims_report_html
              else evidence.parent / "report.html")
    index = write_pages(acc, Path(args.html), verdicts, report, note)
    print(f"annotated documents written: {safe(index)}")


# The certification's evidence, which --html reads verdicts from by default.
DEFAULT_EVIDENCE = Path("reports") / "evidence.json"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m claims",
        description="The lab write-ups' claims: catalog, evidence reports and probes.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("list", help="the catalog's claims (--tests: with the tests covering each)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--document", metavar="ID", help="one document only, by its catalog id")
    p.add_argument("--tier", help="claims one tier can check (offline, engine, ollama, ...)")
    p.add_argument(
        "--tests",
        nargs="?",
        const="",
        metavar="DIR",
        help="also collect the tests covering each claim (pytest --collect-only, about "
        "10 s; DIR default: ./tests)",
    )
    p.set_defaults(func=cmd_list)

    p = sub.add_parser("report", help="render the HTML report from an evidence file")
    p.add_argument("evidence", help="evidence.json written by a pytest run")
    p.add_argument("-o", "--output", default="reports/report.html", help="HTML file to write")
    p.set_defaults(func=cmd_report)

    p = sub.add_parser("diff", help="compare two evidence files (two runs or two machines)")
    p.add_argument("a", help="the earlier or reference evidence.json")
    p.add_argument("b", help="the later or other evidence.json")
    p.add_argument("-o", "--output", help="also write a side-by-side HTML page here")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument(
        "--fail-on-regression",
        action="store_true",
        help="exit 1 when a claim got worse (e.g. reproduced -> refuted)",
    )
    p.set_defaults(func=cmd_diff)

    p = sub.add_parser("compare", help="many runs and machines side by side (a lab's fleet)")
    p.add_argument("evidence", nargs="+", help="evidence files, or folders of them (at least 2)")
    p.add_argument("-o", "--output", default="reports/compare.html", help="HTML file to write")
    p.add_argument("--json", metavar="FILE", help="the tidy table as JSON records")
    p.add_argument("--csv", metavar="FILE", help="the same tidy table as CSV")
    p.add_argument(
        "--fail-on-disagreement",
        action="store_true",
        help="exit 1 when a claim's verdict differs between machines",
    )
    p.set_defaults(func=cmd_compare)

    p = sub.add_parser("inspect", help="run a probe on a file or folder")
    isub = p.add_subparsers(dest="what", required=True, metavar="WHAT")
    g = isub.add_parser("gguf", help="GGUF header: magic, version, metadata, tensor census")
    g.add_argument("path")
    g.add_argument("--json", action="store_true")
    g.set_defaults(func=cmd_inspect_gguf)
    s = isub.add_parser("store", help="Ollama store: manifests, layers, blobs, shared blobs")
    s.add_argument("path", help="the models folder (contains manifests/ and blobs/)")
    s.add_argument("--model", help="one model, as NAME[:TAG]")
    s.add_argument(
        "--verify", action="store_true", help="hash every blob (SHA-256) and check sizes"
    )
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_inspect_store)

    p = sub.add_parser(
        "audit", help="perturb each stated figure and transcribed value; do verdicts change?"
    )
    # The options it shares with pytest's: declared once, in the plugin's table.
    claim = OPTION["--claim"]
    p.add_argument(claim.flag, action=claim.action or "store", metavar=claim.metavar,
                   help="audit only this claim (repeatable)")
    p.add_argument("--tests", default="tests", help="the suite's tests folder (default: ./tests)")
    documents = OPTION["--claims-documents"]
    p.add_argument(documents.flag, metavar=documents.metavar,
                   help=f"the source documents (seed files), for the transcription audit "
                   f"(default: ${DOCUMENTS_ENV}; without either it is not audited)")
    p.add_argument(
        "-o", "--output", default="reports/audit.json", help="where to keep the result (JSON)"
    )
    p.add_argument("--json", action="store_true", help="print the whole result as JSON")
    p.add_argument("--force", action="store_true",
                   help="rerun even when the result kept at --output was made on this very "
                   "checkout (by default it is reused then: nothing it reads has changed)")
    p.set_defaults(func=cmd_audit)

    p = sub.add_parser(
        "coverage", help="every figure the documents print: judged, recorded, excluded or not"
    )
    p.add_argument(documents.flag, metavar=documents.metavar,
                   help=f"the source documents (seed files) (default: ${DOCUMENTS_ENV})")
    p.add_argument("--document", action="append", metavar="ID",
                   help="one document only, by its catalog id (repeatable)")
    p.add_argument("--show-missing", action="store_true",
                   help="list each unaccounted figure: file, line, column, the text around it")
    p.add_argument("--fail-under", type=float, metavar="PCT",
                   help="exit 1 when less than PCT percent of the printed figures are "
                   "accounted for")
    p.add_argument("--json", metavar="PATH", help="write totals, documents and figures here")
    p.add_argument("--html", metavar="DIR",
                   help="write one annotated page per document and an index into DIR")
    p.add_argument("--claims-evidence", metavar="PATH",
                   help=f"the evidence whose verdicts --html shows (default: {DEFAULT_EVIDENCE}, "
                   "when it exists)")
    p.add_argument("--claims-report-html", metavar="PATH",
                   help="the report page judged figures link to (default: report.html beside "
                   "the evidence)")
    p.set_defaults(func=cmd_coverage)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse already printed its usage line
        return EXIT_INPUT if exc.code not in (0, None) else EXIT_OK
    func: Callable[[argparse.Namespace], int] = args.func
    try:
        return func(args)
    except VerificationError as exc:
        _error(f"claims: verification failed: {exc}")
        return EXIT_VERIFY
    except (InputError, PrerequisiteMissing, ProbeError) as exc:
        _error(f"claims: {exc}")
        return EXIT_INPUT
    except BrokenPipeError:  # e.g. `claims list | head`
        return EXIT_OK
    except (ValueError, OSError) as exc:
        # EvidenceError and CatalogError are ValueErrors with file-naming messages.
        _error(f"claims: {exc}")
        return EXIT_INPUT
    except KeyboardInterrupt:
        print("claims: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # a bug in the suite: still one line, unless debugging
        if os.environ.get("CLAIMS_DEBUG"):
            raise
        _error(
            f"claims: internal error ({type(exc).__name__}: {exc}); "
            "rerun with CLAIMS_DEBUG=1 for the traceback"
        )
        return EXIT_INPUT
