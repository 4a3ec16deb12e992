"""The evidence records: what ``evidence.json`` holds, as types; the one source of its schema.

Each :class:`~typing.TypedDict` reachable from :class:`Evidence` is one object of
``claims/schema/evidence.schema.json``, which :mod:`claims.contract` generates from
them (``python scripts/evidence-schema.py``; a test fails when the file is stale):
its keys are that object's properties, its ``Required`` keys the object's
``required`` list, its types the properties' JSON types, its docstring's first
paragraph the object's description, and a key's :class:`Doc` the property's
description and any JSON-only constraint. The writer builds these records,
:func:`claims.evidence.load_evidence` hands them out only after the file passed the
schema, so a reader may index a required key and must ``.get`` an optional one.

The words the evidence is written in are spelled here once, at the bottom of
the layers (docs/architecture.md): :class:`Verdict`, a check's
:data:`Outcome`, :data:`Failure`, :data:`SkipStatus`, :data:`Phase`,
:data:`SourceName` and :data:`ConclusionKind`. :mod:`claims.verdicts` and
:mod:`claims.check` use these; neither restates them.

Verdicts are :class:`Verdict` members when the suite writes them and plain
strings equal to those members when loaded from a file (a ``StrEnum`` compares
equal to its value), so both read the same.
"""

# No `from __future__ import annotations`: TypedDict reads Required/NotRequired from
# the evaluated annotations (claims.contract generates the schema from them).

from dataclasses import dataclass
from enum import StrEnum
from typing import Annotated, Any, Final, Literal, NotRequired, Required, TypedDict, get_args

__all__ = [
    "NOT_EVIDENCE",
    "PYTEST_COUNTS",
    "SCHEMA_ID",
    "Attachment",
    "Chart",
    "CheckRecord",
    "ClaimRecord",
    "ConclusionKind",
    "DiffResult",
    "Doc",
    "DocumentRecord",
    "DocumentRow",
    "ErratumRecord",
    "Evidence",
    "Failure",
    "FieldDifference",
    "Gpu",
    "Inputs",
    "Interrupted",
    "IntervalRecord",
    "Machine",
    "ManifestCheck",
    "MeasuredOnce",
    "Measurement",
    "MovedFigure",
    "OllamaServer",
    "Options",
    "Outcome",
    "PendingCheck",
    "Phase",
    "Premise",
    "ProfileChoiceRecord",
    "PytestOutcome",
    "Run",
    "RunSummary",
    "RunnerBuildRecord",
    "SkipStatus",
    "SourceName",
    "StatedFigureRecord",
    "StatedFor",
    "StatedRange",
    "Suite",
    "Summary",
    "TierState",
    "Transcription",
    "Verdict",
    "VerdictChange",
]

# The schema's name, written in every evidence file's "schema" key.
SchemaName = Literal["claims-evidence/1"]
SCHEMA_ID: Final[SchemaName] = get_args(SchemaName)[0]


@dataclass(frozen=True)
class Doc:
    """A key's schema description and JSON-only constraints, carried on its annotation
    (``Annotated[str, Doc("ISO 8601 with timezone")]``); :mod:`claims.contract` writes them."""

    text: str = ""
    pattern: str | None = None  # a regular expression the string matches
    min_items: int | None = None  # the fewest items a list has


class Verdict(StrEnum):
    """What a run says of a check or a claim; the only verdict names there are.

    A ``StrEnum``: members compare equal to, and serialise as, their names in
    evidence.json (``Verdict.REFUTED == "refuted"``). How one is decided:
    :mod:`claims.verdicts`.
    """

    REPRODUCED = "reproduced"
    CONSISTENT = "consistent"
    REFUTED = "refuted"
    KNOWN_ERRATUM = "known-erratum"
    NOT_APPLICABLE = "not-applicable"
    NOT_RUN = "not-run"
    ERROR = "error"
    UNTESTABLE = "untestable"


