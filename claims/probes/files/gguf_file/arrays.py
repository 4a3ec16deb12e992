"""Long GGUF arrays decoded on request: ``header.array(key)[i]``, slices, ``len``.

The header records a long array as (item type, count, offset); a
:class:`GGUFArray` reads only the byte range a request needs, with positioned
reads (see :mod:`.source`), so a file truncated while it is read is a
GGUFTruncatedError and never a crash.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, overload

from gguf.constants import GGUFValueType

from claims.probes.errors import InputError
from claims.probes.files.gguf_file.errors import GGUFValueError
from claims.probes.files.gguf_file.metadata import MetadataField
from claims.probes.files.gguf_file.source import Source
from claims.probes.files.gguf_file.values import (
    MAX_STRING_BYTES,
    SCALAR_SIZES,
    decode_items,
    decode_text,
    skip_items,
    value_type,
    walk_strings,
)

if TYPE_CHECKING:
    from claims.probes.files.gguf_file.view import HeaderView

__all__ = ["GGUFArray"]


class GGUFArray(Sequence[Any]):
    """An array value decoded on request: ``arr[i]``, ``arr[a:b]``, ``len(arr)``.

    Fixed-size items are read straight from their byte range. Strings and
    nested arrays need the offsets of the items before them: a walk over the
    file finds them, only as far as asked (about 20 ms for all of Gemma's
    262,144 tokens), and is kept; a slice then reads only its own bytes.
    The file is reopened for each read and must not have changed (size, mtime)
    since the header was read.
    """

    def __init__(self, header: HeaderView, fld: MetadataField) -> None:
        assert fld.array is not None
        self.header = header
        self.field = fld
        self.info = fld.array
        self._starts: list[int] = [self.info.offset]  # item file offsets, grown on demand

    def __len__(self) -> int:
        return self.info.count

    @property
    def item_type(self) -> GGUFValueType:
        return self.info.item_type

    @contextmanager
    def _unchanged_file(self) -> Iterator[Source]:
        h = self.header
        with Source.open(h.path, ">" if h.byte_order == "big" else "<") as src:
            if (src.size, src.mtime_ns) != (h.file_size, h.mtime_ns):
                raise InputError(
                    "file changed since its header was read", path=str(h.path), field=self.field.key
                )
            yield src

    def _index(self, src: Source, stop: int) -> list[int]:
        """Item offsets known at least up to item ``stop`` (its end when ``stop`` = count).

        The walk goes only as far as asked and resumes where it stopped, so
        ``tokens[:8]`` costs eight steps and ``tokens[100264]`` a walk to there.
        """
        starts = self._starts
        if len(starts) > stop:
            return starts
        end = self.info.offset + self.info.nbytes
        steps = stop + 1 - len(starts)
        changed = InputError(
            "file changed since its header was read (array walk disagrees)",
            path=str(self.header.path),
            field=self.field.key,
        )
        off = starts[-1]
        if self.info.item_type is GGUFValueType.STRING:
            # Bounds were checked when the header was read (same size and
            # mtime); a walk that disagrees means the bytes changed anyway.
            off = walk_strings(src, off, steps, repr(self.field.key), starts)
        else:
            for _ in range(steps):
                where = f"{self.field.key!r}[{len(starts) - 1}]"
                sub_type = value_type(src, src.u32(off, where), off, where)
                sub_count = src.u64(off + 4, where)
                off, _, _ = skip_items(src, off + 12, sub_type, sub_count, 1, where)
                starts.append(off)
        if off > end or (len(starts) == self.info.count + 1 and off != end):
            raise changed
        return starts

    def _decode_range(self, first: int, stop: int) -> list[Any]:
        if first >= stop:
            return []
        item_type = self.info.item_type
        tag = repr(self.field.key)
        with self._unchanged_file() as src:
            size = SCALAR_SIZES.get(item_type)
            if size is not None:
                return decode_items(
                    src, self.info.offset + first * size, item_type, stop - first, tag
                )
            starts = self._index(src, stop)
            if item_type is GGUFValueType.STRING:
                return _strings(src, starts, first, stop, tag)
            out: list[Any] = []
            for i in range(first, stop):
                off = starts[i]
                where = f"{tag} item {i}"
                sub_type = value_type(src, src.u32(off, where), off, where)
                sub_count = src.u64(off + 4, where)
                out.append(decode_items(src, off + 12, sub_type, sub_count, where))
            return out

    @overload
    def __getitem__(self, index: int) -> Any: ...

    @overload
    def __getitem__(self, index: slice) -> list[Any]: ...

    def __getitem__(self, index: int | slice) -> Any:
        n = self.info.count
        if isinstance(index, slice):
            first, stop, step = index.indices(n)
            if step == 1:
                return self._decode_range(first, stop)
            wanted = range(first, stop, step)
            if not wanted:
                return []
            lo = min(wanted)
            items = self._decode_range(lo, max(wanted) + 1)
            return [items[i - lo] for i in wanted]
        i = int(index)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError(f"{self.field.key}: index {index} out of range for {n} items")
        return self._decode_range(i, i + 1)[0]

    def __iter__(self) -> Iterator[Any]:
        return iter(self[:])


def _strings(src: Source, starts: list[int], first: int, stop: int, tag: str) -> list[str]:
    """Strings ``first`` to ``stop`` - 1, whose offsets (``starts``) a walk has found.

    Their lengths follow from the offsets and are checked against the cap
    before anything is read, so a request costs at most the cap per item; then
    the range is read at once and cut up.
    """
    for i in range(first, stop):
        length = starts[i + 1] - starts[i] - 8
        if length > MAX_STRING_BYTES:
            raise src.fail(
                GGUFValueError,
                f"string of {length:,} bytes exceeds this reader's limit of {MAX_STRING_BYTES:,}",
                starts[i],
                f"{tag} item {i}",
            )
    window, at = src.span(starts[first], starts[stop] - starts[first], tag)
    return [
        decode_text(
            src, window[starts[i] + 8 - at : starts[i + 1] - at], starts[i], f"{tag} item {i}"
        )
        for i in range(first, stop)
    ]
