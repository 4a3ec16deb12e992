"""Model names: ``[host/][namespace/]model[:tag]``, parsed and validated part by part.

A name becomes the path ``manifests/<host>/<namespace>/<model>/<tag>``, so each
part is checked against Ollama's own rules before any path is built: no
separators, no ``..``, no part that is empty or starts with a dot.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from claims.probes.ollama_store.errors import StoreError

__all__ = ["DEFAULT_HOST", "DEFAULT_NAMESPACE", "DEFAULT_TAG", "ModelName"]

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
        """Parse and validate a name; :class:`StoreError` (field "name") when it is not one.

        "phi4" -> registry.ollama.ai/library/phi4:latest; "user/model:tag" keeps
        the default host; "localhost:5000/ns/m:t" has a host with a port.
        """
        if not isinstance(text, str):
            raise StoreError(f"model name must be a string, got {type(text).__name__}",
                             field="name")
        shown = repr(text[:120])
        s = text
        for scheme in ("https://", "http://"):
            if s.startswith(scheme):
                s = s[len(scheme):]
                break
        tag = DEFAULT_TAG
        # A tag follows the last ':' only when no '/' comes after it; otherwise
        # the ':' belongs to a registry port in the host part.
        colon, slash = s.rfind(":"), s.rfind("/")
        if colon > slash:
            s, tag = s[:colon], s[colon + 1:]
        parts = s.split("/")
        if len(parts) > 3:
            raise StoreError(f"{shown} has more than host/namespace/model parts", field="name")
        host, namespace = DEFAULT_HOST, DEFAULT_NAMESPACE
        if len(parts) == 3:
            host, namespace, model = parts
        elif len(parts) == 2:
            namespace, model = parts
        else:
            (model,) = parts
        name = cls(host=host, namespace=namespace, model=model, tag=tag)
        found = name._first_problem()
        if found is not None:
            kind, value, problem = found
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
    if not value:
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
