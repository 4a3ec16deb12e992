"""A chat template rendered the way transformers renders it: jinja2's sandbox, its
``tojson`` filter, ``raise_exception``; the output is text.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from claims.probes.errors import InputError


def _tojson(value: Any, indent: int | None = None) -> str:
    # jinja2's own tojson escapes <, >, & and ' for HTML; chat templates need the
    # plain JSON text, so (like transformers) the filter is replaced.
    return json.dumps(value, ensure_ascii=False, indent=indent)


def render_chat_template(
    template: str,
    messages: Sequence[Mapping[str, Any]],
    *,
    add_generation_prompt: bool = False,
    tools: Sequence[Mapping[str, Any]] | None = None,
    source: str | None = None,
    **variables: Any,
) -> str:
    """Render a chat template to the text the model sees (jinja2's immutable sandbox).

    The environment matches the one transformers' ``apply_chat_template`` uses
    (trim_blocks, lstrip_blocks, the loopcontrols extension, a plain-JSON
    ``tojson``, a ``raise_exception`` helper), so the output is the same string.
    A syntax error, a sandbox violation or an error the template raises is an
    :class:`InputError` naming the field (and template line when known).
    """
    from jinja2 import TemplateError, TemplateSyntaxError
    from jinja2.ext import loopcontrols
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    def raise_exception(message: str) -> None:
        raise TemplateError(message)

    env = ImmutableSandboxedEnvironment(
        trim_blocks=True, lstrip_blocks=True, extensions=[loopcontrols], autoescape=False
    )
    env.filters["tojson"] = _tojson
    env.globals["raise_exception"] = raise_exception
    try:
        compiled = env.from_string(template)
    except TemplateSyntaxError as exc:
        raise InputError(
            f"template syntax error at line {exc.lineno}: {exc.message}",
            path=source,
            field="chat_template",
        ) from None
    try:
        return compiled.render(
            messages=[dict(m) for m in messages],
            tools=None if tools is None else [dict(t) for t in tools],
            add_generation_prompt=add_generation_prompt,
            **variables,
        )
    except TemplateError as exc:  # SecurityError and UndefinedError are TemplateErrors
        raise InputError(
            f"template failed: {type(exc).__name__}: {exc}", path=source, field="chat_template"
        ) from None
    except (TypeError, KeyError, IndexError, ValueError) as exc:
        raise InputError(
            f"template failed on these messages: {type(exc).__name__}: {exc}",
            path=source,
            field="chat_template",
        ) from None
