"""W3's two sources of the same files: the pinned transcription (offline) and the Hub (live).

A test that asks for ``qwen_files`` runs twice: once on the snapshot
transcribed from the post (tier ``offline``, evidence ``recorded``) and once on
the files downloaded from the Hub at the pinned revision (tier ``hub``,
evidence ``live``). The hub variant downloads nothing unless the hub tier runs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from claims.probes.files.hf_repo import Snapshot
from claims.testkit import Check, Source


@dataclass(frozen=True)
class QwenFiles:
    """The small files of Qwen2.5-3B-Instruct from one source."""

    snapshot: Snapshot
    live: bool

    @property
    def source(self) -> Source:
        """The check API's evidence source for this variant."""
        return "live" if self.live else "recorded"

    def name(self, file_name: str) -> str:
        """How evidence names a file: where it came from, then the file."""
        origin = "hub" if self.live else "snapshot"
        return f"{origin}:{file_name}"


@pytest.fixture(
    params=[
        pytest.param("snapshot", marks=pytest.mark.offline, id="snapshot"),
        pytest.param("hub", marks=pytest.mark.hub, id="hub"),
    ]
)
def qwen_files(request: pytest.FixtureRequest, check: Check) -> QwenFiles:
    """The files of one variant; the check's evidence source is declared from it."""
    if request.param == "hub":
        snapshot: Any = request.getfixturevalue("qwen_hub_files")
        files = QwenFiles(snapshot=snapshot, live=True)
    else:
        files = QwenFiles(snapshot=request.getfixturevalue("qwen_snapshot"), live=False)
    check.declare_source(files.source)
    return files


@pytest.fixture(scope="session")
def qwen_base_listing() -> Any:
    """hub tier: the base model's listing at its current head (the post pins no base revision)."""
    from claims.probes.files import hf_repo

    return hf_repo.fetch_listing(hf_repo.BASE_REPO_ID, revision=None)


@pytest.fixture(scope="session")
def qwen_base_files(qwen_base_listing: Any, tmp_path_factory: pytest.TempPathFactory) -> Any:
    """hub tier: the base model's config files at the revision its listing reported."""
    from claims.probes.files import hf_repo

    cache = tmp_path_factory.mktemp("hf-cache-base")
    return hf_repo.download_files(
        ("config.json", "generation_config.json"),
        cache,
        hf_repo.BASE_REPO_ID,
        qwen_base_listing.revision,
    )