# pytest's outcome of a test as the check record carries it ("error": pytest's own
# word for a failure outside the test's call, or of a probe rather than the claim;
# claims.verdicts.decide writes all but "xpassed", which an evidence file may hold).
# In the order pytest's summary line prints them.
Outcome = Literal["passed", "failed", "error", "skipped", "xfailed", "xpassed"]
# What a run's pytest counts (run.pytest.counts): each outcome, and the deselected tests.
PYTEST_COUNTS: tuple[str, ...] = (*get_args(Outcome), "deselected")
# Where a check's evidence came from (claims.check.Check.declare_source).
SourceName = Literal["recorded", "fixture", "live"]
# Why a check failed or erred, and a skip's kind (the verdict says what it means for the claim).
Failure = Literal["refuted", "not-run", "nothing-compared", "erratum-holds", "error", "interrupted"]
SkipStatus = Literal["not-run", "not-applicable"]
# The phase of a test in which a check ended.
Phase = Literal["setup", "call", "teardown"]
# What a check's measurements say once its test body has finished (claims.check.Conclusion).
ConclusionKind = Literal[
    "holds", "refuted", "known-erratum", "erratum-holds", "nothing-compared", "not-applicable"
]


class IntervalRecord(TypedDict):
    """An interval of numbers (claims.figures.Interval): the values a figure's print admits,
    or a measured value computed from printed figures."""

    lo: float
    hi: float


class StatedRange(TypedDict):
    """A stated range figure as its two printed bounds ("12 to 14 GB")."""

    low: float
    high: float


class StatedFor(TypedDict, total=False):
    """The model and machine profile a figure was stated for (a figure not judged here)."""

    model: str
    profile: str


class Measurement(TypedDict, total=False):
    """One figure of a check: what was stated, what was measured, and whether it holds.

    ``compared`` false: recorded for context or not judged (``applicable`` false: stated
    for another model or profile; ``matches``: the author's own run, shown beside).
    """

    name: Required[str]
    claim: Annotated[str, Doc("the claim this figure belongs to, when the check serves several")]
    stated: Annotated[
        float | str | bool | list[str] | StatedRange | None,
        Doc("the stated figure: a number, a range {low, high}, text, a list, a boolean, or a "
            "relation in words (null: none, an observation)"),
    ]
    stated_display: str | None
    measured: Required[Annotated[Any, Doc(
        "any JSON value the probe produced ({lo, hi} when computed from printed figures)")]]
    measured_display: str
    unit: str | None
    tolerance: Annotated[str | None, Doc(
        "the accepted deviation in words (printed precision, or the catalog's justified "
        "tolerance)")]
    expected_interval: Annotated[IntervalRecord, Doc("the values the stated figure admits")]
    holds: Required[bool]
    compared: Annotated[bool, Doc(
        "false: recorded for context or not judged, so it cannot decide the check")]
    applicable: Annotated[bool, Doc("false: stated for another model or machine profile")]
    matches: Annotated[bool, Doc(
        "a figure of the author's own run (particular): whether this run matches it, not judged")]
    stated_for: StatedFor
    note: str
    non_finite: Annotated[bool, Doc(
        "the probe produced NaN or an infinity: the check is an error")]


class Attachment(TypedDict):
    """Raw evidence a check kept (an HTTP exchange, command output), cut at 8,000 characters."""

    label: str
    kind: str
    content: str
    truncated: NotRequired[bool]  # the suite writes it; a hand-made record may leave it out


class Chart(TypedDict):
    """Data the report plots (kinds and row keys: claims.check.Check.chart)."""

    kind: str
    title: str | None
    rows: list[dict[str, Any]]


class Premise(TypedDict):
    """A stated figure the check computed with rather than compared (Check.premise)."""

    claim: str
    name: str
    stated_display: str


