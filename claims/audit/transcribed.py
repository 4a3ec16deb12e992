"""Audit of the transcribed values (fixtures/recorded/): placeholder until anchors exist."""

from __future__ import annotations

from typing import Any


def audit_transcriptions() -> dict[str, Any]:
    return {"skipped": "no anchors"}
