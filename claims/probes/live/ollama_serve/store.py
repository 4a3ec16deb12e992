"""A private model store for a private server: the user's models, the user's store untouched.

Ollama keeps a model as a manifest naming content-addressed blobs
(``blobs/sha256-<hex>``), and never writes into a blob it already has. So a
private store can share the user's blobs by hard link: no bytes are copied, and
the user's files keep their content whatever the private server does (a blob it
deletes is only its own link). Manifests are copied instead: they are small,
and a server that rewrote one through a shared inode would change the user's.

A shared inode shares its times, though: ``ollama create`` sets the modification
time of every existing layer it reuses to now (``touchLayer`` in
``manifest/layer.go``, 0.31.2 and 0.32.15 alike, so that a pruner's grace period
spares it), and a private server creating a model whose config or weights the
user already has moved the user's blob's time (seen on a real 0.32.15: the 156 B
config blob of gemma3:270m, when the residency checks created their variant).
:meth:`SharedStore.restore_times` puts every linked blob's times back as they
were when it was linked; the private servers call it each time one stops.
Hard links need one filesystem (and, under ``fs.protected_hardlinks``, files the
user owns); otherwise the bundled Gemma 3 270M GGUF is imported into the
private server with ``ollama create``.
"""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from claims.probes.errors import ProbeError
from claims.probes.files.ollama_store import OllamaStore
from claims.probes.live.ollama_serve.errors import ServeError

__all__ = ["SharedStore", "import_gguf", "rename_gguf", "share_store", "store_snapshot"]

CREATE_TIMEOUT_S = 600.0


@dataclass
class SharedStore:
    """What the private store holds and how it got it."""

    root: Path
    method: str  # "hard links" | "imported" | "empty"
    source: Path | None = None
    models: list[str] = field(default_factory=list)
    linked_blobs: int = 0
    problem: str | None = None  # why sharing was not possible
    # The user's blob -> (device, inode, atime_ns, mtime_ns) when it was linked.
    times: dict[Path, tuple[int, int, int, int]] = field(default_factory=dict)
    # The user's blobs whose times a private server moved and restore_times put back.
    restored: list[str] = field(default_factory=list)

    def restore_times(self) -> list[str]:
        """Put back the times of the user's blobs that a private server moved; their names.

        Only a file that is still the inode that was linked is touched (a user who
        replaced a blob meanwhile keeps theirs); one that cannot be restored is
        left as it is, and the user-server check reports its change.
        """
        moved = []
        for path, (dev, ino, atime_ns, mtime_ns) in self.times.items():
            try:
                st = path.stat()
                if (st.st_dev, st.st_ino) != (dev, ino) or st.st_mtime_ns == mtime_ns:
                    continue
                os.utime(path, ns=(atime_ns, mtime_ns))
            except OSError:
                continue
            moved.append(path.name)
        self.restored += [name for name in moved if name not in self.restored]
        return moved

    def to_json(self) -> dict[str, object]:
        return {
            "root": str(self.root),
            "method": self.method,
            "source": str(self.source) if self.source else None,
            "models": list(self.models),
            "linked_blobs": self.linked_blobs,
            "problem": self.problem,
            "restored_times": list(self.restored),
        }


