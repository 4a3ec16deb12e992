"""Ollama's version strings and RFC 3339 time stamps, read into Python values."""

from __future__ import annotations

import re
from datetime import datetime

__all__ = ["parse_time", "parse_version"]


def parse_version(text: str) -> tuple[int, int, int] | None:
    """``"0.31.2"`` or ``"v0.6.7-rc1"`` -> (major, minor, patch); None if it is not one."""
    m = re.match(r"^v?(\d+)\.(\d+)\.(\d+)", text.strip())
    return (int(m.group(1)), int(m.group(2)), int(m.group(3))) if m else None


def parse_time(text: str) -> datetime:
    """An Ollama time stamp (``created_at``, ``expires_at``) as an aware datetime.

    Ollama's RFC 3339 times carry nanoseconds; Python parses up to microseconds, so
    the digits past the sixth are dropped (a sub-microsecond difference).
    """
    trimmed = re.sub(r"(\.\d{6})\d+", r"\1", text.strip()).replace("Z", "+00:00")
    return datetime.fromisoformat(trimmed)
