"""GGUF files: header facts read without touching tensor data.

A GGUF file is a fixed 24-byte preamble (magic ``GGUF``, version, tensor
count, metadata count), the metadata key/value pairs, one info record per
tensor (name, dimensions, ggml type, offset), padding up to the alignment,
and then the tensor data. :func:`read_header` walks everything up to the data
section and nothing after it, so its cost follows the size of the header and
not the size of the file: a 25 GB file with the same header reads as fast as a
250 MB one.

Why not ``gguf.GGUFReader``: it is the reference and the tests use it as the
cross-check, but it builds one numpy view per metadata item (262,144 token
strings cost it about 9 s on the Gemma 3 270M file, measured in
tests/probes/files/test_gguf_speed.py), it memory-maps the file (a file truncated
while it is read kills the process with SIGBUS), and it does not bound its
reads: on hostile files it fails with IndexError or RecursionError, loops
forever, or accepts the file silently (tests/probes/files/test_gguf_hostile.py keeps
the observations). This reader reads with ``os.pread`` into bounded buffers,
records large arrays as (type, count, offset) and materialises them only on
request, checks every count and length against the bytes left in the file
before using it, and reports a malformed file as one :class:`GGUFFormatError`
naming the file, the byte offset, the field and the problem.

Numbers: offsets and sizes are in bytes; ``dims`` are in GGUF order (ne[0],
the fastest-varying dimension, first); bits per parameter are file or tensor
bytes x 8 / parameter count.

The modules, in the order a read goes through them:

* :mod:`.errors` – the GGUFFormatError hierarchy;
* :mod:`.source` – how bytes are read (positioned reads, bounds checks);
* :mod:`.values` – value types, and walking and decoding values;
* :mod:`.metadata` – key/value pairs (:class:`MetadataField`);
* :mod:`.tensors` – tensor info records (:class:`TensorInfo`);
* :mod:`.view` – what the helpers below read of a header (a protocol the header
  satisfies, so none of them imports the header that is built from them);
* :mod:`.layout` – alignment, offsets and overlaps of the tensor data;
* :mod:`.arrays` – :class:`GGUFArray`, long arrays decoded on request;
* :mod:`.tokenizer` – :class:`TokenizerInfo`;
* :mod:`.header` – :class:`GGUFHeader`, :func:`read_header`, :func:`read_magic`;
* :mod:`.summary` – what ``claims inspect gguf`` prints (:func:`inspect_header`,
  a header as JSON).

Beside the read, on what it returns:

* :mod:`.token_strings` – :func:`~.token_strings.token_bytes`, a token string as
  the bytes it stands for (the one decoder, with one failure contract;
  :mod:`claims.probes.tokens.vocab` sets a vocabulary against cl100k_base).
"""

from __future__ import annotations

from claims.probes.files.gguf_file.arrays import GGUFArray
from claims.probes.files.gguf_file.errors import (
    GGUFFormatError,
    GGUFKeyError,
    GGUFLayoutError,
    GGUFNotGGUFError,
    GGUFTensorError,
    GGUFTruncatedError,
    GGUFValueError,
    GGUFVersionError,
)
from claims.probes.files.gguf_file.header import (
    GGUF_MAGIC,
    PREAMBLE_BYTES,
    SUPPORTED_VERSIONS,
    GGUFHeader,
    read_header,
    read_magic,
)
from claims.probes.files.gguf_file.metadata import EAGER_ARRAY_ITEMS, MAX_KEY_BYTES, MetadataField
from claims.probes.files.gguf_file.summary import inspect, inspect_header
from claims.probes.files.gguf_file.tensors import (
    MAX_DIMS,
    MAX_ELEMENTS,
    MAX_TENSOR_NAME_BYTES,
    TensorInfo,
)
from claims.probes.files.gguf_file.tokenizer import TokenizerInfo
from claims.probes.files.gguf_file.values import (
    MAX_ARRAY_DEPTH,
    MAX_STRING_BYTES,
    ArrayInfo,
    type_name,
)

__all__ = [
    "EAGER_ARRAY_ITEMS",
    "GGUF_MAGIC",
    "MAX_ARRAY_DEPTH",
    "MAX_DIMS",
    "MAX_ELEMENTS",
    "MAX_KEY_BYTES",
    "MAX_STRING_BYTES",
    "MAX_TENSOR_NAME_BYTES",
    "PREAMBLE_BYTES",
    "SUPPORTED_VERSIONS",
    "ArrayInfo",
    "GGUFArray",
    "GGUFFormatError",
    "GGUFHeader",
    "GGUFKeyError",
    "GGUFLayoutError",
    "GGUFNotGGUFError",
    "GGUFTensorError",
    "GGUFTruncatedError",
    "GGUFValueError",
    "GGUFVersionError",
    "MetadataField",
    "TensorInfo",
    "TokenizerInfo",
    "inspect",
    "inspect_header",
    "read_header",
    "read_magic",
    "type_name",
]
