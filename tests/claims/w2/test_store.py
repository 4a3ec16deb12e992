"""W2 claims about the Ollama store: naming as a property over all digests, then
manifests, blobs and the `ollama list` view on a store on disk."""

from __future__ import annotations

import hashlib
import json

import pytest

from claims.probes.files.ollama_store import (
    MODEL_MEDIA_TYPE,
    blob_name_to_digest,
    human_bytes,
)
from claims.testkit import model_matches

pytestmark = pytest.mark.offline

@pytest.mark.claim("W2-DIGEST-FILENAME", source="recorded")
def test_recorded_digest_maps_to_recorded_file_name(check, recorded):
    """On the author's machine: the model layer digest the post's manifest lists, and the
    blob file the post's path resolution found for it (both printed from a real store)."""
    w2 = recorded("W2")
    model_layer = next(
        layer for layer in w2["manifest"]["layers"] if layer["mediaType"] == MODEL_MEDIA_TYPE
    )
    lines = dict(line.split(": ", 1) for line in w2["blob_resolution_lines"])
    file_name = lines["GGUF file"].removeprefix("blobs/")
    check.attach("the post's path resolution", "\n".join(w2["blob_resolution_lines"]))
    check.against("manifest digest", model_layer["digest"], note="the post's manifest (jq)")
    check.against("blob file name", file_name, note="the post's 'GGUF file' line")
    check.measure(
        "file name vs digest",
        file_name,
        holds=file_name == model_layer["digest"].replace(":", "-", 1)
        and lines["GGUF file"].startswith("blobs/"),
        expected="blobs/ + the manifest's digest with ':' replaced by '-'",
    )


# --- the same claims on a store on disk ----------------------------------------------------
# `store` is the user's store when --ollama-models-dir or $OLLAMA_MODELS names one (source
# "live"), else the store a real Ollama 0.31.2 wrote (fixtures/ollama-0.31.2/store,
# source "fixture"; its model blob is the bundled Gemma GGUF). Figures the
# post states for phi4 are compared only when the model under test is phi4; on any
# other model they are recorded as not applicable and the general form is checked.

PHI4_LAYER_KINDS = ("template", "license", "params")


def _subject(check, store, claims_settings):
    m = store.subject(claims_settings.ollama_model)
    check.fact("store", str(store.root))
    check.fact("store evidence", store.provenance)
    check.fact("model under test", m.name.display)
    check.fact("manifest sha256", m.digest)
    return m


@pytest.mark.claim("W2-MANIFEST-LAYERS")
def test_manifest_on_disk_is_a_small_index_of_layers(check, store, claims_settings):
    m = _subject(check, store, claims_settings)
    model = m.name.display
    raw = m.path.read_bytes()
    check.attach(f"manifest of {model}", raw.decode("utf-8", "replace"), kind="json")
    check.against("manifest path", m.path.relative_to(store.root).as_posix(), model=model)
    check.against("schemaVersion", m.schema_version)
    check.against("layer count", len(m.layers), model=model)
    check.against("media types", m.media_types, model=model)
    model_layer = m.model_layer()
    check.against("model layer digest", model_layer.digest, model=model)
    check.against("model layer size", model_layer.size, unit="B", model=model)
    kinds = {layer.kind: layer for layer in m.layers}
    for kind in PHI4_LAYER_KINDS:
        if kind in kinds:
            check.against(f"{kind} layer size", kinds[kind].size, unit="B", model=model)
        else:
            check.observe(f"{kind} layer", "absent", note="this model has no such layer")
    # Read independently of the probe: every layer entry carries the three keys.
    entries = json.loads(raw)["layers"]
    complete = [e for e in entries if {"mediaType", "digest", "size"} <= set(e)]
    check.measure("layers with mediaType, digest and size", f"{len(complete)}/{len(entries)}",
                  holds=len(complete) == len(entries) > 0, expected="every layer")
    check.against("manifest size", len(raw), unit="B", note="a small JSON index")
    check.against("manifest share of the weights", len(raw) / model_layer.size * 100, unit="%",
                  note=f"{len(raw):,} B of JSON beside a {model_layer.size:,} B model layer")


