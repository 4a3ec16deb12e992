"""Build real Ollama-layout stores on disk, for tests and demonstrations.

:func:`build_fixture_store` writes a small but genuine store: the Gemma 3 270M
GGUF as a model blob (hard-linked when the file system allows it, copied
otherwise), two generated GGUFs, template / params / license / system layers,
config blobs and manifests laid out exactly as Ollama lays them out, including
a second tag derived from the first that reuses its model blob (what
``ollama create`` does with a Modelfile whose FROM names an installed model).

:func:`build_hostile_store` writes one store per named defect (a manifest that
is not JSON, a traversal digest, a blob symlinked out of the store, a FIFO in
place of a blob, ...). The probe's tests run every case through the API and
the CLI; the list of cases is :data:`HOSTILE_CASES`.

Both are plain functions: ``python -c "from claims.testing.store_builder import
build_fixture_store; ..."`` works without pytest.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from claims.probes.files.artifacts import sha256_file
from claims.probes.files.ollama_store import (
    CONFIG_MEDIA_TYPE,
    MANIFEST_LIST_MEDIA_TYPE,
    MANIFEST_MEDIA_TYPE,
    MODEL_MEDIA_TYPE,
    ModelName,
    digest_to_blob_name,
)

__all__ = [
    "HOSTILE_CASES",
    "FixtureStore",
    "HostileStore",
    "StoreWriter",
    "build_fixture_store",
    "build_hostile_store",
]

LinkMode = Literal["auto", "hardlink", "copy"]

TEMPLATE_MEDIA_TYPE = "application/vnd.ollama.image.template"
PARAMS_MEDIA_TYPE = "application/vnd.ollama.image.params"
LICENSE_MEDIA_TYPE = "application/vnd.ollama.image.license"
SYSTEM_MEDIA_TYPE = "application/vnd.ollama.image.system"

# Layer texts written for the fixture (the project's own, not copied from a registry).
GEMMA_TEMPLATE = (
    "{{- if .System }}<start_of_turn>user\n{{ .System }}\n\n{{ end }}"
    "{{- range .Messages }}<start_of_turn>{{ if eq .Role \"assistant\" }}model"
    "{{ else }}user{{ end }}\n{{ .Content }}<end_of_turn>\n{{ end }}<start_of_turn>model\n"
)
GEMMA_LICENSE = (
    "Fixture license layer. The Gemma 3 270M weights in this test store are distributed "
    "under Google's Gemma Terms of Use (https://ai.google.dev/gemma/terms).\n"
)
TINY_TEMPLATE = (
    "{{ if .System }}<|system|>{{ .System }}\n{{ end }}<|user|>{{ .Prompt }}\n<|assistant|>"
)


@dataclass(frozen=True)
class BlobRef:
    """A blob written to a store: its manifest entry."""

    media_type: str
    digest: str
    size: int

    def entry(self) -> dict[str, Any]:
        return {"mediaType": self.media_type, "digest": self.digest, "size": self.size}


def compact_json(doc: Any) -> bytes:
    """JSON without spaces, the way Ollama writes manifests and small layers."""
    return json.dumps(doc, separators=(",", ":")).encode()


def manifest_doc(config: BlobRef, layers: list[BlobRef]) -> dict[str, Any]:
    """A v2 manifest naming ``config`` and ``layers`` (Ollama's key order)."""
    return {
        "schemaVersion": 2,
        "mediaType": MANIFEST_MEDIA_TYPE,
        "config": config.entry(),
        "layers": [layer.entry() for layer in layers],
    }


class StoreWriter:
    """Writes blobs and manifests into a store folder the way Ollama does."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self.blobs = self.root / "blobs"
        self.manifests = self.root / "manifests"
        self.blobs.mkdir(parents=True, exist_ok=True)
        self.manifests.mkdir(parents=True, exist_ok=True)

    def blob_bytes(self, data: bytes, media_type: str) -> BlobRef:
        """Store ``data`` under its own digest (idempotent) and return its entry."""
        digest = "sha256:" + hashlib.sha256(data).hexdigest()
        target = self.blob_path(digest)
        if not target.exists():
            self._atomic_write(target, data)
        return BlobRef(media_type, digest, len(data))

    def blob_file(
        self, source: Path, media_type: str, *, sha256: str | None = None, link: LinkMode = "auto"
    ) -> tuple[BlobRef, str]:
        """Place an existing file as a blob; returns its entry and how it got there.

        ``sha256`` (hex) spares hashing a file whose digest is already known and
        verified (the Gemma GGUF's is published by its package). ``link``:
        "hardlink" costs one metadata write and no space; "copy" duplicates
        the bytes; "auto" tries a hard link and copies when the file system
        refuses (another device, no link support).
        """
        if sha256 is None:
            sha256 = sha256_file(source)
        digest = f"sha256:{sha256}"
        target = self.blob_path(digest)
        size = source.stat().st_size
        if target.exists():
            return BlobRef(media_type, digest, size), "existing"
        mode = "copy"
        if link in ("auto", "hardlink"):
            try:
                os.link(source, target)
                mode = "hardlink"
            except OSError:
                if link == "hardlink":
                    raise
        if mode == "copy":
            tmp = target.with_name(target.name + "-partial")
            shutil.copyfile(source, tmp)
            os.replace(tmp, target)
        return BlobRef(media_type, digest, size), mode

    def blob_path(self, blob: BlobRef | str) -> Path:
        """Where a blob (or a ``sha256:<hex>`` digest) lives under blobs/."""
        digest = blob.digest if isinstance(blob, BlobRef) else blob
        return self.blobs / digest_to_blob_name(digest)

    def manifest_path(self, name: ModelName) -> Path:
        """Where the manifest of ``name`` goes; its folders are created."""
        path = self.manifests.joinpath(*name.parts)
        path.parent.mkdir(parents=True, exist_ok=True)
        return path

    def manifest(self, name: str, config: BlobRef, layers: list[BlobRef],
                 *, extra: dict[str, Any] | None = None) -> Path:
        """Write the manifest for ``name`` (compact JSON, Ollama's key order)."""
        doc = manifest_doc(config, layers)
        doc.update(extra or {})
        return self.manifest_bytes(ModelName.parse(name), compact_json(doc))

    def manifest_bytes(self, name: ModelName, data: bytes) -> Path:
        path = self.manifest_path(name)
        self._atomic_write(path, data)
        return path

    def model(self, name: str, layers: list[BlobRef], *, family: str = "llama",
              file_type: str = "F32", model_type: str = "1") -> Path:
        """Write a config blob for ``layers`` and the manifest of ``name`` naming both."""
        return self.manifest(name, self.config(family, file_type, model_type, layers), layers)

    def config(
        self, family: str, file_type: str, model_type: str, layers: list[BlobRef]
    ) -> BlobRef:
        """The config blob Ollama writes next to the layers (model facts and layer list)."""
        doc = {
            "model_format": "gguf",
            "model_family": family,
            "model_families": [family],
            "model_type": model_type,
            "file_type": file_type,
            "architecture": "amd64",
            "os": "linux",
            "rootfs": {"type": "layers", "diff_ids": [layer.digest for layer in layers]},
        }
        return self.blob_bytes(compact_json(doc), CONFIG_MEDIA_TYPE)

    @staticmethod
    def _atomic_write(target: Path, data: bytes) -> None:
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".tmp-")
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
            os.replace(tmp, target)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise


def write_tiny_gguf(path: Path, *, arch: str = "llama", n_tokens: int = 32, seed: int = 0,
                    chat_template: str | None = None) -> Path:
    """A small but complete GGUF (tokenizer fields, one tensor) written with gguf.GGUFWriter."""
    import gguf
    import numpy as np

    writer = gguf.GGUFWriter(str(path), arch)
    writer.add_block_count(1)
    writer.add_context_length(256)
    writer.add_embedding_length(8)
    writer.add_tokenizer_model("gpt2")
    writer.add_tokenizer_pre("default")
    tokens = ["<|endoftext|>", "<|user|>", "<|assistant|>"] + [f"t{i}" for i in range(n_tokens - 3)]
    writer.add_token_list(tokens)
    writer.add_token_types([3, 3, 3] + [1] * (n_tokens - 3))
    writer.add_eos_token_id(0)
    if chat_template is not None:
        writer.add_chat_template(chat_template)
    rng = np.random.default_rng(seed)
    writer.add_tensor("token_embd.weight", rng.standard_normal((n_tokens, 8)).astype(np.float32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path


# --- the fixture store -----------------------------------------------------------
@dataclass(frozen=True)
class FixtureStore:
    """What :func:`build_fixture_store` wrote, and what it cost."""

    root: Path
    base: str  # the Gemma model, "gemma3:270m"
    derived: str  # a tag created from it, sharing its model blob
    others: tuple[str, ...]  # models on generated GGUFs
    model_digest: str  # the Gemma blob's digest
    link_mode: str  # how the Gemma file got into blobs/: hardlink, copy or existing
    link_seconds: float  # time to place the Gemma blob
    build_seconds: float
    layer_texts: dict[str, str] = field(default_factory=dict)  # media type -> text, base model

    @property
    def names(self) -> tuple[str, ...]:
        return (self.base, self.derived, *self.others)


def build_fixture_store(
    root: Path,
    gemma: Path,
    *,
    gemma_sha256: str | None = None,
    link: LinkMode = "auto",
) -> FixtureStore:
    """Write a real Ollama-layout store under ``root`` (created if needed).

    Models: ``gemma3:270m`` (the Gemma GGUF with template, license and params
    layers), ``gemma3:270m-terse`` (derived from it with a SYSTEM prompt and
    other parameters: same model, template and license blobs, new config,
    system and params blobs), ``tiny:latest`` and ``example/tiny:f32`` (small
    generated GGUFs, the second in a user namespace).

    Never write to the Gemma blob of a built store: with a hard link it is the
    same file as ``gemma``.
    """
    start = time.perf_counter()
    w = StoreWriter(Path(root))

    t0 = time.perf_counter()
    model, mode = w.blob_file(gemma, MODEL_MEDIA_TYPE, sha256=gemma_sha256, link=link)
    link_seconds = time.perf_counter() - t0

    template = w.blob_bytes(GEMMA_TEMPLATE.encode(), TEMPLATE_MEDIA_TYPE)
    license_ = w.blob_bytes(GEMMA_LICENSE.encode(), LICENSE_MEDIA_TYPE)
    params = w.blob_bytes(
        compact_json({"stop": ["<end_of_turn>"], "temperature": 1, "top_k": 64, "top_p": 0.95}),
        PARAMS_MEDIA_TYPE,
    )
    gemma_facts = {"family": "gemma3", "file_type": "Q4_K_M", "model_type": "268.10M"}
    w.model("gemma3:270m", [model, template, license_, params], **gemma_facts)

    # `ollama create gemma3:270m-terse` from "FROM gemma3:270m / SYSTEM ... /
    # PARAMETER temperature 0.2": the weights, template and license are the
    # same blobs; only the new layers and the config are written.
    system = w.blob_bytes(b"Answer in one short sentence.", SYSTEM_MEDIA_TYPE)
    terse_params = w.blob_bytes(
        compact_json({"stop": ["<end_of_turn>"], "temperature": 0.2}), PARAMS_MEDIA_TYPE
    )
    w.model("gemma3:270m-terse", [model, template, license_, system, terse_params], **gemma_facts)

    with tempfile.TemporaryDirectory(dir=w.root, prefix=".build-") as tmp:
        tiny_path = write_tiny_gguf(Path(tmp) / "tiny.gguf", chat_template=TINY_TEMPLATE)
        tiny = w.blob_file(tiny_path, MODEL_MEDIA_TYPE, link="copy")[0]
        tiny2_path = write_tiny_gguf(Path(tmp) / "tiny2.gguf", n_tokens=48, seed=1)
        tiny2 = w.blob_file(tiny2_path, MODEL_MEDIA_TYPE, link="copy")[0]
    tiny_template = w.blob_bytes(TINY_TEMPLATE.encode(), TEMPLATE_MEDIA_TYPE)
    tiny_params = w.blob_bytes(b'{"num_ctx":256}', PARAMS_MEDIA_TYPE)
    w.model("tiny:latest", [tiny, tiny_template, tiny_params], model_type="256")
    tiny2_license = w.blob_bytes(b"Fixture model; no weights of value.\n", LICENSE_MEDIA_TYPE)
    w.model("example/tiny:f32", [tiny2, tiny2_license], model_type="384")

    return FixtureStore(
        root=w.root,
        base="gemma3:270m",
        derived="gemma3:270m-terse",
        others=("tiny:latest", "example/tiny:f32"),
        model_digest=model.digest,
        link_mode=mode,
        link_seconds=link_seconds,
        build_seconds=time.perf_counter() - start,
        layer_texts={
            TEMPLATE_MEDIA_TYPE: GEMMA_TEMPLATE,
            LICENSE_MEDIA_TYPE: GEMMA_LICENSE,
        },
    )


# --- hostile stores ----------------------------------------------------------------
@dataclass(frozen=True)
class HostileStore:
    """One defective store: where it is, which model to ask for, what is wrong."""

    case: str
    root: Path
    model: str | None  # the name to pass to --model, or None to scan the whole store
    defect: str


_GOOD_MODEL = b"GGUF" + bytes(60)  # 64 bytes: enough to be a blob; content is irrelevant here
_NAME = ModelName.parse("m:latest")
_HEX = "0123456789abcdef" * 4

Builder = Callable[[StoreWriter], None]


def _base(w: StoreWriter) -> tuple[BlobRef, BlobRef, BlobRef]:
    model = w.blob_bytes(_GOOD_MODEL, MODEL_MEDIA_TYPE)
    params = w.blob_bytes(b'{"temperature":0}', PARAMS_MEDIA_TYPE)
    config = w.config("llama", "F32", "1", [model, params])
    return config, model, params


def _doc(w: StoreWriter) -> dict[str, Any]:
    config, model, params = _base(w)
    return manifest_doc(config, [model, params])


def _good(w: StoreWriter) -> Path:
    """Write the sound store every defect starts from; returns its model blob's path."""
    w.manifest_bytes(_NAME, json.dumps(_doc(w)).encode())
    return w.blob_path("sha256:" + hashlib.sha256(_GOOD_MODEL).hexdigest())


def _raw(data: bytes) -> Builder:
    """The manifest of m:latest is ``data``, byte for byte."""
    def build(w: StoreWriter) -> None:
        _base(w)
        w.manifest_bytes(_NAME, data)
    return build


def _edit(change: Callable[[dict[str, Any]], None]) -> Builder:
    """The manifest of m:latest is the sound one with ``change`` applied to its JSON."""
    def build(w: StoreWriter) -> None:
        doc = _doc(w)
        change(doc)
        w.manifest_bytes(_NAME, json.dumps(doc).encode())
    return build


def _set_model_layer(key: str) -> Callable[[Any], Callable[[dict[str, Any]], None]]:
    """``setter(value)``: a change giving the first layer (the model's) ``key: value``."""
    def setter(value: Any) -> Callable[[dict[str, Any]], None]:
        def change(doc: dict[str, Any]) -> None:
            doc["layers"][0][key] = value
        return change
    return setter


_set_digest = _set_model_layer("digest")
_set_size = _set_model_layer("size")


def _blob_becomes(make: Callable[[StoreWriter, Path], object]) -> Builder:
    """The sound store, with ``make(w, path)`` in place of the model blob it removed."""
    def build(w: StoreWriter) -> None:
        blob = _good(w)
        blob.unlink()
        make(w, blob)
    return build


def _manifest_becomes(make: Callable[[StoreWriter, Path], object]) -> Builder:
    """Sound blobs, with ``make(w, path)`` at the manifest's path instead of a manifest."""
    def build(w: StoreWriter) -> None:
        _base(w)
        make(w, w.manifest_path(_NAME))
    return build


def _outside(w: StoreWriter, what: str) -> Path:
    """A path next to the store root, outside it."""
    return w.root.parent / f"{w.root.name}-outside{what}"


def _link_blob_outside(w: StoreWriter, blob: Path) -> None:
    outside = _outside(w, ".bin")
    outside.write_bytes(_GOOD_MODEL)  # even identical bytes must not be read from outside
    blob.symlink_to(outside)


def _link_manifest_outside(w: StoreWriter, path: Path) -> None:
    outside = _outside(w, "-manifest.json")
    outside.write_text(json.dumps(_doc(w)))
    path.symlink_to(outside)


def _sparse_file(w: StoreWriter, path: Path) -> None:
    with path.open("wb") as fh:  # sparse: the size is what counts
        fh.truncate(4 << 20)


def _blob_short(w: StoreWriter) -> None:
    _good(w).write_bytes(_GOOD_MODEL[:-1])


def _blob_altered(w: StoreWriter) -> None:
    _good(w).write_bytes(b"GGUF" + b"\x01" + bytes(59))  # same size, one byte differs


def _blobs_dir_outside(w: StoreWriter) -> None:
    _good(w)
    outside = _outside(w, "-blobs")
    w.blobs.rename(outside)
    w.blobs.symlink_to(outside, target_is_directory=True)


def _namespace_symlink_outside(w: StoreWriter) -> None:
    _good(w)
    outside = _outside(w, "-namespace")
    outside.mkdir()
    (w.manifests / "registry.ollama.ai" / "evil").symlink_to(outside, target_is_directory=True)


def _not_a_store(w: StoreWriter) -> None:
    shutil.rmtree(w.manifests)


def _manifest_list(doc: dict[str, Any]) -> None:
    doc["mediaType"] = MANIFEST_LIST_MEDIA_TYPE


def _nothing(w: StoreWriter) -> None:
    """No defect in the store: the bad part is the name asked for."""


def _nothing_at(w: StoreWriter, path: Path) -> None:
    """Leave the removed file missing."""


# name -> (defect, builder, model to ask for); the expectations live in the tests.
HOSTILE_CASES: dict[str, tuple[str, Builder, str | None]] = {
    "not-json": ("manifest is not JSON", _raw(b"{schemaVersion: 2,"), None),
    "empty-manifest": ("manifest file is empty", _raw(b""), None),
    "not-utf8": ("manifest bytes are not UTF-8",
                 _raw(b'{"schemaVersion": 2, "x": "\xc3\x28"}'), None),
    "top-level-array": ("manifest is a JSON array", _raw(b"[]"), None),
    "deep-nesting": ("JSON nested 100,000 deep", _raw(b"[" * 100_000 + b"]" * 100_000), None),
    "huge-integer": ("a size with 5,000 digits", _raw(
        b'{"schemaVersion":2,"layers":[{"size":' + b"9" * 5000 + b"}]}"), None),
    "duplicate-key": ("schemaVersion given twice", _raw(
        b'{"schemaVersion":2,"schemaVersion":1,"layers":[]}'), None),
    "too-large": ("manifest of 4 MiB", _manifest_becomes(_sparse_file), None),
    "no-layers": ("manifest lacks layers", _edit(lambda d: d.pop("layers")), None),
    "empty-layers": ("layers is an empty array", _edit(lambda d: d.update(layers=[])), None),
    "layers-not-array": ("layers is an object", _edit(lambda d: d.update(layers={})), None),
    "layer-not-object": ("a layer is a string", _edit(lambda d: d["layers"].append("x")), None),
    "no-config": ("config is missing", _edit(lambda d: d.pop("config")), None),
    "schema-version-1": ("schemaVersion 1", _edit(lambda d: d.update(schemaVersion=1)), None),
    "schema-version-string": ("schemaVersion \"2\"", _edit(lambda d: d.update(schemaVersion="2")),
                              None),
    "no-schema-version": ("schemaVersion missing", _edit(lambda d: d.pop("schemaVersion")), None),
    "wrong-media-type": ("an OCI image manifest type", _edit(lambda d: d.update(
        mediaType="application/vnd.oci.image.manifest.v1+json")), None),
    "manifest-list": ("a manifest list (not supported)", _edit(_manifest_list), None),
    "layer-no-digest": ("a layer without digest", _edit(lambda d: d["layers"][0].pop("digest")),
                        None),
    "layer-no-media-type": ("a layer without mediaType",
                            _edit(lambda d: d["layers"][0].pop("mediaType")), None),
    "digest-traversal": ("digest sha256:../../etc/passwd",
                         _edit(_set_digest("sha256:../../etc/passwd")), None),
    "digest-traversal-64": ("digest of 64 characters with ../ in it",
                            _edit(_set_digest("sha256:" + ("../" * 22)[:64])), None),
    "digest-absolute": ("digest sha256:/etc/passwd",
                        _edit(_set_digest("sha256:/etc/passwd")), None),
    "digest-md5": ("digest md5:<32 hex>", _edit(_set_digest("md5:" + _HEX[:32])), None),
    "digest-short": ("sha256 digest of 63 hex", _edit(_set_digest("sha256:" + _HEX[:63])), None),
    "digest-hyphen": ("blob-name spelling sha256-<hex> in a manifest",
                      _edit(_set_digest("sha256-" + _HEX)), None),
    "digest-newline": ("digest with a trailing newline",
                       _edit(_set_digest("sha256:" + _HEX + "\n")), None),
    "digest-not-string": ("digest is a number", _edit(_set_digest(12345)), None),
    "size-negative": ("size -1", _edit(_set_size(-1)), None),
    "size-float": ("size 64.0", _edit(_set_size(64.0)), None),
    "size-string": ("size \"64\"", _edit(_set_size("64")), None),
    "size-bool": ("size true", _edit(_set_size(True)), None),
    "size-2e64": ("size 2**64", _edit(_set_size(2**64)), None),
    "blob-missing": ("model blob missing", _blob_becomes(_nothing_at), None),
    "blob-size-mismatch": ("model blob one byte short", _blob_short, None),
    "blob-hash-mismatch": ("model blob altered, same size", _blob_altered, None),
    "blob-symlink-outside": ("model blob is a symlink out of the store",
                             _blob_becomes(_link_blob_outside), None),
    "blob-symlink-dangling": ("model blob is a dangling symlink",
                              _blob_becomes(lambda w, blob: blob.symlink_to(w.root / "nowhere")),
                              None),
    "blob-symlink-loop": ("model blob is a symlink to itself",
                          _blob_becomes(lambda w, blob: blob.symlink_to(blob.name)), None),
    "blob-fifo": ("model blob is a FIFO (reading would block)",
                  _blob_becomes(lambda w, blob: os.mkfifo(blob)), None),
    "blob-directory": ("model blob is a folder", _blob_becomes(lambda w, blob: blob.mkdir()), None),
    "blobs-dir-outside": ("blobs/ is a symlink out of the store", _blobs_dir_outside, None),
    "manifest-symlink-outside": ("manifest is a symlink out of the store",
                                 _manifest_becomes(_link_manifest_outside), None),
    "manifest-fifo": ("manifest is a FIFO", _manifest_becomes(lambda w, path: os.mkfifo(path)),
                      None),
    "namespace-symlink-outside": ("a namespace folder links out of the store",
                                  _namespace_symlink_outside, None),
    "not-a-store": ("folder without manifests/", _not_a_store, None),
    "name-traversal": ("--model ../../etc/passwd", _nothing, "../../etc/passwd"),
    "name-absolute": ("--model /etc/passwd", _nothing, "/etc/passwd"),
    "name-dotdot-part": ("--model ../x:latest", _nothing, "../x:latest"),
    "name-backslash": ("--model ..\\x", _nothing, "..\\x"),
    "name-empty-tag": ("--model m:", _nothing, "m:"),
    "name-unknown": ("--model absent:latest (no such manifest)", _nothing, "absent:latest"),
}


def build_hostile_store(parent: Path, case: str) -> HostileStore:
    """Write the store for one :data:`HOSTILE_CASES` entry under ``parent/case``."""
    defect, build, model = HOSTILE_CASES[case]
    w = StoreWriter(Path(parent) / case)
    if model is not None:
        _good(w)
    build(w)
    return HostileStore(case=case, root=w.root, model=model, defect=defect)