class CheckRecord(TypedDict, total=False):
    """One test's evidence for a claim: how it ended, its verdict, and what it measured.

    ``verdict`` is the one its check decided; a claim's verdict is ranked from these.
    ``claim`` names the claim only on an entry of ``unknown_claim_checks`` (a claim
    the catalog does not hold).
    """

    nodeid: Required[str]
    claim: Annotated[str, Doc(
        "only on an entry of unknown_claim_checks: the claim the catalog does not hold")]
    outcome: Required[Outcome]
    verdict: Required[Annotated[Verdict, Doc(
        "the verdict its check decided (claims.verdicts); the claim's verdict is ranked from "
        "these")]]
    failure: Annotated[Failure, Doc("why it failed or erred")]
    status: Annotated[SkipStatus, Doc("a skip's kind")]
    source: Required[SourceName]
    duration_s: float
    message: str | None
    tiers: list[str]
    applies_to: Annotated[StatedFor, Doc(
        "a not-applicable check: what its figures were stated for")]
    simulated: Annotated[bool, Doc(
        "true when this live check ran through a fake (claims.simulation); never reproduced")]
    simulated_conclusion: Annotated[Verdict, Doc(
        "the verdict the check reached through the fake, before a simulated run's reproduced "
        "became not-run (for the instrument's own tests)")]
    measurements: Required[list[Measurement]]
    attachments: list[Attachment]
    facts: Annotated[dict[str, Any], Doc(
        "facts about the machine or model under test (digests, versions)")]
    notes: list[str]
    charts: list[Chart]
    premises: list[Premise]


class PendingCheck(CheckRecord, total=False):
    """A check record on its way from a test's report to the writer (not in evidence.json):
    the claims it serves and the phase that reported it, taken off before it is logged."""

    claims: list[str]
    when: Phase


class ErratumRecord(TypedDict):
    """The catalog's known erratum of a claim: why it is wrong, and which figures it refutes
    (none: the claim as a whole)."""

    explanation: str
    refutes: list[str]


class StatedFigureRecord(TypedDict, total=False):
    """A figure as the catalog states it, and how it is judged (``form``; absent in evidence
    written before forms: judged as its kind's default). Written by
    claims.catalog.records.StatedFigure.to_json."""

    name: Required[str]
    kind: Required[Literal["number", "range", "text", "list", "bool"]]
    display: Required[str]
    text: str
    unit: str
    low: str
    high: str
    values: list[str]
    flag: bool
    model: str
    profile: str
    note: str
    tolerance: str
    tolerance_reason: str
    particular: str
    form: Literal[
        "equal", "at-most", "at-least", "range", "ratio", "true", "one-of", "list", "text"
    ]
    of: str
    reading: str
    source: str


class ClaimRecord(TypedDict, total=False):
    """One catalog claim with the verdict this run gives it, the reason, and its checks."""

    id: Required[Annotated[str, Doc(pattern=r"^[A-Z0-9]+(-[A-Z0-9_]+)+$")]]
    document: Required[str]
    document_title: str
    section: Required[str]
    statement: Required[str]
    tiers: Required[list[str]]
    testable: Required[bool]
    untestable_reason: str | None
    profile: Annotated[str | None, Doc("the machine profile the claim is about, if one")]
    stated: list[StatedFigureRecord]
    erratum: ErratumRecord | None
    note: str | None
    verdict: Required[Verdict]
    reason: Annotated[str | None, Doc("why not run / not applicable / refuted, in one line")]
    checks: Required[list[CheckRecord]]


class DocumentRecord(TypedDict):
    """A write-up the catalog covers: its title, date, seed files and sections in order."""

    id: str
    title: str
    published: str | None
    seeds: list[str]
    sections: list[str]


class RunnerBuildRecord(TypedDict):
    """The llama.cpp build an Ollama server's runner was made from."""

    build: Annotated[int, Doc("the bNNNN of llama.cpp's release tags")]
    commit: Annotated[str, Doc(pattern="^[0-9a-f]{6,40}$")]
    label: Annotated[str, Doc("b<build> (<commit>)")]
    source: Literal["runner start line", "llama-server --version", "build info line"]


