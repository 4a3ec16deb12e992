"""The test tiers: one record per tier, and the table every other module reads.

A tier is what a claim test needs from the machine: nothing but files
(``offline``), llama.cpp and a GGUF file (``engine``), an Ollama server
(``ollama``), a CUDA GPU (``gpu``) or the Hugging Face Hub (``hub``). Each
:class:`Tier` record holds every fact about one tier:

* ``marker`` – the help text of its pytest marker (``pytest --markers``);
* ``live`` – whether its checks measure a live system (their source is "live")
  or bundled files ("fixture"), and whether the audit can rerun them offline;
* ``hosts`` – which hosts its tests may connect to (loopback only, loopback and
  the Ollama host, or anywhere);
* ``detect`` – how it finds out whether its prerequisites are present, with a
  reason a user can act on when they are not (run lazily, once per session, by
  :class:`claims.plugin.tiers.Tiers`);
* ``hint`` – what to type to get one of its checks run, shown beside a "not run"
  in the report (:mod:`claims.report.hints`).

Everything else derives from :data:`TIERS`: the markers the plugin registers,
the tier names the catalog accepts, the socket guard's allowed hosts, the
report's hints and its tier order, the audit's live tiers.

Adding a tier: write its :class:`Tier` record below and add it to :data:`TIERS`
(with a detector that names what is missing), add its name to the ``tiers`` enum of
``claims/schema/evidence.schema.json`` (the evidence contract;
``tests/test_tiers.py`` fails until the two agree), and write the tier's own
tests. No other module spells a tier's name: one that means a particular tier
reads it from the record (``OFFLINE.name``).
"""

from __future__ import annotations

import importlib.util
import shutil
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

from claims.probes.live.loopback import LOOPBACK_HOSTS
from claims.probes.live.ollama_settings import ClientSettings

__all__ = [
    "ENGINE",
    "GPU",
    "HUB",
    "OFFLINE",
    "OLLAMA",
    "TIERS",
    "PrivateServers",
    "Tier",
    "TierSettings",
    "TierStatus",
    "TierTable",
]

# The hub tier talks to the public Internet, so it runs only when asked for by name.
HUB_PROBE_URL = "https://huggingface.co/api/models/Qwen/Qwen2.5-3B-Instruct"


class PrivateServers(Protocol):
    """The suite's own Ollama servers (``--ollama-serve``, :mod:`claims.plugin.serve`)."""

    def use(self) -> object: ...


class TierSettings(ClientSettings, Protocol):
    """What the detectors and host rules read of a run's settings (claims.plugin.options):
    an Ollama client's (the ollama tier makes one), and these."""

    @property
    def ollama_remote(self) -> bool: ...
    @property
    def engine_model(self) -> str | None: ...
    @property
    def models_dir(self) -> str | None: ...
    def asks_for(self, tier: str) -> bool:
        """Whether the run's ``-m`` names ``tier`` and keeps a test of it alone."""
        ...
    @property
    def ollama_serve(self) -> PrivateServers | None: ...


@dataclass(frozen=True)
class TierStatus:
    """Whether a tier's prerequisites are present; if not, why (one line a user can act on)."""

    available: bool
    reason: str | None = None
    details: dict[str, Any] = field(default_factory=dict)


def _loopback_only(_: TierSettings) -> tuple[str, ...]:
    return ()


@dataclass(frozen=True)
class Tier:
    """Every fact about one tier (the module docstring says what each field is for)."""

    name: str
    marker: str
    live: bool
    detect: Callable[[TierSettings], TierStatus]
    hint: str
    # The hosts beyond loopback its tests may reach; None: any host (no socket guard).
    hosts: Callable[[TierSettings], tuple[str, ...]] | None = _loopback_only


