"""A checkout nobody may write (a read-only mount, a container image's layer) certifies.

``pytest -m offline`` with ``--claims-evidence`` and ``--claims-report-html`` pointed
elsewhere and pytest's cache off (``-p no:cacheprovider``) must decide the same claims there
as anywhere, writing nothing into the checkout: the recorded Ollama store was copied into
pytest's temporary folder with its read-only modes and then written into, which ended 14
store and GGUF claims in PermissionError (issue 51).

File modes do not stop root, so as root this is skipped with the reason; CI runs it as its
unprivileged user (``.ci/as-user.sh``), which also certifies a read-only clone end to end.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from tests.checkout import copy_checkout, run_pytest

# A pytest run of the whole offline tier in a copy of the checkout.
pytestmark = pytest.mark.slow


def _set_writable(root: Path, writable: bool) -> None:
    """Give or take the write bits of ``root`` and everything under it (links untouched)."""
    for path in [root, *root.rglob("*")]:
        if path.is_symlink():
            continue
        mode = stat.S_IMODE(path.lstat().st_mode)
        path.chmod(mode | stat.S_IWUSR if writable else mode & ~0o222)


def _tree(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


def test_a_checkout_nobody_may_write_certifies_with_its_outputs_elsewhere(tmp_path):
    if os.geteuid() == 0:
        pytest.skip("run as root, whom file modes do not stop: a read-only checkout cannot "
                    "be shown here (.ci/as-user.sh runs this as its unprivileged user)")
    repo = copy_checkout(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    before = _tree(repo)
    _set_writable(repo, False)
    try:
        proc = run_pytest(repo, "-m", "offline", "-p", "no:xdist",
                          f"--claims-evidence={out / 'evidence.json'}",
                          f"--claims-report-html={out / 'report.html'}")
        after = _tree(repo)
    finally:
        _set_writable(repo, True)  # so that pytest can remove tmp_path
    output = proc.stdout[-4000:] + proc.stderr[-2000:]
    assert proc.returncode == 0, output
    assert "PermissionError" not in proc.stdout + proc.stderr, output
    claims = json.loads((out / "evidence.json").read_text("utf-8"))["claims"]
    errors = {c["id"]: c["verdict"] for c in claims if c["verdict"] == "error"}
    assert errors == {}, output
    # The store and GGUF claims the read-only copy broke are decided (the store fixture
    # assembled its copy of the recorded store and wrote the model blob into it).
    decided = {c["id"] for c in claims if c["verdict"] not in ("not-run", "untestable")}
    assert {"W2-MANIFEST-LAYERS", "W2-BLOB-SIZE", "W2-BLOB-SHA256"} <= decided, sorted(decided)
    assert (out / "report.html").is_file()
    assert after == before
