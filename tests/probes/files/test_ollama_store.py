"""Unit and property tests of the Ollama store probe (claims.probes.files.ollama_store)."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import string
from pathlib import Path, PurePosixPath

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from claims.probes.errors import InputError, PrerequisiteMissing
from claims.probes.files import ollama_store as osp
from claims.probes.files.ollama_store import (
    BlobMismatch,
    DigestError,
    ManifestError,
    MissingBlobError,
    ModelName,
    OllamaStore,
    StoreError,
    VerificationCache,
    human_bytes,
    locate_store,
    parse_manifest,
    store_candidates,
)
from claims.probes.files.ollama_store import verify as blob_verification
from claims.testing.store_builder import FixtureStore, StoreWriter, build_fixture_store

HEX = "0123456789abcdef"
hex64 = st.text(alphabet=HEX, min_size=64, max_size=64)


# --- names ------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "parts", "display"),
    [
        ("phi4", ("registry.ollama.ai", "library", "phi4", "latest"), "phi4:latest"),
        ("phi4:latest", ("registry.ollama.ai", "library", "phi4", "latest"), "phi4:latest"),
        ("llama3.2:3b", ("registry.ollama.ai", "library", "llama3.2", "3b"), "llama3.2:3b"),
        ("registry.ollama.ai/library/phi4:latest",
         ("registry.ollama.ai", "library", "phi4", "latest"), "phi4:latest"),
        ("user/model:tag", ("registry.ollama.ai", "user", "model", "tag"), "user/model:tag"),
        ("hf.co/bartowski/Qwen2.5-3B-GGUF:Q4_K_M",
         ("hf.co", "bartowski", "Qwen2.5-3B-GGUF", "Q4_K_M"),
         "hf.co/bartowski/Qwen2.5-3B-GGUF:Q4_K_M"),
        ("localhost:5000/team/m", ("localhost:5000", "team", "m", "latest"),
         "localhost:5000/team/m:latest"),
        ("https://registry.ollama.ai/library/qwen3.6:35b-a3b-bf16",
         ("registry.ollama.ai", "library", "qwen3.6", "35b-a3b-bf16"), "qwen3.6:35b-a3b-bf16"),
        ("nomic-embed-text:latest", ("registry.ollama.ai", "library", "nomic-embed-text", "latest"),
         "nomic-embed-text:latest"),
    ],
)
def test_name_parsing_fills_ollamas_defaults(
    text: str, parts: tuple[str, ...], display: str
) -> None:
    name = ModelName.parse(text)
    assert name.parts == parts
    assert name.display == display


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("", "empty"),
        ("phi4:", "tag '' is empty"),
        (":latest", "model '' is empty"),
        ("a/b/c/d", "more than host/namespace/model"),
        ("..", "contains '..'"),
        (".", "must start with"),
        ("../x", "namespace '..'"),
        ("a/../b", "namespace '..'"),
        ("x/..", "model '..'"),
        ("phi4:..", "tag '..'"),
        ("/etc/passwd", "host '' is empty"),
        ("a\\b", "may contain only"),
        ("phi 4", "may contain only"),
        ("phi4\x00", "may contain only"),
        ("my.team/m", "may contain only"),  # no dots in a namespace
        ("-m", "must start with"),
        ("m:" + "t" * 81, "longer than 80"),
        ("m" * 81, "longer than 80"),
        ("m@sha256-" + HEX * 4, "may contain only"),
    ],
)
def test_bad_names_are_refused_with_the_reason(text: str, why: str) -> None:
    with pytest.raises(StoreError) as info:
        ModelName.parse(text)
    assert info.value.field == "name"
    assert why in str(info.value)


def test_non_string_name_is_refused() -> None:
    with pytest.raises(StoreError, match="must be a string"):
        ModelName.parse(42)  # type: ignore[arg-type]


part_chars = string.ascii_letters + string.digits + "_-."
first_chars = string.ascii_letters + string.digits + "_"


def _part(alphabet: str, max_size: int) -> st.SearchStrategy[str]:
    return st.builds(
        lambda a, b: a + b,
        st.sampled_from(first_chars),
        st.text(alphabet=alphabet, max_size=max_size - 1),
    ).filter(lambda s: ".." not in s)


valid_names = st.tuples(
    _part(part_chars + ":", 40),
    _part(part_chars.replace(".", ""), 40),
    _part(part_chars, 40),
    _part(part_chars, 40),
)


@given(parts=valid_names)
def test_every_valid_name_round_trips_and_stays_in_manifests(
    parts: tuple[str, str, str, str],
) -> None:
    host, namespace, model, tag = parts
    name = ModelName.parse(f"{host}/{namespace}/{model}:{tag}")
    assert name.parts == parts
    assert ModelName.parse(name.full) == name
    assert ModelName.parse(name.display) == name
    rel = PurePosixPath(*name.parts)
    assert len(rel.parts) == 4 and ".." not in rel.parts and not rel.is_absolute()


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture], max_examples=300)
@given(text=st.text(max_size=60) | st.text(alphabet="./\\:ab", max_size=20))
def test_any_text_is_a_name_inside_the_store_or_refused(text: str, tmp_path: Path) -> None:
    (tmp_path / "manifests").mkdir(exist_ok=True)
    store = OllamaStore(tmp_path)
    try:
        path = store.manifest_path(text)
    except StoreError as exc:
        assert exc.field == "name"
        return
    rel = path.relative_to(store.manifests_dir)
    assert len(rel.parts) == 4
    assert ".." not in rel.parts and "." not in rel.parts
    assert os.path.normpath(path) == str(path)  # nothing for the OS to collapse


# --- digests and blob paths ----------------------------------------------------------
@given(hexdigits=hex64)
def test_blob_path_is_the_digest_with_a_hyphen_under_blobs(hexdigits: str) -> None:
    root = Path("/store")
    store = OllamaStore.__new__(OllamaStore)
    store.root = root  # path arithmetic only; nothing is opened
    assert store.blob_path(f"sha256:{hexdigits}") == root / "blobs" / f"sha256-{hexdigits}"
    # Ollama accepts upper-case hex; the file on disk is always lower case.
    assert store.blob_path(f"sha256:{hexdigits.upper()}").name == f"sha256-{hexdigits}"


@given(bad=st.text(max_size=80).filter(lambda s: osp.DIGEST_RE.fullmatch(s) is None))
def test_no_path_is_built_from_a_bad_digest(bad: str) -> None:
    store = OllamaStore.__new__(OllamaStore)
    store.root = Path("/store")
    with pytest.raises(DigestError):
        store.blob_path(bad)


# --- human-readable sizes, as `ollama list` prints them ------------------------------
@pytest.mark.parametrize(
    ("n", "shown"),
    [
        (0, "0 B"),
        (999, "999 B"),
        (1000, "1 KB"),
        (274_302_450, "274 MB"),  # nomic-embed-text's row in Week 2's `ollama list`
        (2_019_377_376 + 1_800, "2.0 GB"),  # llama3.2:3b (model layer + small layers)
        (9_053_114_464 + 275 + 1_084 + 82 + 489, "9.1 GB"),  # phi4: layers + a config blob
        (71_000_000_000, "71 GB"),
        (10**12, "1 TB"),
    ],
)
def test_human_bytes_matches_ollama_list(n: int, shown: str) -> None:
    assert human_bytes(n) == shown


# --- manifests ------------------------------------------------------------------------
def _manifest_doc() -> dict[str, object]:
    return {
        "schemaVersion": 2,
        "mediaType": osp.MANIFEST_MEDIA_TYPE,
        "config": {"mediaType": osp.CONFIG_MEDIA_TYPE, "digest": "sha256:" + HEX * 4, "size": 10},
        "layers": [
            {"mediaType": osp.MODEL_MEDIA_TYPE, "digest": "sha256:" + HEX[::-1] * 4,
             "size": 9053114464},
            {"mediaType": "application/vnd.ollama.image.template", "digest": "sha256:" + "a" * 64,
             "size": 275, "from": "phi4:latest"},
        ],
    }


def test_a_valid_manifest_parses() -> None:
    doc = parse_manifest(json.dumps(_manifest_doc()).encode(), "m")
    assert doc["schemaVersion"] == 2 and len(doc["layers"]) == 2


@settings(max_examples=300, deadline=None)
@given(data=st.binary(max_size=400))
def test_arbitrary_bytes_are_a_manifest_or_an_input_error(data: bytes) -> None:
    with contextlib.suppress(InputError):
        parse_manifest(data, "fuzz")


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=12), children, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(key=st.sampled_from(["schemaVersion", "mediaType", "config", "layers"]), value=json_values,
       layer_key=st.sampled_from(["mediaType", "digest", "size", "from"]), layer_value=json_values)
def test_mutated_manifests_are_valid_or_an_input_error(key: str, value: object, layer_key: str,
                                                       layer_value: object) -> None:
    doc = _manifest_doc()
    doc[key] = value
    layers = doc.get("layers")
    if isinstance(layers, list) and layers and isinstance(layers[0], dict):
        layers[0][layer_key] = layer_value
    try:
        parse_manifest(json.dumps(doc).encode(), "fuzz")
    except InputError as exc:
        assert "fuzz" in str(exc)


# --- the fixture store, read back ---------------------------------------------------------
@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory, gemma_gguf: Path) -> FixtureStore:
    from claims.probes.files.artifacts import gemma_expected_sha256

    return build_fixture_store(tmp_path_factory.mktemp("store"), gemma_gguf,
                               gemma_sha256=gemma_expected_sha256())


def test_listing_finds_every_manifest(built: FixtureStore) -> None:
    store = OllamaStore(built.root)
    assert sorted(store.names()) == sorted(ModelName.parse(n).display for n in built.names)


def test_manifest_facts(built: FixtureStore, gemma_gguf: Path) -> None:
    store = OllamaStore(built.root)
    m = store.manifest(built.base)
    data = m.path.read_bytes()
    assert m.digest == hashlib.sha256(data).hexdigest()
    assert m.id == m.digest[:12] and len(m.id) == 12
    assert m.total_size == sum(layer.size for layer in (m.config, *m.layers))
    assert [layer.kind for layer in m.layers] == ["model", "template", "license", "params"]
    assert store.model_blob_path(built.base).stat().st_size == gemma_gguf.stat().st_size
    assert store.layer_media_types(built.base)[0] == osp.MODEL_MEDIA_TYPE


def test_names_compare_case_insensitively(built: FixtureStore) -> None:
    store = OllamaStore(built.root)
    assert store.manifest("GEMMA3:270M").name.parts == ModelName.parse(built.base).parts


def test_derived_tag_shares_blobs(built: FixtureStore) -> None:
    store = OllamaStore(built.root)
    shared = store.shared_blobs()
    base, derived = store.manifest(built.base), store.manifest(built.derived)
    assert shared[built.model_digest] == sorted([base.name.display, derived.name.display])
    assert base.config.digest not in shared


def test_verification_passes_and_is_cached(built: FixtureStore) -> None:
    cache = VerificationCache()
    store = OllamaStore(built.root, cache=cache)
    first = store.verify(built.base)
    assert all(c.ok and not c.cached for c in first)
    second = store.verify(built.base)
    assert all(c.ok and c.cached for c in second)
    assert cache.hits == len(second)


def test_a_cached_result_costs_no_read(built: FixtureStore,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    store = OllamaStore(built.root, cache=VerificationCache())
    store.verify(built.base)

    def no_hashing(*args: object, **kwargs: object) -> str:
        raise AssertionError("hashed again")

    # Patched where the verification looks it up, not on the package's re-export.
    monkeypatch.setattr(blob_verification, "sha256_fd", no_hashing)
    assert all(c.cached for c in store.verify(built.base))


def _small_store(tmp_path: Path) -> tuple[OllamaStore, Path]:
    """A store holding m:latest, one 104-byte model blob; returns it and the blob's path."""
    w = StoreWriter(tmp_path / "s")
    model = w.blob_bytes(b"GGUF" + bytes(100), osp.MODEL_MEDIA_TYPE)
    w.model("m:latest", [model])
    return OllamaStore(w.root, cache=VerificationCache()), w.blob_path(model)


