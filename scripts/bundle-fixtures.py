"""Rewrite fixtures/BUNDLED.sha256, the SHA-256 of every file of fixtures/lab and fixtures/hub.

Usage: .venv/bin/python scripts/bundle-fixtures.py [--lab-repo GITDIR]

Every run checks those folders against it (claims.inputs.bundled), so an edited byte of the
author's lab or of the Hub snapshot fails the claims of the documents relying on it.
Run this only after a deliberate change (a newer lab commit, or lab files a document's
``lab`` list now names), and commit the manifest with it.

With ``--lab-repo GITDIR`` (a clone or bare mirror of the lab repository) it first rewrites
fixtures/lab/upstream.json's entries too: one per copied file a document's ``lab`` list
names, with its upstream path, git blob id, mode and the commit that last changed it, at
the commit upstream.json records; a copy whose bytes are not the lab's blob there is
refused, naming the file. Without it, each such file must already have its entry.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from claims.catalog.loader import Catalog, load_catalog
from claims.inputs.bundled import (
    UPSTREAM,
    bundled_files,
    git_blob_id,
    listing_documents,
    write_bundled,
)

ROOT = Path(__file__).resolve().parents[1]
GIT_TIMEOUT_S = 60


def _git(repo: Path, *args: str) -> str:
    proc = subprocess.run(["git", "--git-dir", str(repo), *args], capture_output=True,
                          text=True, timeout=GIT_TIMEOUT_S, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"git {' '.join(args)} in {repo}: {proc.stderr.strip()}")
    return proc.stdout


def _entry(root: Path, repo: Path, commit: str, key: str,
           upstream_path: str) -> dict[str, str]:
    listing = _git(repo, "ls-tree", commit, "--", upstream_path).strip()
    if not listing:
        raise SystemExit(f"fixtures/lab/{key}: {upstream_path} is not in the lab at {commit}")
    meta, _, _ = listing.partition("\t")
    mode, _, blob = meta.split()
    data = (root / "fixtures" / "lab" / key).read_bytes()
    if git_blob_id(data) != blob:
        raise SystemExit(f"fixtures/lab/{key} is not {upstream_path} at {commit} (the lab's "
                         f"blob is {blob}): copy the file byte for byte")
    last = _git(repo, "log", "-1", "--format=%H", commit, "--", upstream_path).strip()
    return {"upstream_path": upstream_path, "git_blob": blob, "mode": mode,
            "last_changed_in": last}


def rewrite_upstream(root: Path, catalog: Catalog, repo: Path | None) -> int:
    """Rewrite ``root``'s upstream.json entries for the copied files the catalog's lab
    lists name; the number of entries written."""
    path = root / UPSTREAM
    data: dict[str, Any] = json.loads(path.read_text("utf-8"))
    old: dict[str, dict[str, str]] = data["files"]
    files: dict[str, dict[str, str]] = {}
    for rel in bundled_files(root, catalog):
        if not rel.startswith("fixtures/lab/") or not listing_documents(catalog, rel):
            continue
        key = rel.removeprefix("fixtures/lab/")
        entry = old.get(key)
        if repo is not None:
            upstream_path = entry["upstream_path"] if entry else key
            files[key] = _entry(root, repo, data["commit"], key, upstream_path)
        elif entry is None:
            raise SystemExit(f"{rel}: {UPSTREAM} has no entry for it; rerun with "
                             "--lab-repo GITDIR (the lab repository) to write it")
        else:
            files[key] = entry
    data["files"] = dict(sorted(files.items()))
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", "utf-8")
    return len(files)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lab-repo", type=Path, metavar="GITDIR",
                        help="the lab repository (a clone's .git or a bare mirror): rewrite "
                        f"{UPSTREAM} from it first")
    args = parser.parse_args(argv)
    catalog = load_catalog()
    entries = rewrite_upstream(ROOT, catalog, args.lab_repo)
    path = write_bundled(ROOT)
    print(f"{entries} lab files -> {UPSTREAM}; "
          f"{len(bundled_files(ROOT, catalog))} files -> {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