class OllamaServer(TypedDict):
    """The Ollama server the ollama tier measured (from the checks' facts)."""

    version: Annotated[str | None, Doc("what /api/version answered")]
    host: str | None
    remote: NotRequired[Annotated[bool, Doc(
        "another machine's server: its figures are that machine's")]]
    # Not in evidence written before the suite read runner builds (issue 20).
    runner_build: NotRequired[Annotated[RunnerBuildRecord | str | None, Doc(
        "its runner's llama.cpp build, or a string saying why it is not known")]]
    versions: NotRequired[Annotated[list[str], Doc(
        "only when /api/version changed during the run: every version its checks ran against, "
        "first seen first", min_items=2)]]


class Gpu(TypedDict, total=False):
    """nvidia-smi's view of the GPUs: one row per device, the driver and its CUDA ceiling."""

    devices: Required[Annotated[list[dict[str, str]], Doc(
        "one nvidia-smi row per GPU: its query fields")]]
    count: Required[int]
    driver_version: str | None
    cuda_version: str | None
    problem: Annotated[str, Doc("why the driver and CUDA version are missing")]


class Machine(TypedDict, total=False):
    """The machine fingerprint (claims.probes.machine.system.fingerprint)."""

    os: Required[str]
    arch: Required[str]
    kernel: str
    cpu: Required[str]
    cpu_count: int
    memory_bytes: Required[int]
    python: Required[str]
    hostname: str
    gpu: Annotated[Gpu | None, Doc(
        "nvidia-smi's view of the GPUs (null: no nvidia-smi, or it listed none)")]
    torch: str | None
    ollama: Annotated[OllamaServer | None, Doc(
        "the Ollama server the ollama tier measured (from the run's facts)")]
    packages: Annotated[dict[str, str | None], Doc(
        "versions of the packages the probes use (null: not installed)")]


class Options(TypedDict, total=False):
    """The run's options (claims.plugin.options.Settings.to_json; claims.plugin.serve adds
    ``ollama_serve`` and ``user_ollama_host`` when the suite starts its own servers)."""

    ollama_host: str
    ollama_remote: bool
    ollama_model: str
    ollama_embed_model: str
    ollama_tools_model: str | None
    ollama_timeout: float
    ollama_budget: float
    models_dir: str | None
    engine_model: str | None
    profile_option: str
    require_live: bool
    allow_unload: bool
    allow_pull: bool
    allow_create: bool
    claim_ids: list[str]
    catalog_paths: list[str]
    documents_dir: str | None
    ollama_serve: Annotated[str, Doc(
        "--ollama-serve: the ollama binary the suite started its own servers from")]
    user_ollama_host: Annotated[str, Doc(
        "--ollama-serve: the host the user named, which the private servers replaced")]
    user_models_dir: Annotated[str | None, Doc(
        "--ollama-serve: the store the user named (models_dir is then the private server's own)")]


class ProfileChoiceRecord(TypedDict):
    """How the machine profile was chosen (claims.profiles.ProfileChoice.to_json)."""

    name: str
    option: str
    reason: str
    detection_failed: bool


class Suite(TypedDict):
    """What judged the run: the suite's version, its git commit (null outside a checkout) and a
    SHA-256 of the catalog as loaded."""

    version: str | None
    git_commit: str | None
    git_dirty: Annotated[bool | None, Doc("tracked files differed from the commit")]
    catalog_sha256: Annotated[str, Doc(pattern="^[0-9a-f]{64}$")]


class PytestOutcome(TypedDict):
    """pytest's own counts and exit status for the session (None counts: no terminal)."""

    exit_status: int
    meaning: str
    counts: dict[str, int] | None


