"""claims.tiers: the one table of tiers, and everything that derives from it.

The schema's tier enum, generated from the table (claims.contract), must agree with
it; a tier added to the table alone must reach every consumer: the markers pytest
knows, the tier names the catalog accepts, the socket guard, the check's source,
"not run" with the detector's reason, the report's hints and its order.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import pytest

from claims.catalog import CatalogError, load_catalog, load_document
from claims.evidence import EvidenceLog, schema
from claims.probes.live.loopback import LOOPBACK_HOSTS as LOOPBACK
from claims.report.hints import run_hint
from claims.report.view import build_view
from claims.testing.evidence import minimal_run
from claims.tiers import OFFLINE, TIERS, PrivateServers, Tier, TierStatus


@dataclass(frozen=True)
class FakeSettings:
    ollama_host: str = "http://192.0.2.7:11434"
    engine_model: str | None = None
    models_dir: str | None = None
    markexpr: str = ""
    ollama_serve: PrivateServers | None = None
    ollama_auth: tuple[str, str] | None = None
    ollama_remote: bool = False
    ollama_timeout: float = 120.0

    def asks_for(self, tier: str) -> bool:
        return tier in self.markexpr.split()


def test_the_evidence_schema_lists_exactly_the_tables_tiers():
    claim = schema()["$defs"]["ClaimRecord"]["properties"]
    assert claim["tiers"]["items"]["enum"] == list(TIERS.names())


def test_offline_is_the_only_tier_that_measures_no_live_system():
    assert [t for t in TIERS if not t.live] == [OFFLINE]
    assert OFFLINE.name == "offline"  # the marker the README and the scripts select
    assert TIERS.live() == ("engine", "ollama", "gpu", "hub")
    assert TIERS.spoken() == "offline, engine, ollama, gpu or hub"


def test_each_tier_reaches_only_its_hosts():
    settings = FakeSettings()
    assert TIERS.allowed_hosts([], settings) == LOOPBACK
    for tier in ("offline", "engine", "gpu"):
        assert TIERS.allowed_hosts([tier], settings) == LOOPBACK
    assert TIERS.allowed_hosts(["offline", "ollama"], settings) == (*LOOPBACK, "192.0.2.7")
    ipv6 = FakeSettings(ollama_host="http://[::1]:11434")
    assert TIERS.allowed_hosts(["ollama"], ipv6) == LOOPBACK
    # The Hub's hosts (huggingface.co and its CDN) are not a fixed list: no guard.
    assert TIERS.allowed_hosts(["offline", "hub"], settings) is None


def test_an_unknown_tier_is_named_with_the_known_ones():
    with pytest.raises(KeyError, match=r"unknown tier 'tpu'.*offline, engine"):
        TIERS["tpu"]
    assert TIERS.order("tpu") == len(TIERS.names())
    assert not TIERS.is_live("tpu")


# --- a new tier, added to the table and nowhere else -----------------------------------

TPU_CATALOG = """
[document]
id = "T9"
title = "A document about a new kind of machine"
seeds = []
sections = ["Chips"]

[[claim]]
id = "T9-TPU"
section = "Chips"
statement = "The chip has eight cores."
tiers = ["offline", "tpu"]
stated = [{ name = "cores", value = "8" }]

[[claim]]
id = "T9-HUB"
section = "Chips"
statement = "The Hub lists the chip."
tiers = ["hub"]
testable = false
untestable_reason = "an example"
"""

TPU_TEST = """
import pytest

@pytest.mark.tpu
@pytest.mark.claim("T9-TPU")
def test_cores(check, request):
    (hosts,) = request.node.get_closest_marker("allow_hosts").args
    assert "tpu.example" in hosts
    check.against("cores", 8)
