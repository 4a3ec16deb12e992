"""The masterclass's claims that create models on a live Ollama server (the ollama tier,
--ollama-allow-create; each model is deleted after): Modelfile directives, importing a
GGUF, and the store's de-duplicated blobs.
"""

from __future__ import annotations

import uuid

import pytest

from claims.testkit import needs_flag, not_run

pytestmark = pytest.mark.ollama


# --- 1.4: the store de-duplicates blobs ------------------------------------------------------
@pytest.mark.claim("MC-STORE-DEDUP")
def test_derived_model_shares_the_weight_blob(live, check):
    needs_flag(
        live.settings.allow_create,
        "--ollama-allow-create",
        "creating (and then deleting) a derived model",
    )
    model = live.model()
    found = live.matching_store(model)
    if isinstance(found, str):
        not_run(f"the blob comparison needs the server's model store: {found}")
    store, base = found
    before, _ = store.blob_files()
    derived_name = f"claims-dedup-{uuid.uuid4().hex[:10]}"
    created = False
    try:
        live.client.create(derived_name, base=model.name, system="Answer in one short sentence.")
        created = True
        live.exchange(
            "POST /api/create",
            "POST",
            "/api/create",
            {"model": derived_name, "from": model.name, "system": "…"},
            {"status": "success"},
        )
        derived = store.manifest(derived_name)
        after, _ = store.blob_files()
        base_layer, derived_layer = base.model_layer(), derived.model_layer()
        check.attach(
            "manifests",
            {
                "base": [layer.to_json() for layer in base.layers],
                "derived": [layer.to_json() for layer in derived.layers],
            },
        )
        check.measure(
            "derived model layer digest",
            derived_layer.digest,
            holds=derived_layer.digest == base_layer.digest,
            expected=f"the base's {base_layer.digest}",
        )
        check.measure(
            "blob files for both models' weights",
            len({store.blob_path(base_layer.digest), store.blob_path(derived_layer.digest)}),
            holds=store.blob_path(base_layer.digest) == store.blob_path(derived_layer.digest),
            expected="1 (one file on disk)",
        )
        new_blobs = sorted(set(after) - set(before))
        new_bytes = sum((store.blobs_dir / b).stat().st_size for b in new_blobs)
        check.against(
            "bytes a derived model adds",
            new_bytes / base_layer.size * 100,
            unit="%",
            note=f"{new_bytes:,} B added to the store; new blobs: "
            f"{', '.join(b[:19] for b in new_blobs) or 'none'}",
        )
        check.against("llama3:8b weight blob", base_layer.size, unit="B", model=model.name)
    finally:
        if created:
            live.client.delete(derived_name)
            check.observe("cleanup", f"deleted {derived_name}")


# --- 2.2: Modelfile directives through the API --------------------------------------------------
@pytest.mark.claim("MC-MODELFILE-DIRECTIVES")
def test_modelfile_directives_round_trip(live, check):
    needs_flag(
        live.settings.allow_create,
        "--ollama-allow-create",
        "creating (and then deleting) a model with every directive",
    )
    model = live.model()
    name = f"claims-directives-{uuid.uuid4().hex[:10]}"
    template = "{{ if .System }}SYSTEM: {{ .System }}\n{{ end }}USER: {{ .Prompt }}\nASSISTANT:"
    body = {
        "model": name,
        "from": model.name,
        "system": "You are terse.",
        "parameters": {"temperature": 0.2, "num_ctx": 2048},
        "template": template,
        "license": "claims-suite test license",
        "messages": [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello."}],
    }
    created = False
    try:
        reply = live.client.post_json("/api/create", {**body, "stream": False})
        created = True
        live.exchange("POST /api/create", "POST", "/api/create", body, reply)
        show = live.client.show(name)
        live.exchange(
            "POST /api/show (created model)",
            "POST",
            "/api/show",
            {"model": name},
            {k: show.get(k) for k in ("parameters", "system", "template", "license", "messages")},
        )
        parameters = str(show.get("parameters") or "")
        seen = {
            "FROM": show.get("details", {}).get("family")
            == model.show.get("details", {}).get("family"),
            "PARAMETER": "temperature" in parameters and "num_ctx" in parameters,
            "SYSTEM": show.get("system") == body["system"],
            "TEMPLATE": show.get("template") == template,
            "MESSAGE": [m.get("content") for m in show.get("messages") or []] == ["Hi", "Hello."],
            "LICENSE": "claims-suite test license" in str(show.get("license") or ""),
        }
        check.observe("reported back by /api/show", seen)
        check.observe("ADAPTER", "not run: needs a LoRA file made for the base model")
        check.measure(
            "directives reported back",
            sorted(k for k, v in seen.items() if v),
            holds=all(seen.values()),
            expected="FROM, PARAMETER, SYSTEM, TEMPLATE, "
            "MESSAGE and LICENSE all visible through /api/show",
        )
    finally:
        if created:
            live.client.delete(name)
            check.observe("cleanup", f"deleted {name}")


# --- 3.4: importing a GGUF -------------------------------------------------------------------
@pytest.mark.claim("MC-IMPORT-GGUF")
def test_import_a_local_gguf(live, check, gemma_gguf):
    from claims.probes.files.artifacts import sha256_file
    from claims.probes.live.ollama_api import find_model

    needs_flag(
        live.settings.allow_create,
        "--ollama-allow-create",
        "importing (and then deleting) a GGUF as a model",
    )
    sha = sha256_file(gemma_gguf)
    name = f"claims-import-{uuid.uuid4().hex[:10]}"
    # What `ollama create` does with "FROM ./file.gguf": upload the file as a
    # blob, then create a model whose files name that blob.
    digest = live.client.push_blob(gemma_gguf, sha)
    body = {
        "model": name,
        "files": {gemma_gguf.name: digest},
        "parameters": {"temperature": 0.2},
        "template": "<start_of_turn>user\n{{ .Prompt }}<end_of_turn>\n<start_of_turn>model\n",
        "stream": False,
    }
    created = False
    try:
        reply = live.client.post_json("/api/create", body)
        created = True
        live.exchange("POST /api/create (files)", "POST", "/api/create", body, reply)
        entry = find_model(live.client.tags(), name)
        check.measure(
            "ollama list shows the imported model",
            entry is not None,
            holds=entry is not None,
            expected=f"{name} in /api/tags",
        )
        check.observe("GGUF file", f"{gemma_gguf.name}: {gemma_gguf.stat().st_size:,} B, {digest}")
        server_model = live.model(name) if entry is not None else None
        found = live.matching_store(server_model) if server_model is not None else "not listed"
        if isinstance(found, str):
            check.observe("model layer", "not checked", note=found)
            return
        _, manifest = found
        layer = manifest.model_layer()
        check.measure(
            "the GGUF became the model layer blob",
            layer.digest,
            holds=layer.digest == digest,
            expected=digest,
        )
    finally:
        if created:
            live.client.delete(name)
            check.observe("cleanup", f"deleted {name}")