def _put_manifest(store: OllamaStore, name: str, data: bytes) -> None:
    """Write ``data``, byte for byte, as the manifest of ``name``."""
    StoreWriter(store.root).manifest_bytes(ModelName.parse(name), data)


def test_a_changed_blob_is_hashed_again(tmp_path: Path) -> None:
    store, blob = _small_store(tmp_path)
    assert all(c.ok for c in store.verify("m"))
    before = blob.stat().st_mtime_ns
    blob.write_bytes(b"GGUF" + b"\x01" + bytes(99))  # same size, other bytes
    os.utime(blob, ns=(before + 1_000_000, before + 1_000_000))  # even on a coarse-mtime FS
    with pytest.raises(BlobMismatch) as info:
        store.verify("m")
    assert info.value.field == "layers[0].digest"


def test_size_mismatch_is_a_verification_error(tmp_path: Path) -> None:
    store, blob = _small_store(tmp_path)
    blob.write_bytes(b"GGUF")
    check = store.check_blob(store.manifest("m").layers[0], verify=False)
    assert not check.size_ok and check.sha256 is None
    with pytest.raises(BlobMismatch, match="manifest says 104 bytes, the blob has 4"):
        check.raise_for_problem()


def test_missing_blob(tmp_path: Path) -> None:
    store, blob = _small_store(tmp_path)
    blob.unlink()
    with pytest.raises(MissingBlobError, match="is missing"):
        store.model_blob_path("m")


