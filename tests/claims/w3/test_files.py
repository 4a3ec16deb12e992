"""W3 claims read from the repository's small files.

Each test runs on the pinned transcription of the post (offline) and on the
files downloaded from the Hub at the same revision (hub tier), through the same
code, so the offline verdict says "the post is self-consistent" and the hub
verdict says "the repository really is what the post printed".
"""

from __future__ import annotations

import json
import re

import pytest

from claims.probes.arithmetic.memory import parameters_from_config
from claims.probes.files.hf_repo import (
    added_tokens,
    chat_template,
    field_value,
    render_chat_template,
)
from claims.testkit import convert

CONFIG = "config.json"
GEN_CONFIG = "generation_config.json"
TOKENIZER_CONFIG = "tokenizer_config.json"


@pytest.mark.claim("W3-CONFIG")
def test_config_shape(check, qwen_files, catalog):
    config = qwen_files.snapshot.config()
    source = qwen_files.name(CONFIG)
    for fig in catalog.get("W3-CONFIG").stated:
        check.against(fig.name, field_value(config, fig.name, source=source), note=source)


@pytest.mark.claim("W3-PARAMS-FROM-CONFIG")
def test_parameter_count_from_config(check, qwen_files):
    count = parameters_from_config(qwen_files.snapshot.config(), source=qwen_files.name(CONFIG))
    check.against("parameters", count.total, note="embeddings + 36 x block + final norm; head tied")
    check.observe("per block", count.layer_total)
    check.attach("parameters by component", count.breakdown(), kind="json")


@pytest.mark.claim("W3-CARD-FACTS")
def test_card_figures_agree_with_config(check, qwen_files, recorded):
    config = qwen_files.snapshot.config()
    source = qwen_files.name(CONFIG)
    count = parameters_from_config(config, source=source).total
    check.against("parameters", count, unit="params", note="counted from config.json")
    # "the instruction-tuned 3B member": the page's sidebar label, as the post prints it
    # ("Model size 3B params"), is the parameter count in whole billions.
    label = recorded("W3")["card"]["sidebar_model_size"]
    billions = re.match(r"(\d+)B\b", label)
    # The label's unit is billions of parameters ("B params" in the suite's unit table).
    whole = round(float(convert(count, "params", "B params")))
    check.measure("the sidebar's size label is the count in whole billions", label,
                  holds=billions is not None and int(billions.group(1)) == whole,
                  expected=f"{whole}B (config.json's count, rounded)")
    check.against("layers", field_value(config, "num_hidden_layers", source=source))
    check.against("query heads", field_value(config, "num_attention_heads", source=source))
    check.against("key/value heads", field_value(config, "num_key_value_heads", source=source))
    check.against(
        "context length",
        field_value(config, "max_position_embeddings", source=source),
        unit="tokens",
    )


@pytest.mark.claim("W3-FILE-SIZES")
def test_small_file_sizes(check, qwen_files):
    snap = qwen_files.snapshot
    config_bytes = snap.size(CONFIG)
    check.against("config.json bytes", config_bytes, unit="B", note=qwen_files.name(CONFIG))
    check.against(
        "generation_config.json bytes",
        snap.size(GEN_CONFIG),
        unit="B",
        note=qwen_files.name(GEN_CONFIG),
    )
    text = snap.path(CONFIG).read_text("utf-8")
    canonical = json.dumps(json.loads(text), indent=2, sort_keys=True) + "\n"
    check.measure(
        "config.json is save_pretrained's serialisation",
        len(canonical.encode()),
        holds=canonical == text,
        expected="json.dumps(indent=2, sort_keys=True) + newline",
        unit="B",
    )
    if not qwen_files.live:
        check.observe(
            "printed config.json text without the final newline",
            config_bytes - 1,
            unit="B",
            note="a print cannot show the newline save_pretrained writes; see snapshot.json",
        )