class Interrupted(TypedDict, total=False):
    """Who stopped the run (a signal or Ctrl-C), and the test it stopped, with its time."""

    by: Required[Annotated[str, Doc("the signal, or Ctrl-C")]]
    test: str
    test_seconds: float


class TierState(TypedDict):
    """What a tier's detector found (claims.tiers), with the details each tier's detector adds."""

    available: bool
    reason: str | None
    stopped: NotRequired[Annotated[str, Doc(
        "why the tier was stopped during the run (its server stopped answering)")]]
    version: NotRequired[Annotated[str, Doc("ollama: what /api/version answered")]]
    host: NotRequired[Annotated[str, Doc("ollama: the server's address")]]
    server: NotRequired[Annotated[Literal["user's", "private"], Doc(
        "ollama: the user's server or the suite's own (--ollama-serve)")]]
    remote: NotRequired[Annotated[bool, Doc("ollama: another machine's server")]]
    torch: NotRequired[Annotated[str, Doc("gpu: torch's version")]]
    cuda: NotRequired[Annotated[str | None, Doc("gpu: the CUDA torch was built with")]]
    model_path: NotRequired[Annotated[str, Doc("engine: the model file")]]
    model: NotRequired[Annotated[str, Doc("engine: the model's name")]]
    model_source: NotRequired[Annotated[str, Doc("engine: where the model file came from")]]
    llama_cpp: NotRequired[Annotated[str, Doc("engine: llama-cpp-python's version")]]


class ManifestCheck(TypedDict):
    """The transcribed fixtures checked against their SHA-256 manifest."""

    manifest: str
    checked: int
    problems: list[dict[str, str]]


class Transcription(TypedDict, total=False):
    """Whether the transcribed values were found where their anchors say in the documents."""

    ran: Required[bool]
    reason: str
    documents_dir: str
    documents: list[dict[str, str]]
    values: int
    misplaced: list[dict[str, str]]


class AccountedDocument(TypedDict):
    """One document's printed figures by how they are accounted for (claims coverage)."""

    id: str
    printed: int
    judged: int
    recorded: int
    untestable: NotRequired[Annotated[int, Doc(
        "stated only by claims the catalog marks untestable (absent in evidence written "
        "before this count)")]]
    excluded: int
    unaccounted: int
    percent: Annotated[float, Doc("accounted share, rounded down to 0.01 (100: every one)")]


class UnaccountedFigure(TypedDict):
    """A printed figure no claim judges, no value records and no ledger entry excludes."""

    document: str
    file: str
    line: Annotated[int, Doc("1-based line in the file")]
    column: Annotated[int, Doc("1-based character in the line")]
    text: Annotated[str, Doc("the figure as printed (the document's text: untrusted)")]


class AccountingRecord(TypedDict, total=False):
    """Every figure the named documents print, accounted for (claims.text.measure)."""

    ran: Required[bool]
    reason: Annotated[str, Doc("why it did not run (no documents, a bad ledger entry ...)")]
    documents: list[AccountedDocument]
    unaccounted: Annotated[list[UnaccountedFigure], Doc(
        "the first unaccounted figures of each document (at most ten each)")]
    pages: Annotated[str | None, Doc(
        "the annotated documents' index, relative to the report (null: not written)")]


class Inputs(TypedDict):
    """What the transcribed figures were checked against (claims.plugin.inputs)."""

    manifest: Annotated[ManifestCheck | None, Doc(
        "the fixtures against their SHA-256 manifest (null: no fixtures)")]
    transcription: Transcription
    accounting: NotRequired[AccountingRecord]