def test_hidden_and_misplaced_entries_are_ignored_not_fatal(tmp_path: Path) -> None:
    store, _ = _small_store(tmp_path)
    (store.manifests_dir / "registry.ollama.ai" / "library" / "m" / ".DS_Store").write_bytes(b"x")
    (store.manifests_dir / "stray.txt").write_text("x")
    (store.blobs_dir / ("sha256-" + HEX * 4 + "-partial")).write_bytes(b"")
    manifests, ignored = store.scan()
    assert [m.name.display for m in manifests] == ["m:latest"]
    assert sorted(ignored) == ["registry.ollama.ai/library/m/.DS_Store (not a valid model name)",
                               "stray.txt (file above the tag level)"]
    summary = osp.inspect(store.root)
    assert summary["blobs"]["other_entries"] == ["sha256-" + HEX * 4 + "-partial"]
    assert summary["problems"] == []


def test_lenient_scan_skips_a_bad_manifest_and_says_why(tmp_path: Path) -> None:
    store, _ = _small_store(tmp_path)
    _put_manifest(store, "bad:latest", b"{")
    with pytest.raises(ManifestError):
        store.scan()
    manifests, ignored = store.scan(strict=False)
    assert [m.name.display for m in manifests] == ["m:latest"]
    assert len(ignored) == 1
    assert ignored[0].startswith("registry.ollama.ai/library/bad/latest (")
    assert "not JSON" in ignored[0]