class TierTable:
    """The tiers in their display order; every lookup reads ``records`` when called."""

    def __init__(self, records: Iterable[Tier]) -> None:
        self.records: tuple[Tier, ...] = tuple(records)

    def __iter__(self) -> Iterator[Tier]:
        return iter(self.records)

    def __contains__(self, name: object) -> bool:
        return any(t.name == name for t in self.records)

    def __getitem__(self, name: str) -> Tier:
        for tier in self.records:
            if tier.name == name:
                return tier
        raise KeyError(f"unknown tier {name!r} (known: {', '.join(self.names())})")

    def names(self) -> tuple[str, ...]:
        return tuple(t.name for t in self.records)

    def live(self) -> tuple[str, ...]:
        """The tiers whose checks measure a live system."""
        return tuple(t.name for t in self.records if t.live)

    def is_live(self, name: str) -> bool:
        """Whether ``name`` is a tier whose checks measure a live system (unknown: False)."""
        return name in self.live()

    def spoken(self) -> str:
        """The names as a sentence lists them: "offline, engine, ollama, gpu or hub"."""
        names = self.names()
        return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"

    def order(self, name: str) -> int:
        """A sort key: a tier's place in the table; a name the table lacks sorts last."""
        names = self.names()
        return names.index(name) if name in names else len(names)

    def allowed_hosts(
        self, tiers: Iterable[str], settings: TierSettings
    ) -> tuple[str, ...] | None:
        """The hosts a test of these tiers may connect to (None: any host).

        Loopback always; each tier adds its own hosts, and one tier that may
        reach any host lifts the limit for the test. Offline means offline.
        """
        hosts = list(LOOPBACK_HOSTS)
        for name in tiers:
            rule = self[name].hosts
            if rule is None:
                return None
            hosts.extend(h for h in rule(settings) if h not in hosts)
        return tuple(hosts)


def host_of(url: str) -> str:
    """The host part of a base URL ("http://[::1]:11434" -> "::1")."""
    from claims.probes.live.ollama_host import parse_host

    return parse_host(url).hostname


# --- detectors: is the tier's prerequisite present? ----------------------------------


def _offline(_: TierSettings) -> TierStatus:
    return TierStatus(True)


def _engine(settings: TierSettings) -> TierStatus:
    if importlib.util.find_spec("llama_cpp") is None:
        return TierStatus(
            False, "engine tier needs llama-cpp-python (pip install 'claims-suite[engine]')"
        )
    from claims.probes.errors import ProbeError

    try:
        # Installed is not enough: a wheel built for another CPU or a missing
        # runtime library fails only when libllama is loaded.
        from claims.probes.live.engine import llama_cpp_module

        llama = llama_cpp_module()
    except ProbeError as exc:
        return TierStatus(False, f"engine tier needs a working llama-cpp-python: {exc}")
    try:
        from claims.probes.live.engine.model_file import describe_engine_model

        model = describe_engine_model(settings.engine_model, settings.models_dir)
    except ProbeError as exc:
        return TierStatus(False, f"engine tier has no model file: {exc}")
    return TierStatus(True, details={"model_path": str(model.path), "model": model.name,
                                     "model_source": model.source,
                                     "llama_cpp": getattr(llama, "__version__", "unknown")})


def _ollama(settings: TierSettings) -> TierStatus:
    from claims.probes.errors import ProbeError
    from claims.probes.live.ollama_api.factory import client_from

    serve = settings.ollama_serve  # --ollama-serve: start the suite's own server
    if serve is not None:
        try:
            serve.use()
        except ProbeError as exc:
            return TierStatus(False, f"--ollama-serve: {exc}")
    try:
        # The user's --ollama-timeout, as every request of the tier (no limit of its own).
        with client_from(settings) as client:
            version = client.version()
    except ProbeError as exc:
        return TierStatus(False, f"no Ollama server at {settings.ollama_host} ({exc})")
    details: dict[str, Any] = {"version": version, "host": settings.ollama_host,
                               "server": "user's" if serve is None else "private"}
    if settings.ollama_remote:
        # Allowed (a Spark on the LAN is a real use), but never silently: the run
        # facts and the report say the figures come from another machine.
        details["remote"] = True
    return TierStatus(True, details=details)


