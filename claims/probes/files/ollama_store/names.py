"""Model names: ``[host/][namespace/]model[:tag]``, parsed and validated part by part.

This module is the suite's one model-name rule, Ollama's own (``types/model/name.go``
in Ollama's source): :func:`parse_name` splits a name as ``ParseName`` does (the tag
after the last ``:`` that follows the last ``/``, then model, namespace and host from
the right, a ``scheme://`` only on the host) and fills the defaults
registry.ollama.ai / library / latest; :attr:`ModelName.key` and :func:`same_model`
compare names as ``Name.EqualFold`` does, part by part and case-insensitively;
:meth:`ModelName.parse` is the same split, validated. Everything that parses or
compares model names (the store and API probes, the fake servers, the catalog's
per-model figures through :func:`claims.check.model_matches`) goes through these.

A name also becomes the path ``manifests/<host>/<namespace>/<model>/<tag>``, so
:meth:`ModelName.parse` checks each part against Ollama's ``isValidPart`` before
any path is built: no separators, no part that is empty or starts with a dot. It
also refuses ``..`` inside a part, which Ollama allows ("a..b" is a valid tag) but
which this suite never needs and would rather not join into a path.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from claims.probes.files.ollama_store.errors import StoreError

__all__ = [
    "DEFAULT_HOST",
    "DEFAULT_NAMESPACE",
    "DEFAULT_TAG",
    "ModelName",
    "model_key",
    "model_matches",
    "parse_name",
    "same_model",
]

DEFAULT_HOST = "registry.ollama.ai"
DEFAULT_NAMESPACE = "library"
DEFAULT_TAG = "latest"

_KINDS = ("host", "namespace", "model", "tag")
_PART_LIMITS = {"host": 350, "namespace": 80, "model": 80, "tag": 80}
# First character alphanumeric or underscore (so "." and ".." can never be a
# part), then letters, digits, '_', '-', '.'; a namespace has no dots and only
# a host may carry ':' (a registry port). These are Ollama's own name rules.
_PART_RE = {
    "host": re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.:-]*"),
    "namespace": re.compile(r"[A-Za-z0-9_][A-Za-z0-9_-]*"),
    "model": re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*"),
    "tag": re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*"),
}


@dataclass(frozen=True)
class ModelName:
    """A model reference ``[host/][namespace/]model[:tag]`` with Ollama's defaults filled in."""

    host: str
    namespace: str
    model: str
    tag: str

    @classmethod
    def parse(cls, text: str) -> ModelName:
        """:func:`parse_name`, then validated; :class:`StoreError` (field "name") if not a name.

        "phi4" -> registry.ollama.ai/library/phi4:latest; "user/model:tag" keeps
        the default host; "localhost:5000/ns/m:t" has a host with a port. The
        split is :func:`parse_name`'s (Ollama's ``ParseName``), so a name parses
        here exactly as it compares in :func:`same_model`.
        """
        if not isinstance(text, str):
            raise StoreError(f"model name must be a string, got {type(text).__name__}",
                             field="name")
        name = parse_name(text)
        shown = repr(text[:120])
        if "/" in name.host:  # what parse_name leaves of a fourth and further parts
            raise StoreError(f"{shown} has more than host/namespace/model parts", field="name")
        found = name._first_problem()
        if found is not None:
            kind, value, problem = found
            value = "" if value == MISSING_PART else value  # a part the text left out
            raise StoreError(f"{shown}: {kind} {value[:90]!r} {problem}", field="name")
        return name

    @classmethod
    def from_parts(cls, host: str, namespace: str, model: str, tag: str) -> ModelName | None:
        """The name a manifest path spells, or None when a part is not a valid name part."""
        name = cls(host=host, namespace=namespace, model=model, tag=tag)
        return None if name._first_problem() else name

    @property
    def parts(self) -> tuple[str, str, str, str]:
        return (self.host, self.namespace, self.model, self.tag)

    @property
    def key(self) -> tuple[str, str, str, str]:
        """The parts Ollama compares (``Name.EqualFold``), case-folded: equal keys, one model."""
        return (self.host.lower(), self.namespace.lower(), self.model.lower(), self.tag.lower())

    @property
    def full(self) -> str:
        return f"{self.host}/{self.namespace}/{self.model}:{self.tag}"

    @property
    def display(self) -> str:
        """As ``ollama list`` shows it: default host and namespace dropped, tag kept."""
        if self.host.lower() == DEFAULT_HOST:
            if self.namespace.lower() == DEFAULT_NAMESPACE:
                return f"{self.model}:{self.tag}"
            return f"{self.namespace}/{self.model}:{self.tag}"
        return self.full

    def __str__(self) -> str:
        return self.display

    def _first_problem(self) -> tuple[str, str, str] | None:
        """(kind, value, what is wrong) of the first invalid part, host first; None if valid."""
        for kind, value in zip(_KINDS, self.parts, strict=True):
            problem = _part_problem(kind, value)
            if problem:
                return kind, value, problem
        return None