def test_unreferenced_blobs_are_reported(tmp_path: Path) -> None:
    store, _ = _small_store(tmp_path)
    orphan = StoreWriter(store.root).blob_bytes(b"orphan", "x")
    summary = osp.inspect(store.root)
    assert summary["blobs"]["unreferenced"] == [orphan.digest.replace(":", "-")]


def test_a_symlink_inside_the_store_is_followed(tmp_path: Path) -> None:
    store, blob = _small_store(tmp_path)
    real = store.root / "elsewhere-in-store.bin"
    blob.rename(real)
    blob.symlink_to(real)
    assert all(c.ok for c in store.verify("m"))


def test_manifest_is_read_with_a_size_cap(tmp_path: Path) -> None:
    store, _ = _small_store(tmp_path)
    _put_manifest(store, "big:latest", b" " * (osp.MAX_MANIFEST_BYTES + 1))
    with pytest.raises(ManifestError, match="limit"):
        store.manifest("big")


def test_store_root_problems(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="cannot open"):
        OllamaStore(tmp_path / "absent")
    (tmp_path / "file").write_text("x")
    with pytest.raises(StoreError, match="not a folder"):
        OllamaStore(tmp_path / "file")
    with pytest.raises(StoreError, match="no manifests/"):
        OllamaStore(tmp_path)


