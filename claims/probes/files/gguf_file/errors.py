"""The GGUF reader's exception hierarchy.

Every malformed file is one :class:`GGUFFormatError`, an
:class:`~claims.probes.errors.InputError`, so the CLI exits 2 with one line and
the plugin records a probe error; its message names the file, the byte offset
and the field. The subclasses say what kind of problem it is:

* :class:`GGUFNotGGUFError` – the magic is not ``GGUF``;
* :class:`GGUFVersionError` – a version other than 2 or 3;
* :class:`GGUFTruncatedError` – bytes a field, count or tensor needs are not in
  the file (cut short, lying, or truncated by another process while read);
* :class:`GGUFValueError` – a metadata value that cannot be decoded;
* :class:`GGUFKeyError` – an empty, over-long, non-UTF-8 or repeated key;
* :class:`GGUFTensorError` – a bad tensor info record;
* :class:`GGUFLayoutError` – a bad alignment, or misaligned/overlapping data.

A file that cannot be opened or read at all is a plain ``InputError``.
"""

from __future__ import annotations

from claims.probes.errors import InputError


class GGUFFormatError(InputError):
    """The file is not a well-formed GGUF; the message names file, offset and field."""


class GGUFNotGGUFError(GGUFFormatError):
    """The file does not start with the magic bytes ``GGUF``."""


class GGUFVersionError(GGUFFormatError):
    """A GGUF version this reader does not handle (only 2 and 3 exist in use)."""


class GGUFTruncatedError(GGUFFormatError):
    """A field, count, length or tensor's data runs past the end of the file.

    The file was cut short or the number lies; from the bytes alone the two
    look alike, so both are reported as truncation. A file that shrinks while
    it is being read is reported the same way.
    """


class GGUFValueError(GGUFFormatError):
    """A metadata value that cannot be decoded: unknown type, bad bool, bad UTF-8, deep nesting."""


class GGUFKeyError(GGUFFormatError):
    """A metadata key that is empty, too long, not UTF-8, or repeated."""


class GGUFTensorError(GGUFFormatError):
    """A tensor info record with an unknown ggml type, bad dimensions or a repeated name."""


class GGUFLayoutError(GGUFFormatError):
    """A bad general.alignment, or tensor data misaligned or overlapping."""