def share_store(user_root: Path, private_root: Path) -> SharedStore:
    """Fill ``private_root`` with the user's models: blobs hard-linked, manifests copied.

    Only manifests the store probe validates are taken, and only the blobs they
    name (partial downloads and stray files stay behind). When no blob can be
    linked (another filesystem, no permission) the result says why and holds
    nothing; a half-shared store is never left behind.
    """
    (private_root / "blobs").mkdir(parents=True, exist_ok=True)
    (private_root / "manifests").mkdir(parents=True, exist_ok=True)
    result = SharedStore(private_root, "empty", user_root)
    try:
        store = OllamaStore(user_root)
        manifests = store.manifests(strict=False)
    except (ProbeError, OSError) as exc:
        result.problem = f"the user's store {user_root} cannot be read: {exc}"
        return result
    if not manifests:
        result.problem = f"the user's store {user_root} holds no model"
        return result
    linked: set[str] = set()
    copied: list[Path] = []
    try:
        for manifest in manifests:
            for layer in manifest.blobs:
                if layer.digest in linked:
                    continue
                source, _ = store.existing_blob(layer)
                target = private_root / "blobs" / layer.blob_name
                if not target.exists():
                    st = source.stat()
                    os.link(source, target)
                    result.times[source] = (st.st_dev, st.st_ino, st.st_atime_ns, st.st_mtime_ns)
                linked.add(layer.digest)
            target = private_root / manifest.path.relative_to(store.root)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(manifest.path, target)
            copied.append(target)
            result.models.append(manifest.name.display)
    except (ProbeError, OSError) as exc:
        shutil.rmtree(private_root / "blobs", ignore_errors=True)
        shutil.rmtree(private_root / "manifests", ignore_errors=True)
        (private_root / "blobs").mkdir(parents=True)
        (private_root / "manifests").mkdir(parents=True)
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        result.problem = f"the user's blobs cannot be hard-linked from {user_root}: {reason}"
        result.models = []
        result.times = {}
        return result
    result.method = "hard links"
    result.linked_blobs = len(linked)
    return result


# A GGUF's metadata comes first, general.name among its first keys.
_HEAD_BYTES = 1 << 20
_GGUF_STRING = 8  # the value type of a string in GGUF metadata


def rename_gguf(path: Path) -> str | None:
    """Change the last letter of a GGUF's ``general.name`` in place; the new name, or None
    when the file has no such string in its first MiB.

    Same length, so no offset moves: the file stays a valid GGUF with other bytes (another
    SHA-256, so another blob and another runner when a server imports it). Bytes appended
    to a GGUF do not do: ``ollama create`` stores the GGUF it parsed.
    """
    key = b"general.name"
    with open(path, "r+b") as fh:
        head = fh.read(_HEAD_BYTES)
        at = head.find(struct.pack("<Q", len(key)) + key)
        if at < 0:
            return None
        pos = at + 8 + len(key)
        if len(head) < pos + 12:
            return None
        kind, length = struct.unpack_from("<IQ", head, pos)
        if kind != _GGUF_STRING or not 0 < length < 256:
            return None
        start = pos + 12
        value = head[start : start + length]
        if len(value) != length:
            return None
        last = b"X" if value[-1:] != b"X" else b"Y"
        fh.seek(start + length - 1)
        fh.write(last)
    return (value[:-1] + last).decode("utf-8", "replace")


def import_gguf(
    binary: Path, env: Mapping[str, str], name: str, gguf: Path, workdir: Path
) -> None:
    """``ollama create NAME -f Modelfile`` (``FROM <gguf>``) against the server in ``env``.

    ``env`` must carry the private server's ``OLLAMA_HOST``: the CLI sends the
    file to whichever server that names.
    """
    workdir.mkdir(parents=True, exist_ok=True)
    modelfile = workdir / f"Modelfile.{name.replace(':', '_').replace('/', '_')}"
    modelfile.write_text(f"FROM {gguf}\n", encoding="utf-8")
    try:
        done = subprocess.run(
            [str(binary), "create", name, "-f", str(modelfile)],
            env=dict(env),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=CREATE_TIMEOUT_S,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise ServeError(f"ollama create {name} took over {CREATE_TIMEOUT_S:g} s") from None
    except OSError as exc:
        raise ServeError(f"cannot run {binary} create: {exc.strerror or exc}") from None
    if done.returncode != 0:
        said = (done.stderr or done.stdout).decode("utf-8", "replace").strip()[-500:]
        raise ServeError(f"ollama create {name} failed with status {done.returncode}: {said}")


def store_snapshot(root: Path) -> dict[str, tuple[int, int]]:
    """(size, mtime_ns) of every file under ``root``, by relative path.

    Before and after a session: the user's store must come out as it went in.
    (Hard links change a file's link count and ctime, never its size or mtime.)
    """
    out: dict[str, tuple[int, int]] = {}
    for folder, _dirs, files in os.walk(root):
        for name in files:
            path = Path(folder) / name
            try:
                st = path.lstat()
            except OSError:
                continue
            out[str(path.relative_to(root))] = (st.st_size, st.st_mtime_ns)
    return out
