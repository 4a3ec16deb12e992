"""MC claims about Ollama's store: where it lives, its manifests, blob sharing, and
moving a store to another machine."""

from __future__ import annotations

import os
import tarfile
from pathlib import Path

import pytest

from claims.probes.files.ollama_store import (
    CONFIG_MEDIA_TYPE,
    MODEL_MEDIA_TYPE,
    SERVICE_STORE,
    USER_STORE_RELATIVE,
    OllamaStore,
    locate_store,
    store_candidates,
)
from claims.testing.archive import extract_all
from claims.testing.store_builder import StoreWriter, write_tiny_gguf
from claims.testkit import InputError, PrerequisiteMissing, not_run

pytestmark = pytest.mark.offline

# When MC-AIRGAP-COPY's staged store was written, as far as its archive says (2026-01-01).
STAGED_AT = 1_767_225_600


@pytest.mark.claim("MC-STORE-PATHS", source="recorded")
def test_week2_found_the_linux_store_at_the_documented_path(check, recorded):
    """Offline evidence from another document: Week 2 printed where Ollama kept its
    models on a real Linux machine (the DGX Spark, Ollama as a systemd service).

    The suite's own default search list is the same three places, but a constant
    of the suite is not evidence of where Ollama keeps its store, so it is only
    attached here (its search order is tested in tests/probes); macOS and Windows
    have no recorded or offline evidence and are left to the live half.
    """
    lines = recorded("W2")["blob_resolution_lines"]
    check.attach("Week 2's path resolution (the post)", "\n".join(lines))
    found = dict(line.split(": ", 1) for line in lines)
    check.against("Linux", found["models directory"],
                  note="Week 2's DGX Spark (Linux, systemd service), 'models directory' line")
    home = Path("/home/someone")
    candidates = store_candidates(None, env={}, home=home)
    check.attach("the suite's default search list (not evidence)",
                 "\n".join(f"{label}: {path}" for label, path in candidates))
    for system in ("macOS", "Windows"):
        check.not_judged(system, f"no recorded {system} store in the documents; only a run on "
                         f"{system} can show where Ollama keeps it")


@pytest.mark.claim("MC-STORE-PATHS", source="live")
def test_this_machine_keeps_its_store_where_documented(check, claims_settings):
    """Live half: the store this machine actually has (not run where Ollama is absent)."""
    candidates = store_candidates(claims_settings.models_dir)
    try:
        root = locate_store(claims_settings.models_dir)
    except PrerequisiteMissing as exc:
        not_run(f"no Ollama store on this machine: {exc}")
    label = next(label for label, path in candidates if path == root)
    store = OllamaStore(root)
    check.fact("store", str(root))
    check.observe("store found by", label)
    check.observe("models", len(store.names()))
    if label in ("--ollama-models-dir", "$OLLAMA_MODELS"):
        # A store named by the user says nothing of where Ollama keeps one by default:
        # nothing is judged, and the reason says what would judge it.
        not_run(f"the store was named explicitly ({label}), so the documented default "
                "locations were not consulted; run without --ollama-models-dir and "
                "$OLLAMA_MODELS to check them")
    documented = {str(SERVICE_STORE), str(Path(os.path.expanduser("~")) / USER_STORE_RELATIVE)}
    check.measure("store path", str(root), holds=str(root) in documented,
                  expected="/usr/share/ollama/.ollama/models or ~/.ollama/models")
    if label == "Linux service store":
        check.against("Linux", str(root))


@pytest.mark.claim("MC-MANIFEST-LAYERS")
def test_manifests_are_v2_with_content_addressed_layers(check, store):
    check.fact("store", str(store.root))
    check.fact("store evidence", store.provenance)
    manifests, unreadable = [], []
    for name in store.store.names():
        try:
            manifests.append(store.store.manifest(name))
        except InputError as exc:
            unreadable.append(f"{name}: {exc}")
    if not manifests and not unreadable:
        not_run(f"the Ollama store at {store.root} holds no models")
    check.measure("manifests that are valid v2 manifests", f"{len(manifests)}/"
                  f"{len(manifests) + len(unreadable)}", holds=not unreadable, expected="all",
                  note="; ".join(unreadable) or None)
    for m in manifests:
        check.against("schemaVersion", m.schema_version, note=m.name.display)
    prefixes = sorted({layer.blob_name[: len("sha256-")] for m in manifests for layer in m.blobs})
    for prefix in prefixes:
        check.against("blob name prefix", prefix)
    check.observe("layer kinds in this store",
                  sorted({layer.kind for m in manifests for layer in m.layers}))
    with_config = sum(m.config.media_type == CONFIG_MEDIA_TYPE for m in manifests)
    check.measure("manifests with a config blob", f"{with_config}/{len(manifests)}",
                  holds=with_config == len(manifests), expected="all")
    with_model = sum(any(layer.media_type == MODEL_MEDIA_TYPE for layer in m.layers)
                     for m in manifests)
    check.measure("manifests with a GGUF model layer", f"{with_model}/{len(manifests)}",
                  holds=with_model > 0, expected="at least one")