@pytest.mark.claim("W3-GEN-DEFAULTS")
def test_generation_defaults(check, qwen_files, catalog):
    gen = qwen_files.snapshot.generation_config()
    source = qwen_files.name(GEN_CONFIG)
    for fig in catalog.get("W3-GEN-DEFAULTS").stated:
        value = field_value(gen, fig.name, source=source)
        if fig.kind == "list":
            value = [str(v) for v in value]
        check.against(fig.name, value, note=source)


@pytest.mark.claim("W3-SPECIAL-TOKENS")
def test_special_tokens(check, qwen_files):
    tok = qwen_files.snapshot.tokenizer_config()
    source = qwen_files.name(TOKENIZER_CONFIG)
    check.against("tokenizer_class", field_value(tok, "tokenizer_class", source=source))
    tokens = added_tokens(tok, source=source)
    for token_id in (151643, 151644, 151645):
        check.against(str(token_id), tokens.get(token_id, "<absent>"), note=source)
    check.against(
        "has <|im_sep|>",
        "<|im_sep|>" in tokens.values(),
        note=None if qwen_files.live else "the transcription holds only the tokens the post shows",
    )
    check.observe("added tokens", len(tokens))


@pytest.mark.claim("W3-MAX-LENGTHS")
def test_tokenizer_and_model_lengths_differ(check, qwen_files):
    snap = qwen_files.snapshot
    tokenizer_max = field_value(
        snap.tokenizer_config(), "model_max_length", source=qwen_files.name(TOKENIZER_CONFIG)
    )
    positions = field_value(
        snap.config(), "max_position_embeddings", source=qwen_files.name(CONFIG)
    )
    check.against("model_max_length", tokenizer_max)
    check.against("max_position_embeddings", positions)
    check.measure(
        "the two limits differ",
        f"{tokenizer_max} vs {positions}",
        holds=tokenizer_max != positions,
        expected="different values",
    )


_SYSTEM_BLOCK = re.compile(r"^<\|im_start\|>system\n(?P<content>.*?)<\|im_end\|>\n", re.DOTALL)


@pytest.mark.claim("W3-TEMPLATE")
def test_chat_template_renders_chatml(check, qwen_files):
    source = qwen_files.name(TOKENIZER_CONFIG)
    template = chat_template(qwen_files.snapshot.tokenizer_config(), source=source)
    user = {"role": "user", "content": "Explain Kubernetes scheduling in three sentences."}

    plain = render_chat_template(template, [user], add_generation_prompt=True, source=source)
    check.attach("rendered: one user message, add_generation_prompt", plain)
    system = _SYSTEM_BLOCK.match(plain)
    check.against("default system message", system["content"] if system else "<no system block>")
    check.against("generation prompt", plain.rstrip("\n").rsplit("\n", 1)[-1])
    check.measure(
        "ends with the assistant header and a newline",
        repr(plain[-24:]),
        holds=plain.endswith("<|im_start|>assistant\n"),
        expected="'<|im_start|>assistant\\n'",
    )
    wrapped = f"<|im_start|>user\n{user['content']}<|im_end|>\n"
    check.measure(
        "user message wrapped in ChatML markers",
        wrapped in plain,
        holds=wrapped in plain,
        expected="<|im_start|>user, newline, content, <|im_end|>",
    )

    own = {"role": "system", "content": "You answer in one word."}
    with_system = render_chat_template(
        template, [own, user], add_generation_prompt=True, source=source
    )
    check.attach("rendered: own system message", with_system)
    got = _SYSTEM_BLOCK.match(with_system)
    check.measure(
        "a given system message replaces the default",
        got["content"] if got else None,
        holds=bool(got)
        and got["content"] == own["content"]
        and with_system.count("<|im_start|>system") == 1,
        expected="its content, once, and no default",
    )

    no_prompt = render_chat_template(template, [user], add_generation_prompt=False, source=source)
    check.measure(
        "no assistant header without add_generation_prompt",
        repr(no_prompt[-20:]),
        holds=not no_prompt.rstrip("\n").endswith("<|im_start|>assistant"),
        expected="ends with the last message's <|im_end|>",
    )
