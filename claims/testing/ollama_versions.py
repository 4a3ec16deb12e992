"""The real Ollama releases the fakes can answer as, and what differs between them.

Each :class:`OllamaRelease` holds what a fake needs to imitate one release and
nothing it could guess: every field is read from that release's recordings,
``fixtures/ollama-<version>/`` (their README has the differences table). The native
API answered alike on 0.31.2 and 0.32.15 (same fields, error texts, status codes);
what differs is the version string, the runner's llama.cpp build and how it prints
it, the runner's command line, the ``source=`` file:line of the server's log lines,
the config blob ``ollama create`` writes, the last delta of an OpenAI-style stream
and the load_duration a loaded model reports.

A fake picks its release by name: ``FakeOllama(behaves_as=...)``, or for the fake
``ollama`` executable ``$FAKE_OLLAMA_VERSION`` (``write_executable(...,
version=...)`` sets it). Without one it is :data:`DEFAULT_RELEASE`, the release
the documents' claims were first checked on.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["DEFAULT_RELEASE", "ENV", "RELEASES", "OllamaRelease", "release"]

ENV = "FAKE_OLLAMA_VERSION"  # the fake executable's switch (claims.testing.fake_ollama_serve)


@dataclass(frozen=True)
class OllamaRelease:
    """One real Ollama release as its recordings show it."""

    version: str  # /api/version, `ollama --version`, the "Listening on" line
    llama_cpp_build: int  # the bundled llama-server's llama.cpp build number
    llama_cpp_commit: str  # as the runner's start-up line prints it (its --version is shorter)
    runner_version_text: str  # what `llama-server --version` prints (cli/runner-version.txt)
    # The runner's command line between --no-log-timestamps and --flash-attn: how the
    # model file is read on a machine without GPUs (mmap is off on CPU in both).
    load_flags: tuple[str, ...]
    # source= of the log lines the fakes print (cli/serve-start.log).
    source_config: str
    source_listening: str
    source_blobs: str
    source_default_ctx: str
    source_runner_gone: str  # "llama-server process no longer running" (a killed runner)
    # The median load_duration of a request to an already loaded model in the
    # recordings (10-25): 0.31.2 spends about a quarter second there, 0.32.15 none.
    warm_load_duration_s: float
    # /v1/chat/completions streams: the chunk carrying finish_reason has an empty
    # delta on 0.32.15, the role and an empty content on 0.31.2 (29-openai-chat-stream).
    openai_finish_delta_empty: bool
    # Right after the reply to keep_alive 0, /api/ps still lists the model, expiring at
    # that moment, until its runner is gone (0.31.2, for some tens of ms); 0.32.15's next
    # /api/ps lists none (private-server/unload-and-24h.json of each).
    ps_lists_unloading: bool
    # The config blob `ollama create` writes names the weights layer (rootfs.diff_ids,
    # 270 B for gemma3:270m) on 0.31.2; 0.32.15's (156 B) names only format, family,
    # size and quantization, so two models of one family share it (store/ of each).
    config_names_weights: bool

    @property
    def recordings(self) -> str:
        """The fixtures folder holding this release's recordings."""
        return f"ollama-{self.version}"

    @property
    def runner_build_line(self) -> str:
        """The line llama-server logs when it starts (serve-log-excerpt.txt of each release)."""
        return (
            f"cmn  common_param: common_params_print_info: build {self.llama_cpp_build} "
            f"({self.llama_cpp_commit}) with GNU 12.2.0 for Linux x86_64"
        )


RELEASES: dict[str, OllamaRelease] = {
    r.version: r
    for r in (
        OllamaRelease(
            version="0.31.2",
            llama_cpp_build=9888,
            llama_cpp_commit="cb295bf59",
            runner_version_text="version: 9888 (cb295bf)\nbuilt with GNU 12.2.0 for Linux x86_64\n",
            load_flags=("--no-mmap",),
            source_config="routes.go:1947",
            source_listening="routes.go:2004",
            source_blobs="images.go:883",
            source_default_ctx="routes.go:2054",
            source_runner_gone="llama_server.go:1149",
            warm_load_duration_s=0.28,
            openai_finish_delta_empty=False,
            ps_lists_unloading=True,
            config_names_weights=True,
        ),
        OllamaRelease(
            version="0.32.15",
            llama_cpp_build=10488,
            llama_cpp_commit="9d77fa1",
            runner_version_text=(
                "version: 0.1.2-dev (build 10488, commit 9d77fa1)\n"
                "built with GNU 12.2.0 for Linux x86_64\n"
            ),
            load_flags=("--load-mode", "none"),
            source_config="routes.go:1951",
            source_listening="routes.go:2008",
            source_blobs="images.go:919",
            source_default_ctx="routes.go:2058",
            source_runner_gone="llama_server.go:1196",
            warm_load_duration_s=0.0009,
            openai_finish_delta_empty=True,
            ps_lists_unloading=False,
            config_names_weights=False,
        ),
    )
}
DEFAULT_RELEASE = "0.31.2"


def release(version: str | None = None) -> OllamaRelease:
    """The recorded release ``version`` (None or empty: the default); ValueError if unknown."""
    name = (version or DEFAULT_RELEASE).strip()
    found = RELEASES.get(name)
    if found is None:
        known = ", ".join(sorted(RELEASES))
        raise ValueError(f"no recordings of Ollama {name!r} to imitate; recorded: {known}")
    return found