# --- discovery --------------------------------------------------------------------------
def test_discovery_order(tmp_path: Path) -> None:
    service, home = tmp_path / "service", tmp_path / "home"
    user = home / ".ollama" / "models"
    env: dict[str, str] = {}
    with pytest.raises(PrerequisiteMissing) as info:
        locate_store(None, env=env, home=home, service_store=service)
    assert str(service) in str(info.value) and str(user) in str(info.value)
    user.mkdir(parents=True)
    assert locate_store(None, env=env, home=home, service_store=service) == user
    service.mkdir()
    assert locate_store(None, env=env, home=home, service_store=service) == service
    custom = tmp_path / "custom"
    custom.mkdir()
    env["OLLAMA_MODELS"] = str(custom)
    assert locate_store(None, env=env, home=home, service_store=service) == custom
    option = tmp_path / "option"
    option.mkdir()
    assert locate_store(str(option), env=env, home=home, service_store=service) == option


def test_an_explicit_store_that_is_missing_is_not_replaced_by_another(tmp_path: Path) -> None:
    service = tmp_path / "service"
    service.mkdir()
    missing = str(tmp_path / "nope")
    for option, env in ((missing, {}), (None, {"OLLAMA_MODELS": missing})):
        with pytest.raises(PrerequisiteMissing, match="nope"):
            locate_store(option, env=env, home=tmp_path, service_store=service)


def test_default_candidates_are_the_documented_paths() -> None:
    labels = store_candidates(None, env={}, home=Path("/home/u"))
    assert labels == [("Linux service store", Path("/usr/share/ollama/.ollama/models")),
                      ("user store", Path("/home/u/.ollama/models"))]


# --- one name rule ----------------------------------------------------------------------
@given(st.text(alphabet="ab.:/_-A", max_size=24))
def test_the_validating_parser_is_the_comparing_rule_plus_checks(text: str) -> None:
    """ModelName.parse either refuses a name or returns what parse_name (Ollama's
    ParseName, which same_model and check.model_matches compare with) gives."""
    from claims.check import model_matches
    from claims.probes.files.ollama_store.names import model_key, parse_name, same_model

    try:
        name = ModelName.parse(text)
    except StoreError:
        return
    assert name == parse_name(text)
    assert name.key == model_key(text) == model_key(text.upper())
    assert same_model(text, name.full) and same_model(text.swapcase(), name.display)
    assert model_matches(name.full, text)


def test_ollamas_split_decides_the_odd_cases() -> None:
    # A scheme belongs to the host part only: "https://phi4" leaves the namespace empty.
    assert ModelName.parse("https://registry.ollama.ai/library/phi4").display == "phi4:latest"
    with pytest.raises(StoreError, match="namespace '' is empty"):
        ModelName.parse("https://phi4")