def _gpu(_: TierSettings) -> TierStatus:
    if importlib.util.find_spec("torch") is None:
        return TierStatus(
            False, "gpu tier needs torch with CUDA (install a CUDA build of torch for this machine)"
        )
    if shutil.which("nvidia-smi") is None:
        # Name the torch build too (from metadata: no import), so one run tells
        # a user everything missing; a "+cpu" build needs replacing as well.
        from importlib.metadata import PackageNotFoundError, version

        try:
            build = version("torch")
        except PackageNotFoundError:
            build = "unknown version"
        return TierStatus(False, "gpu tier needs an NVIDIA driver: nvidia-smi is not on PATH "
                          f"(torch here: {build})")
    # Imported here: the plugin loads this module in every pytest run of a venv that has
    # the suite installed, and nvidia-smi's parsers are wanted only when the gpu tier is.
    from claims.probes.machine.nvidia import nvml_state

    # A driver NVML cannot reach (a version mismatch after an update, no devices) is named
    # with its remedy, before torch is asked anything.
    nvml = nvml_state()
    if not nvml.ok:
        return TierStatus(False, f"gpu tier needs a working NVIDIA driver: {nvml.reason}")
    from claims.probes.errors import PrerequisiteMissing
    from claims.probes.machine.torch_cuda import import_torch

    # A torch that is installed but does not import (a CUDA wheel missing one of its
    # libraries) makes the tier unavailable, naming the error: the gpu claims are skipped
    # with it and every other tier runs, instead of the run stopping here.
    try:
        torch = import_torch()
    except PrerequisiteMissing as exc:
        return TierStatus(False, f"gpu tier needs torch with CUDA: {exc}")
    if not torch.cuda.is_available():
        built = torch.version.cuda
        why = "was built without CUDA" if built is None else f"(CUDA {built}) sees no usable GPU"
        return TierStatus(False, f"torch {torch.__version__} {why}")
    return TierStatus(True, details={"torch": torch.__version__, "cuda": torch.version.cuda})


def _hub(settings: TierSettings) -> TierStatus:
    if not settings.asks_for("hub"):
        return TierStatus(
            False, "the hub tier reaches huggingface.co; select it explicitly with -m hub"
        )
    if importlib.util.find_spec("huggingface_hub") is None:
        return TierStatus(False, "hub tier needs huggingface_hub (pip install 'claims-suite[hub]')")
    import httpx

    try:
        resp = httpx.head(
            HUB_PROBE_URL, timeout=httpx.Timeout(10.0, connect=5.0), follow_redirects=True
        )
    except httpx.HTTPError as exc:
        reason = f"{type(exc).__name__}: {exc}"
        return TierStatus(False, f"the Hugging Face Hub cannot be reached ({reason})")
    if resp.status_code >= 500:
        return TierStatus(False, f"the Hugging Face Hub answered HTTP {resp.status_code}")
    return TierStatus(True)


def _ollama_host(settings: TierSettings) -> tuple[str, ...]:
    return (host_of(settings.ollama_host),)


# --- the table -----------------------------------------------------------------------
# Each record is also a name of its own, so a module that means one tier
# (the audit's offline reruns, the ollama tier's server facts) reads its name
# from the record: a misspelt tier is an ImportError, not a tier nobody has.

OFFLINE = Tier(
    name="offline",
    marker="needs nothing beyond installed packages and files on disk (CI tier)",
    live=False,
    detect=_offline,
    hint="run pytest -m offline",
)
ENGINE = Tier(
    name="engine",
    marker="needs llama-cpp-python and a GGUF model file (llama.cpp on this machine)",
    live=True,
    detect=_engine,
    hint="install the engine extra (pip install '.[engine]', llama-cpp-python) and run "
    "pytest -m engine; --claims-engine-model PATH picks another GGUF",
)
OLLAMA = Tier(
    name="ollama",
    marker="needs a reachable Ollama server (--ollama-host) and its model (--ollama-model)",
    live=True,
    detect=_ollama,
    hint="start an Ollama server with the model, then run pytest -m ollama "
    "--ollama-host URL --ollama-model NAME",
    hosts=_ollama_host,
)
GPU = Tier(
    name="gpu",
    marker="needs torch with CUDA and nvidia-smi",
    live=True,
    detect=_gpu,
    hint="run pytest -m gpu on a CUDA machine "
    "(NVIDIA driver with nvidia-smi and a CUDA build of torch)",
)
HUB = Tier(
    name="hub",
    marker="needs network access to the Hugging Face Hub (select explicitly with -m hub)",
    live=True,
    detect=_hub,
    hint="run pytest -m hub on a machine that can reach huggingface.co",
    hosts=None,  # huggingface.co and its CDN: no fixed list of hosts
)
TIERS = TierTable((OFFLINE, ENGINE, OLLAMA, GPU, HUB))