"""


@pytest.fixture
def tpu(monkeypatch: pytest.MonkeyPatch) -> dict[str, bool]:
    """The table with a "tpu" tier appended, whose detector answers ``state["available"]``."""
    state = {"available": False}

    def detect(_settings: object) -> TierStatus:
        if state["available"]:
            return TierStatus(True, details={"chip": "v9"})
        return TierStatus(False, "no TPU on this machine (looked in /dev/tpu*)")

    tier = Tier(
        name="tpu",
        marker="needs a TPU",
        live=True,
        detect=detect,
        hint="run pytest -m tpu on a machine with a TPU",
        hosts=lambda _settings: ("tpu.example",),
    )
    monkeypatch.setattr(TIERS, "records", (*TIERS.records, tier))
    return state


def test_the_catalog_accepts_the_new_tier(tpu, tmp_path):
    doc = load_document(tmp_path / "T9.toml", TPU_CATALOG)
    assert doc.claims[0].tiers == ("offline", "tpu")
    with pytest.raises(CatalogError, match=r"bad tier 'npu' \(known: .*, hub, tpu\)"):
        load_document(tmp_path / "T9.toml", TPU_CATALOG.replace('"tpu"]', '"npu"]'))


def test_the_report_hints_at_the_new_tier_and_orders_it_last(tpu, tmp_path):
    assert run_hint(["offline", "tpu"], "no TPU") == "run pytest -m tpu on a machine with a TPU"
    assert run_hint(["tpu"], "torch is not installed").endswith("then run pytest -m tpu")
    (tmp_path / "T9.toml").write_text(TPU_CATALOG, encoding="utf-8")
    catalog = load_catalog([tmp_path / "T9.toml"])
    # A run the schema accepts: the report reads what the schema requires (claims.records).
    run = minimal_run("", complete=True)
    evidence = json.loads(json.dumps(EvidenceLog(catalog, run).document(complete=True)))
    assert build_view(evidence)["all_tiers"] == ["offline", "hub", "tpu"]


def test_the_plugin_registers_detects_and_guards_the_new_tier(tpu, pytester):
    catalog = pytester.path / "catalog"
    catalog.mkdir()
    (catalog / "T9.toml").write_text(TPU_CATALOG, encoding="utf-8")
    pytester.makepyfile(TPU_TEST)
    args = ["-p", "claims.plugin", "-p", "no:cacheprovider", "--strict-markers",
            f"--claims-catalog={catalog}", "--claims-profile=generic"]

    result = pytester.runpytest(*args, "--markers")
    result.stdout.fnmatch_lines(["@pytest.mark.tpu: needs a TPU"])

    result = pytester.runpytest(*args, "-rs")
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(["*not run: no TPU on this machine (looked in /dev/tpu*)"])
    evidence = json.loads((pytester.path / "reports" / "evidence.json").read_text("utf-8"))
    (claim,) = [c for c in evidence["claims"] if c["id"] == "T9-TPU"]
    assert claim["verdict"] == "not-run"
    assert claim["checks"][0]["tiers"] == ["tpu"]
    assert evidence["run"]["tier_status"]["tpu"]["available"] is False

    result = pytester.runpytest(*args, "--claims-require-live")
    result.assert_outcomes(errors=1)  # failed in setup
    result.stdout.fnmatch_lines(["*--claims-require-live: not run: no TPU on this machine*"])

    tpu["available"] = True
    # The certification above keeps reports/ (claims.plugin.destination): this run's
    # evidence is named.
    result = pytester.runpytest(*args, f"--claims-evidence={pytester.path / 'last.json'}")
    result.assert_outcomes(passed=1)
    evidence = json.loads((pytester.path / "last.json").read_text("utf-8"))
    (claim,) = [c for c in evidence["claims"] if c["id"] == "T9-TPU"]
    (check,) = claim["checks"]
    assert check["source"] == "live"
    assert claim["verdict"] == "reproduced"
    assert evidence["run"]["tier_status"]["tpu"] == {"available": True, "reason": None,
                                                     "chip": "v9"}


def test_the_hub_tier_is_not_probed_unless_asked_for_by_name(monkeypatch):
    # The hub's detector reaches huggingface.co: only an expression that names the
    # tier and keeps its tests (pytest's reading, Settings.asks_for) may start it.
    import httpx

    from claims.plugin.options import Settings

    def no_network(*_: object, **__: object) -> None:
        raise AssertionError("the hub tier was probed")

    monkeypatch.setattr(httpx, "head", no_network)
    hub = TIERS["hub"]
    for markexpr in ("offline and not (hub)", "offline or not  hub", "not offline", ""):
        settings = Settings.__new__(Settings)
        object.__setattr__(settings, "markexpr", markexpr)
        status = hub.detect(settings)
        assert not status.available and "select it explicitly with -m hub" in status.reason
