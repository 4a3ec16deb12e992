"""Render the evidence document into one self-contained HTML page (jinja2).

Autoescaping is on for every template, so claim text, measured values, reasons
and raw HTTP exchanges from the evidence are shown as text, never as markup;
the only markup inserted unescaped is the SVG that :mod:`claims.report.plots`
produced with matplotlib, whose text matplotlib escapes itself, and the page's
own script. Control, C1 and bidi characters in evidence text are printed as
visible escapes (:func:`claims.terminal.safe_lines`).

Should an escaping slip ever happen, the page's Content-Security-Policy stops
it from doing anything: no network at all (``default-src 'none'``), styles
inline only, and exactly one script, the page's own, allowed by its SHA-256
hash, so an injected ``<script>`` or ``onerror=`` attribute does not run.
"""

from __future__ import annotations

import base64
import hashlib
from typing import Any

import jinja2
from markupsafe import Markup

from claims.probes.files.artifacts import CacheUnwritable, cache_dir
from claims.records import Evidence
from claims.report.view import build_view
from claims.terminal import safe_lines

__all__ = ["content_security_policy", "environment", "render_html"]

_ENV: jinja2.Environment | None = None


def environment() -> jinja2.Environment:
    """The shared template environment (report and diff pages)."""
    global _ENV
    if _ENV is None:
        _ENV = jinja2.Environment(
            loader=jinja2.PackageLoader("claims.report", "templates"),
            autoescape=True,
            trim_blocks=True,
            lstrip_blocks=True,
            undefined=jinja2.StrictUndefined,
            finalize=_visible,
            bytecode_cache=_bytecode_cache(),
        )
    return _ENV


def _bytecode_cache() -> jinja2.BytecodeCache | None:
    """The templates compiled by an earlier run, kept in the cache folder: compiling the
    report's template was a hundredth of every run. jinja2 checks each against its
    template's source checksum and the Python version, so an edit or another interpreter
    compiles it again. None (compile every time, as before) without a writable cache."""
    try:
        folder = cache_dir() / "templates"
        folder.mkdir(parents=True, exist_ok=True)
    except (CacheUnwritable, OSError):
        return None
    return _KeptTemplates(str(folder))


class _KeptTemplates(jinja2.FileSystemBytecodeCache):
    """jinja2's file cache, best effort: a folder that cannot be read or written (its
    modes changed, a full disk) costs a compile, never the report."""

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        try:
            super().load_bytecode(bucket)
        except (OSError, ValueError, EOFError):
            bucket.reset()

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        try:
            super().dump_bytecode(bucket)
        except OSError:
            return


def _visible(value: Any) -> Any:
    """Every text a template prints shows control and bidi characters as escapes.

    Escaping makes evidence text inert as markup; this makes it honest as text: a
    right-to-left override in a model name or an ESC sequence in a reply is shown
    as ``\u202e`` or ``\x1b``, not obeyed by the page's layout. The page's own
    markup (``Markup``: the plots, the script) is left as it is.
    """
    if isinstance(value, str) and not isinstance(value, Markup):
        return safe_lines(value)
    return value


def content_security_policy(*scripts: str) -> str:
    """A strict policy: nothing from the network, inline styles, only these inline scripts."""
    hashes = " ".join(
        "'sha256-" + base64.b64encode(hashlib.sha256(s.encode("utf-8")).digest()).decode() + "'"
        for s in scripts
    )
    return "; ".join(
        [
            "default-src 'none'",
            f"script-src {hashes or chr(39) + 'none' + chr(39)}",
            "style-src 'unsafe-inline'",
            "img-src data:",
            "base-uri 'none'",
            "form-action 'none'",
        ]
    )


def _script() -> str:
    loader = environment().loader
    assert loader is not None
    source, _, _ = loader.get_source(environment(), "report.js.j2")
    return source


def render_html(evidence: Evidence) -> str:
    """The report page for one evidence document."""
    template = environment().get_template("report.html.j2")
    script = _script()
    view: dict[str, Any] = build_view(evidence)
    return template.render(**view, script=script, csp=content_security_policy(script)).lstrip()
