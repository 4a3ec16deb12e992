"""MC claims that need the Hugging Face Hub (hub tier)."""

from __future__ import annotations

import pytest

from claims.probes.files import hf_repo
from claims.testkit import PrerequisiteMissing, not_run

pytestmark = pytest.mark.hub

# The models the masterclass names, in their publisher's repositories (gated:
# a token with the license accepted is needed). Unpinned: the document names no
# revision, so the commit read is recorded instead.
LAYER_REPOS = {
    "Llama-3-8B layers": "meta-llama/Meta-Llama-3-8B",
    "Llama-3-70B layers": "meta-llama/Meta-Llama-3-70B",
}


@pytest.mark.claim("MC-LAYER-COUNTS")
def test_llama3_layer_counts(check, tmp_path_factory):
    for figure, repo in LAYER_REPOS.items():
        cache = tmp_path_factory.mktemp(repo.replace("/", "--"))
        try:
            snap = hf_repo.download_files(["config.json"], cache, repo, None)
        except PrerequisiteMissing as exc:
            not_run(str(exc))
        check.fact(f"hub revision {repo}", snap.revision)
        config = snap.config()
        check.against(
            figure,
            hf_repo.field_value(config, "num_hidden_layers", source=f"{repo}/config.json"),
            note=f"{repo} config.json",
        )