def _part_problem(kind: str, value: str) -> str | None:
    if not value or value == MISSING_PART:
        return "is empty"
    if len(value) > _PART_LIMITS[kind]:
        return f"is longer than {_PART_LIMITS[kind]} characters"
    if ".." in value:
        return "contains '..'"
    if not _PART_RE[kind].fullmatch(value):
        allowed = "letters, digits, '_', '-'" + ("" if kind == "namespace" else ", '.'")
        allowed += ", ':'" if kind == "host" else ""
        return f"may contain only {allowed} and must start with a letter, digit or '_'"
    return None


# Ollama marks a part that a separator promised but left empty ("/phi4", "phi4:").
MISSING_PART = "!MISSING!"


def _cut_promised(text: str, sep: str) -> tuple[str, str, bool]:
    """name.go's cutPromised: split at the last ``sep``; empty sides become MISSING_PART."""
    i = text.rfind(sep)
    if i < 0:
        return text, "", False
    return text[:i] or MISSING_PART, text[i + len(sep) :] or MISSING_PART, True


def parse_name(text: str) -> ModelName:
    """A name split and completed as Ollama's ``ParseName`` does, without validation.

    "phi4" and "library/phi4:latest" both give registry.ollama.ai/library/phi4:latest;
    "localhost:5000/ns/m" has the host localhost:5000 and the tag latest. A name that
    is not valid keeps its odd parts (an empty model, MISSING_PART), so it matches
    nothing but itself; :meth:`ModelName.parse` is the validating form.
    """
    s, tag = text, ""
    if s.rfind(":") > s.rfind("/"):
        s, tag, _ = _cut_promised(s, ":")
    host = namespace = ""
    s, model, promised = _cut_promised(s, "/")
    if not promised:
        model = s
    else:
        s, namespace, promised = _cut_promised(s, "/")
        if not promised:
            namespace = s
        else:
            scheme, sep, rest = s.partition("://")
            host = rest if sep else scheme
    return ModelName(
        host=host or DEFAULT_HOST,
        namespace=namespace or DEFAULT_NAMESPACE,
        model=model,
        tag=tag or DEFAULT_TAG,
    )


def model_key(text: str) -> tuple[str, str, str, str]:
    """The parts Ollama compares, case-folded: equal keys are the same model."""
    return parse_name(text).key


def same_model(a: str, b: str) -> bool:
    """Whether two names are one model by Ollama's rule (``ParseName`` + ``EqualFold``)."""
    return model_key(a) == model_key(b)


def model_matches(stated_model: str, model: str | None) -> bool:
    """Whether a figure's model is the model under test, by Ollama's own name rule.

    'phi4', 'phi4:latest' and 'registry.ollama.ai/library/PHI4:latest' are one
    model; another tag ('phi4:14b') is another; no model under test matches none.
    """
    return model is not None and same_model(stated_model, model)
