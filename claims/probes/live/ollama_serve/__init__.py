"""Private ``ollama serve`` processes the suite starts and owns (no pytest here).

The server-side claims of the masterclass (its environment variables, parallel
slots, resident models, runner isolation, default bind) can only be checked on
a server started with the settings in question, and some only by crashing its
runner. The suite does that to servers of its own, never to the user's:

* :mod:`.server` – one ``ollama serve`` process: start, readiness, stop, its log;
* :mod:`.session` – the servers of a session, one group of settings at a time;
* :mod:`.store` – the private model store (the user's blobs shared by hard link);
* :mod:`.environment` – the environment it gets and the settings it reports;
* :mod:`.build` – its runner's llama.cpp build, from its log or ``llama-server --version``;
* :mod:`.processes`, :mod:`.ports` – its runner children, free loopback ports;
* :mod:`.concurrency` – whether concurrent requests were served together;
* :mod:`.requests` – plain requests whose reply is the measurement (an ``Origin``'s
  status, a generation in flight).
"""

from __future__ import annotations

from claims.probes.live.ollama_serve.build import (
    RunnerBuild,
    parse_runner_build,
    runner_binary,
    runner_version,
)
from claims.probes.live.ollama_serve.concurrency import Span, concurrent_streams, max_overlap
from claims.probes.live.ollama_serve.environment import (
    CLAIM_VARIABLES,
    parse_server_config,
    server_environment,
)
from claims.probes.live.ollama_serve.errors import (
    PortInUse,
    ServeError,
    ServerExited,
    StartupTimeout,
)
from claims.probes.live.ollama_serve.ports import free_port, port_is_free
from claims.probes.live.ollama_serve.processes import (
    ChildProcess,
    Runner,
    children,
    flag_value,
    runner_form,
    runners,
)
from claims.probes.live.ollama_serve.requests import InFlight, origin_replies, version_status
from claims.probes.live.ollama_serve.server import OllamaServe, log_tail
from claims.probes.live.ollama_serve.session import (
    DEFAULT_GROUP,
    Group,
    PrivateServers,
    ServerRecord,
)
from claims.probes.live.ollama_serve.store import (
    SharedStore,
    import_gguf,
    rename_gguf,
    share_store,
    store_snapshot,
)

__all__ = [
    "CLAIM_VARIABLES",
    "DEFAULT_GROUP",
    "ChildProcess",
    "Group",
    "InFlight",
    "OllamaServe",
    "PortInUse",
    "PrivateServers",
    "Runner",
    "RunnerBuild",
    "ServeError",
    "ServerExited",
    "ServerRecord",
    "SharedStore",
    "Span",
    "StartupTimeout",
    "children",
    "concurrent_streams",
    "flag_value",
    "free_port",
    "import_gguf",
    "log_tail",
    "max_overlap",
    "origin_replies",
    "parse_runner_build",
    "parse_server_config",
    "port_is_free",
    "rename_gguf",
    "runner_binary",
    "runner_form",
    "runner_version",
    "runners",
    "server_environment",
    "share_store",
    "store_snapshot",
    "version_status",
]