@pytest.fixture
def dedup_store(store_under_test, check, claims_settings, tmp_path):
    """The user's store when one is named; else the store a real Ollama 0.31.2 wrote with
    three names on one weight blob (fixtures/ollama-0.31.2/store-shared-blob), whose
    model blob is the bundled GGUF. The recorded single-model store cannot decide it."""
    from claims.probes.files.artifacts import gemma_expected_sha256, gemma_gguf
    from claims.testing.recorded_store import (
        SHARED_BLOB_PROVENANCE,
        assemble,
        shared_blob_store_dir,
    )
    from claims.testkit import ProbeError

    if claims_settings.models_dir:
        check.declare_source(store_under_test.source)
        return store_under_test
    try:
        gguf, sha = gemma_gguf(), gemma_expected_sha256()
    except ProbeError as exc:
        not_run(f"cannot assemble the recorded shared-blob store: {exc}")
    root = assemble(shared_blob_store_dir(), tmp_path / "store", gguf, sha)
    check.declare_source("fixture")
    # The shared conftest's StoreUnderTest, taken from the session's store (no conftest import).
    return type(store_under_test)(OllamaStore(root), "fixture", provenance=SHARED_BLOB_PROVENANCE)


@pytest.mark.claim("MC-STORE-DEDUP")
def test_derived_model_reuses_the_weight_blob(check, dedup_store):
    store = dedup_store
    check.fact("store", str(store.root))
    check.fact("store evidence", store.provenance)
    s = store.store
    manifests = s.manifests(strict=False)
    users: dict[str, list] = {}
    for m in manifests:
        model_layer = next((x for x in m.layers if x.media_type == MODEL_MEDIA_TYPE), None)
        if model_layer is not None:
            users.setdefault(model_layer.digest, []).append(m)
    sharing = {digest: ms for digest, ms in users.items() if len(ms) >= 2}
    if not sharing:
        not_run(f"no two manifests in {store.root} share a model blob (derive one with "
                "`ollama create NAME -f Modelfile` whose FROM names an installed model)")
    digest, (first, second, *_) = max(sharing.items(), key=lambda kv: kv[1][0].model_layer().size)
    layer = first.model_layer()
    path, st = s.existing_blob(layer)
    check.fact("shared model blob", digest)
    check.fact("shared model blob file", str(path))
    names = [first.name.display, second.name.display]
    check.observe("manifests whose model layer is this blob",
                  [m.name.display for m in sharing[digest]])
    probe_view = s.shared_blobs(manifests).get(digest, [])
    check.measure("the probe's shared-blob report", probe_view,
                  holds=set(names) <= set(probe_view), expected="lists both manifests")
    # Measured on the file system, not inferred from digests: no second copy of
    # the weights sits under another name, and blobs/ holds less than the
    # manifests list in total.
    sizes = [entry.stat().st_size for entry in s.blobs_dir.iterdir() if entry.is_file()]
    copies = sum(size == st.st_size for size in sizes)
    check.measure("files under blobs/ as large as the weight blob", copies, holds=copies == 1,
                  expected="one")
    listed = sum(m.total_size for m in manifests)
    check.measure("bytes under blobs/ vs bytes all manifests list", sum(sizes), unit="B",
                  holds=sum(sizes) < listed, expected=f"less than {listed:,} B")
    check.measure("blob file size vs manifest size", st.st_size, unit="B",
                  holds=st.st_size == layer.size, expected=f"{layer.size:,} B")
    # What the second model adds to the first: the blobs the first does not have.
    first_digests = {b.digest for b in first.blobs}
    delta = [b for b in second.blobs if b.digest not in first_digests]
    delta_bytes = sum(b.size for b in delta)
    check.against("bytes a derived model adds", delta_bytes / layer.size * 100, unit="%",
                  note=f"{second.name.display} adds {delta_bytes:,} B to {first.name.display}: "
                       + (", ".join(f"{b.kind} {b.size:,} B" for b in delta) or "nothing"))
    unique = {b.digest: b.size for m in (first, second) for b in m.blobs}
    check.observe("stored bytes for both models", sum(unique.values()), unit="B")
    check.observe("bytes if each kept its own copy", first.total_size + second.total_size,
                  unit="B")
    check.against("llama3:8b weight blob", st.st_size, unit="B", model=first.name.display)


