"""Reports made safe for the terminal before pytest prints them.

A failure message, a "not run" reason or captured output can quote a GGUF's
metadata, a server's reply or an error body: text a hostile file or server
chose. pytest prints those as they are, so an ESC sequence in a tokenizer name
would clear the screen or retitle the window, and a bidi override would reorder
the ``-ra`` summary. Every text of a test's or a collector's report goes through
the suite's one sanitiser (:func:`claims.terminal.safe_lines`) when the report
is made (``pytest_runtest_makereport``, ``pytest_make_collect_report``), before
any reporter sees it: the long failure text, the crash line ``-ra`` quotes, the
skip and xfail reasons, the captured sections.

The report's structure is walked generically (dataclasses, tuples, lists), so
no private pytest class is named here; a value that is not text is left as it
is. The evidence file keeps the original text (JSON escapes it; the report page
shows it through the same sanitiser).

Warnings are not part of a report: pytest's warnings summary prints each one's
message as it is. The suite's own warning names a deprecated option, but a
library's warning in a test or pytest's warning about a thread that died can
quote a hostile file or reply, so :class:`WarningSanitizer` escapes every
recorded warning's message before any reporter sees it (under xdist, in the
worker, before the warning is shipped to the controller).
"""

from __future__ import annotations

import contextlib
import dataclasses
import warnings
from typing import Any

import pytest

from claims.terminal import safe_lines

__all__ = ["WarningSanitizer", "sanitize_report", "sanitize_warning", "sanitized"]

# pytest's failure representations nest a few levels (chain -> traceback -> entry
# -> file location); anything deeper is not a representation of a failure.
_MAX_DEPTH = 12


def sanitized(value: Any, depth: int = 0, seen: set[int] | None = None) -> Any:
    """``value`` with every text in it (through tuples, lists and dataclasses) made safe.

    Dataclass instances are changed in place (their class stays the one pytest
    knows how to print), each once: pytest shares one crash location between a
    chain and its last link, and escaping it twice would double its backslashes.
    Tuples and lists are rebuilt.
    """
    seen = set() if seen is None else seen
    if isinstance(value, str):
        return safe_lines(value)
    if depth > _MAX_DEPTH:
        return value
    if isinstance(value, tuple):
        return tuple(sanitized(v, depth + 1, seen) for v in value)
    if isinstance(value, list):
        return [sanitized(v, depth + 1, seen) for v in value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        if id(value) in seen:
            return value
        seen.add(id(value))
        for field in dataclasses.fields(value):
            current = getattr(value, field.name, None)
            cleaned = sanitized(current, depth + 1, seen)
            if cleaned is not current:
                # A field that refuses assignment keeps its text (none of pytest's do).
                with contextlib.suppress(AttributeError, TypeError):
                    object.__setattr__(value, field.name, cleaned)
    return value


def sanitize_report(report: Any) -> None:
    """Make a TestReport's or CollectReport's printed texts safe (in place)."""
    longrepr = getattr(report, "longrepr", None)
    if longrepr is not None and not hasattr(longrepr, "errisinstance"):  # not an ExceptionInfo
        report.longrepr = sanitized(longrepr)
    sections = getattr(report, "sections", None)
    if isinstance(sections, list):
        report.sections = [sanitized(s) for s in sections]
    wasxfail = getattr(report, "wasxfail", None)
    if isinstance(wasxfail, str):
        report.wasxfail = safe_lines(wasxfail)


def sanitize_warning(warning_message: warnings.WarningMessage) -> None:
    """Make the message pytest prints of one recorded warning safe (in place).

    The warning keeps its class: its ``args`` become the escaped text, which is also
    what pytest-xdist rebuilds it from on the controller. A warning whose own
    ``__str__`` ignores its args is replaced by the escaped text itself.
    """
    message = warning_message.message
    text = str(message)
    cleaned = safe_lines(text)
    if cleaned == text:
        return
    if isinstance(message, Warning):
        message.args = (cleaned,)
        if str(message) == cleaned:
            return
    warning_message.message = cleaned


class WarningSanitizer:
    """Registered while the plugin is active: escapes each warning before it is reported."""

    @pytest.hookimpl(tryfirst=True)  # before the terminal reporter (and xdist's worker) read it
    def pytest_warning_recorded(self, warning_message: warnings.WarningMessage) -> None:
        sanitize_warning(warning_message)