@pytest.mark.claim("W2-BLOB-SIZE")
def test_blob_sizes_on_disk_equal_the_manifest(check, store, claims_settings):
    m = _subject(check, store, claims_settings)
    for layer in m.blobs:
        found = store.store.check_blob(layer, verify=False)
        check.measure(f"{layer.field} ({layer.kind}) blob bytes", found.actual_size, unit="B",
                      holds=found.size_ok, expected=f"{layer.size:,} B, as the manifest says")
    model_blob = store.store.check_blob(m.model_layer(), verify=False)
    check.against("blob bytes", model_blob.actual_size, unit="B", model=m.name.display)
    # Every other blob of the store costs a stat too.
    everything = [(mf, layer) for mf in store.store.manifests(strict=False) for layer in mf.blobs]
    agree = sum(store.store.check_blob(layer, verify=False).size_ok for _, layer in everything)
    check.measure("blobs of all manifests whose size agrees", f"{agree}/{len(everything)}",
                  holds=agree == len(everything), expected="all")


@pytest.mark.claim("W2-BLOB-SHA256")
def test_blob_sha256_equals_the_digest(check, store, claims_settings):
    m = _subject(check, store, claims_settings)
    for layer in m.blobs:
        found = store.store.check_blob(layer, verify=True)
        check.measure(f"{layer.field} ({layer.kind}) SHA-256", f"sha256:{found.sha256}",
                      holds=found.sha256_ok is True, expected=layer.digest,
                      note="cached result (unchanged since hashed)" if found.cached else None)
        if layer.media_type == MODEL_MEDIA_TYPE:
            check.against("model digest", f"sha256:{found.sha256}", model=m.name.display)
            if found.seconds:
                rate = round(found.actual_size / found.seconds / 1e6)
                check.observe("model blob hash throughput", rate, unit="MB/s")


@pytest.mark.claim("W2-DIGEST-FILENAME")
def test_stored_blobs_are_named_by_their_digest(check, store, claims_settings):
    m = _subject(check, store, claims_settings)
    for layer in m.blobs:
        expected = layer.digest.replace(":", "-", 1)
        on_disk = store.root / "blobs" / expected
        check.measure(f"{layer.field} ({layer.kind}) file", f"blobs/{expected}",
                      holds=on_disk.is_file() and blob_name_to_digest(on_disk.name) == layer.digest,
                      expected="blobs/ + the digest with ':' replaced by '-'")
    stated = check.claims[0].figure("manifest digest").text
    if stated in {layer.digest for layer in m.blobs}:
        check.against("blob file name", store.store.blob_path(stated).name)
    complete, other = store.store.blob_files()
    check.measure("files under blobs/ named sha256-<64 hex>", f"{len(complete)}",
                  holds=len(complete) > 0, expected="at least one",
                  note=f"{len(other)} other entries (e.g. -partial downloads)" if other else None)


def _printed_ids(store):
    """NAME -> ID as `ollama list` printed them for this store, when that was recorded."""
    from claims.testing.recorded_store import printed_list

    return printed_list(store.root) if store.source == "fixture" else {}


@pytest.mark.claim("W2-LIST")
def test_list_id_is_the_manifest_digest_prefix(check, store, claims_settings):
    m = _subject(check, store, claims_settings)
    manifests, skipped = store.store.scan(strict=False)
    for entry in skipped:
        check.note(f"skipped in the store: {entry}")
    printed = _printed_ids(store)
    rows = []
    for mf in manifests:
        own = hashlib.sha256(mf.path.read_bytes()).hexdigest()[:12]
        rows.append((mf.name.display, own, human_bytes(mf.total_size), mf.total_size))
        if mf.name.display in printed:
            # What Ollama itself printed for this store, against the manifest file's hash.
            check.measure(f"{mf.name.display} ID", own, holds=own == printed[mf.name.display],
                          expected=f"{printed[mf.name.display]}, as `ollama list` printed it "
                          "(first 12 hex digits of the SHA-256 of the manifest file)")
            check.against("ID length", len(printed[mf.name.display]),
                          note="the ID `ollama list` printed")
        else:
            check.observe(f"{mf.name.display} ID", own,
                          note="first 12 hex digits of the manifest's SHA-256; no `ollama list` "
                          "output of this store to compare with (the ollama tier does)")
    check.attach("ollama list, recomputed from the store",
                 "\n".join(f"{n:<40} {i}  {s:>8}  ({b:,} B)" for n, i, s, b in rows))
    by_name = {mf.name.display: mf for mf in manifests}
    for fig in check.claims[0].stated:
        if fig.model is None:
            continue
        match = next((mf for name, mf in by_name.items() if model_matches(fig.model, name)), m)
        if fig.name.endswith(" ID"):
            check.against(fig.name, match.id, model=match.name.display)
        elif fig.name.endswith(" size"):
            # Compare what `ollama list` prints: decimal units, truncated to a
            # whole number from 10 up, one decimal below.
            shown = human_bytes(match.total_size)
            number, unit = shown.split()
            check.against(fig.name, float(number), unit=unit, model=match.name.display,
                          note=f"{match.total_size:,} B printed as {shown}")