@pytest.mark.claim("MC-AIRGAP-COPY")
def test_a_store_archived_and_extracted_elsewhere_works_unchanged(check, tmp_path):
    """Q36's recipe on a small store: tar -czf the models folder, extract it under
    another home, and every model lists with the same ID and size and verifies.
    (A small store keeps the gzip step quick; the offline tier has no network.)"""
    staging = tmp_path / "staging" / "usr/share/ollama/.ollama/models"
    w = StoreWriter(staging)
    model, _ = w.blob_file(write_tiny_gguf(tmp_path / "tiny.gguf"), MODEL_MEDIA_TYPE, link="copy")
    params = w.blob_bytes(b'{"num_ctx":256}', "application/vnd.ollama.image.params")
    w.manifest("tiny:latest", w.config("llama", "F32", "1", [model, params]), [model, params])
    system = w.blob_bytes(b"Be brief.", "application/vnd.ollama.image.system")
    w.manifest("brief:latest", w.config("llama", "F32", "1", [model, system]), [model, system])
    before = OllamaStore(staging).list_models()
    # One modification time for every file: the archive's size is then the same run to run
    # (a tar header holds each file's time, and gzip compresses the headers too).
    for path in [staging, *staging.rglob("*")]:
        os.utime(path, (STAGED_AT, STAGED_AT), follow_symlinks=False)

    archive = tmp_path / "ollama_models.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(staging, arcname="models")
    target = tmp_path / "airgapped" / "home" / "user" / ".ollama"
    target.mkdir(parents=True)
    with tarfile.open(archive, "r:gz") as tar:
        # The "data" filter, or the same checks where the interpreter lacks it (3.11.2).
        extract_all(tar, target)
    moved = OllamaStore(target / "models")
    after = moved.list_models()
    check.observe("archive", archive.stat().st_size, unit="B")
    check.attach("ollama list before and after", "\n".join(
        f"{a.name:<16} {a.id} {a.size_display:>8} | {b.name:<16} {b.id} {b.size_display:>8}"
        for a, b in zip(before, after, strict=False)))
    check.measure("models listed after the move (name, ID, size)",
                  [(e.name, e.id, e.size) for e in after],
                  holds=[(e.name, e.id, e.size) for e in after]
                  == [(e.name, e.id, e.size) for e in before],
                  expected="the same as before the move")
    checks = [c for m in moved.manifests() for c in (moved.check_blob(b) for b in m.blobs)]
    check.measure("blobs that verify (size and SHA-256) after the move",
                  f"{sum(c.ok for c in checks)}/{len(checks)}",
                  holds=all(c.ok for c in checks) and bool(checks), expected="all")
    mentions = [m.name.display for m in moved.manifests()
                if str(staging).encode() in m.path.read_bytes()]
    check.measure("manifests that name a path of the old machine", mentions, holds=not mentions,
                  expected="none: layers are named by digest only")


# The image-manifest media types of the two specifications a "Docker-like" / "OCI" store
# could follow (Docker's image manifest v2 schema 2; the OCI image-spec's manifest).
DOCKER_V2_MANIFEST = "application/vnd.docker.distribution.manifest.v2+json"
OCI_MANIFEST = "application/vnd.oci.image.manifest.v1+json"


@pytest.mark.claim("MC-OCI-STORE")
def test_manifests_declare_their_specification(check, dedup_store):
    """The manifests real Ollama wrote (the recorded store with three names, or the user's
    own): which specification their mediaType declares, and whether the layout is the
    Docker-like one (config and layer descriptors, blobs named by digest)."""
    store = dedup_store
    check.fact("store evidence", store.provenance)
    manifests = store.store.manifests(strict=False)
    if not manifests:
        not_run(f"the Ollama store at {store.root} holds no models")
    kinds = {m.media_type for m in manifests}
    check.observe("manifest media types", sorted(kinds))
    check.observe("config media types", sorted({m.config.media_type for m in manifests}))
    named = {DOCKER_V2_MANIFEST: "Docker image manifest v2 schema 2",
             OCI_MANIFEST: "OCI image manifest"}
    for m in manifests:
        check.against("manifest specification", named.get(m.media_type, m.media_type),
                      note=f"{m.name.display}: mediaType {m.media_type}")
    shaped = [
        m for m in manifests
        if m.schema_version == 2
        and all(d.media_type and d.digest.startswith("sha256:") and d.size >= 0
                for d in (m.config, *m.layers))
        and all(store.store.check_blob(d, verify=False).size_ok for d in (m.config, *m.layers))
    ]
    check.against("Docker-like layout", len(shaped) == len(manifests),
                  note=f"{len(shaped)}/{len(manifests)} manifests: schemaVersion 2, descriptors "
                  "with mediaType, digest and size, each blob stored under its digest")
