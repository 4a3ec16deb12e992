"""SHA-256 digests of the files and values the transcription checks rest on.

The documents a transcription check read, by file name and digest
(:mod:`claims.text.transcribed`), and each catalog figure a fixture names at its place
(:mod:`claims.inputs.manifest` pins them in ``fixtures/recorded/MANIFEST.sha256``). Here
with the text they digest, not in :mod:`claims.inputs`: the text package imports nothing
of the inputs, which import it.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

__all__ = ["manifest_documents", "sha256_file", "value_digest"]


def sha256_file(path: Path) -> str:
    with path.open("rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


def value_digest(where: str, value: Any) -> str:
    """The digest of one resolved value at one place of a transcribed fixture: a changed
    value, or the same value moved to another place, gives another digest."""
    text = f"{where} = {json.dumps(value, ensure_ascii=False, sort_keys=True)}"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def manifest_documents(documents: Path, names: list[str]) -> list[dict[str, str]]:
    """The documents used, by file name and SHA-256 (for the evidence and the report)."""
    return [
        {"file": name, "sha256": sha256_file(documents / name)}
        for name in names
        if (documents / name).is_file()
    ]