class Run(TypedDict, total=False):
    """One pytest session: when, what was asked, on which machine, and how it ended."""

    started: Required[Annotated[str, Doc("ISO 8601 with timezone")]]
    finished: Required[str]
    markexpr: Required[Annotated[str, Doc("the -m expression, empty if none")]]
    profile: Required[str]
    profile_choice: ProfileChoiceRecord
    simulated: Annotated[list[str], Doc(
        "the fakes this run measured through (claims.simulation); empty or absent for a real run")]
    machine: Required[Machine]
    options: Required[Options]
    complete: Required[Annotated[bool, Doc("false when the run was interrupted")]]
    args: Annotated[list[str], Doc("pytest's arguments, credentials redacted")]
    inputs: Inputs | None
    suite: Suite
    facts: Annotated[dict[str, Any], Doc("facts the checks recorded (digests, versions), merged")]
    tier_status: Annotated[dict[str, TierState], Doc("what each tier's detector found")]
    interrupted: Interrupted
    pytest: PytestOutcome


class Summary(TypedDict, total=False):
    """Claims per verdict, overall and per document."""

    by_verdict: Required[dict[str, int]]
    by_document: dict[str, dict[str, int]]


class Evidence(TypedDict, total=False):
    """The whole evidence document of one run."""

    schema: Required[SchemaName]
    run: Required[Run]
    documents: list[DocumentRecord]
    claims: Required[list[ClaimRecord]]
    summary: Required[Summary]
    unknown_claim_checks: Annotated[list[CheckRecord], Doc(
        "checks of claims the catalog does not hold")]
    audit: Annotated[dict[str, Any], Doc(
        "what `claims audit` found, when its result lies beside the evidence "
        "(claims.inputs.audit_result.load_summary)")]


# --- what `claims diff --json` prints (claims.report.diff.diff_evidence) -------------------
class VerdictChange(TypedDict):
    """A claim whose verdict differs between the two runs, and how the change reads."""

    id: str
    document: str
    section: str
    statement: str
    a: str
    b: str
    kind: str  # regression, improvement, no longer checked, newly checked, weaker evidence...
    reason_a: str | None
    reason_b: str | None


class MeasuredOnce(TypedDict):
    """A compared measurement one run made and the other did not."""

    claim: str
    nodeid: str
    name: str
    display: str
    holds: bool
    source: SourceName


class MovedFigure(TypedDict):
    """The same measurement of the same test with a different value in each run."""

    claim: str
    nodeid: str
    name: str
    unit: str | None
    a: Any
    b: Any
    a_display: str
    b_display: str
    relative_change: float | None
    holds_a: bool
    holds_b: bool
    source_a: SourceName
    source_b: SourceName


class FieldDifference(TypedDict):
    """A machine fingerprint field or run option whose value differs."""

    field: str
    a: str
    b: str


class RunSummary(TypedDict):
    """One side of a diff: when it ran, what it selected, and its verdict counts."""

    label: str
    started: str
    finished: str
    complete: bool
    markexpr: str
    profile: str
    claims: int
    by_verdict: dict[str, int]


class DocumentRow(TypedDict):
    """Per document: its claims and verdict counts in each run, and how many changed."""

    id: str
    title: str
    claims_a: int
    claims_b: int
    a: dict[str, int]
    b: dict[str, int]
    changed: int
    regressions: int


class DiffResult(TypedDict):
    """What differs between two runs (claims.report.diff's docstring says what each key means)."""

    labels: list[str]
    runs: list[RunSummary]
    documents: list[DocumentRow]
    verdict_changes: list[VerdictChange]
    regressions: list[VerdictChange]
    moved_figures: list[MovedFigure]
    measurements_only_in_a: list[MeasuredOnce]
    measurements_only_in_b: list[MeasuredOnce]
    context_changes: list[MovedFigure]
    machine_differences: list[FieldDifference]
    option_differences: list[FieldDifference]
    only_in_a: list[str]
    only_in_b: list[str]
    identical: bool


# The records that are not evidence: a check record in transit, and a diff's result.
NOT_EVIDENCE: tuple[type, ...] = (
    PendingCheck, VerdictChange, MeasuredOnce, MovedFigure, FieldDifference, RunSummary,
    DocumentRow, DiffResult,
)

