"""Fixtures shared by the claim tests and the probes' own tests."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from claims.catalog import Catalog
from claims.testing import recordings
from claims.text.transcribed import recorded_data

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures"
# The doubles of claims.testing replay these recordings; they are told where, here and in
# every process a test starts (claims.testing.recordings).
recordings.use(FIXTURES)


@pytest.fixture(scope="session")
def recorded(catalog: Catalog) -> Callable[[str], dict[str, Any]]:
    """Figures a document reports, transcribed into fixtures/recorded/<DOC>.json.

    A value the catalog states too is named there, not copied
    (:mod:`claims.text.references`); it is read from the run's catalog at each call,
    so a figure the audit perturbs is perturbed here as well.
    """

    def load(doc_id: str) -> dict[str, Any]:
        return recorded_data(ROOT, doc_id, catalog)

    return load


@pytest.fixture(scope="session")
def gemma_gguf() -> Path:
    """The real Gemma 3 270M Q4_K_M GGUF from PyPI, assembled and verified once."""
    from claims.probes.files.artifacts import gemma_gguf as locate

    return locate()


@pytest.fixture
def make_gguf(tmp_path: Path) -> Callable[..., Path]:
    """Write a small GGUF with gguf.GGUFWriter: a few metadata keys and tensors."""
    import gguf
    import numpy as np

    def build(
        name: str = "tiny.gguf",
        arch: str = "llama",
        tensors: dict[str, Any] | None = None,
        metadata: dict[str, Any] | None = None,
        alignment: int | None = None,
        context_length: int = 128,
    ) -> Path:
        path = tmp_path / name
        writer = gguf.GGUFWriter(str(path), arch)
        if alignment is not None:
            writer.add_custom_alignment(alignment)
        writer.add_block_count(2)
        writer.add_context_length(context_length)
        for key, value in (metadata or {}).items():
            if isinstance(value, str):
                writer.add_string(key, value)
            elif isinstance(value, bool):
                writer.add_bool(key, value)
            elif isinstance(value, int):
                writer.add_uint32(key, value)
            elif isinstance(value, float):
                writer.add_float32(key, value)
            elif isinstance(value, list):
                writer.add_array(key, value)
        for tname, array in (
            tensors or {"weight": np.arange(64, dtype=np.float32).reshape(8, 8)}
        ).items():
            writer.add_tensor(tname, array)
        writer.write_header_to_file()
        writer.write_kv_data_to_file()
        writer.write_tensors_to_file()
        writer.close()
        return path

    return build


@pytest.fixture(scope="session")
def gguf_reference_gemma(gemma_gguf: Path) -> dict[str, Any]:
    """gguf.GGUFReader's reading of the Gemma file, timed, as plain values.

    GGUFReader needs about 9 s for this file (one numpy view per token string),
    so it runs once per session; the reader itself is dropped, only its answers
    and its time are kept (tests/probes/files/test_gguf_speed.py, test_gguf_file.py).
    """
    import time

    from claims.testing.gguf_corpus import reader_reference

    start = time.perf_counter()
    ref = reader_reference(gemma_gguf)
    ref["seconds"] = time.perf_counter() - start
    return ref


@pytest.fixture(scope="session")
def qwen_snapshot() -> Any:
    """The pinned Qwen2.5-3B-Instruct snapshot transcribed from Week 3 (fixtures/hub)."""
    from claims.probes.files import hf_repo

    return hf_repo.load_snapshot(hf_repo.snapshot_dir(FIXTURES / "hub"))


@pytest.fixture(scope="session")
def qwen_hub_files(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """hub tier: the small files and LICENSE, downloaded at the pinned revision."""
    from claims.probes.files import hf_repo

    cache = tmp_path_factory.mktemp("hf-cache")
    return hf_repo.download_files((*hf_repo.SMALL_FILES, "LICENSE"), cache)


@pytest.fixture(scope="session")
def qwen_hub_listing() -> Any:
    """hub tier: the Hub's file listing of the instruct repo at the pinned revision."""
    from claims.probes.files import hf_repo

    return hf_repo.fetch_listing(hf_repo.REPO_ID, hf_repo.REVISION)


# --- the Ollama store the store claims run on ------------------------------------------
class StoreUnderTest:
    """An Ollama store and where it came from.

    ``source`` is "live" for a real store named by --ollama-models-dir or $OLLAMA_MODELS and
    "fixture" for the store a real Ollama 0.31.2 wrote, recorded under
    fixtures/ollama-0.31.2/store with the bundled Gemma GGUF as its model blob (the
    ``store`` fixture declares the check's source from it); ``provenance`` says which,
    for the evidence.
    ``built`` is a store builder's record when the store was built by the suite.
    """

    def __init__(
        self, store: Any, source: str, built: Any = None, provenance: str | None = None
    ) -> None:
        self.store = store
        self.source = source
        self.built = built
        self.provenance = provenance or (
            "the user's own Ollama store" if source == "live" else "a store built by the suite"
        )

    @property
    def root(self) -> Path:
        return Path(self.store.root)

    def subject(self, preferred: str) -> Any:
        """The manifest a claim is checked on: ``preferred`` (the documents' phi4 by
        default) when the store holds it; else the fixture's Gemma model, or in a
        real store the smallest model, so the general form is still checked."""
        from claims.testkit import model_matches

        manifests = self.store.manifests(strict=False)  # one bad file must not hide the rest
        for m in manifests:
            if model_matches(preferred, m.name.display):
                return m
        if self.built is not None:
            return self.store.manifest(self.built.base)
        if not manifests:
            from claims.testkit import not_run

            not_run(f"the Ollama store at {self.root} holds no models")
        return min(manifests, key=lambda m: m.total_size)


@pytest.fixture
def store(store_under_test: StoreUnderTest, check: Any) -> StoreUnderTest:
    """The store a claim test reads, its check's evidence source declared from it."""
    check.declare_source(store_under_test.source)
    return store_under_test


@pytest.fixture(scope="session")
def store_under_test(
    claims_settings: Any, tmp_path_factory: pytest.TempPathFactory
) -> StoreUnderTest:
    """The user's store when --ollama-models-dir or $OLLAMA_MODELS names one, else the store a real
    Ollama 0.31.2 wrote (fixtures/ollama-0.31.2/store)."""
    from claims.probes.errors import ProbeError
    from claims.probes.files.ollama_store import OllamaStore, locate_store
    from claims.testkit import not_run

    if claims_settings.models_dir:
        try:
            return StoreUnderTest(OllamaStore(locate_store(claims_settings.models_dir)), "live")
        except ProbeError as exc:
            not_run(
                f"the Ollama store given by --ollama-models-dir / $OLLAMA_MODELS is unusable: {exc}"
            )
    from claims.probes.files.artifacts import gemma_expected_sha256, gemma_gguf
    from claims.testing.recorded_store import PROVENANCE, assemble, recorded_store_dir

    try:
        gguf_path, sha = gemma_gguf(), gemma_expected_sha256()
    except ProbeError as exc:
        not_run(f"cannot assemble the recorded Ollama store: {exc}")
    # Not a store the suite builds: the one a real Ollama wrote (see its README).
    root = assemble(
        recorded_store_dir(), tmp_path_factory.mktemp("ollama-store"), gguf_path, sha
    )
    return StoreUnderTest(OllamaStore(root), "fixture", provenance=PROVENANCE)
