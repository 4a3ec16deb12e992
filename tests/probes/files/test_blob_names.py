"""Properties of the suite's own digest <-> blob file name mapping (claims.probes.files.
ollama_store): no evidence of where Ollama puts its blobs (the W2-DIGEST-FILENAME claim
tests in tests/claims/w2/test_store.py are), so no claim and no tier marker."""

from __future__ import annotations

import string

from hypothesis import given
from hypothesis import strategies as st

from claims.probes.files.ollama_store import DigestError, blob_name_to_digest, digest_to_blob_name

hex64 = st.text(alphabet="0123456789abcdef", min_size=64, max_size=64)


@given(hexdigits=hex64)
def test_digest_and_blob_name_round_trip(hexdigits):
    digest = f"sha256:{hexdigits}"
    name = digest_to_blob_name(digest)
    assert name == f"sha256-{hexdigits}"
    assert blob_name_to_digest(name) == digest


@given(bad=st.one_of(
    st.text(max_size=80),
    hex64.map(lambda h: f"sha256:{h}/../../etc/passwd"),
    hex64.map(lambda h: f"sha256:{h}\n"),
    hex64.map(lambda h: f"sha512:{h}"),
    st.text(alphabet=string.hexdigits, min_size=63, max_size=63).map(lambda h: f"sha256:{h}"),
    st.just("sha256:" + "g" * 64),
))
def test_anything_else_is_rejected(bad):
    try:
        name = digest_to_blob_name(bad)
    except DigestError:
        return
    # Accepted only if it really is sha256 with 64 hex digits.
    assert bad.startswith("sha256:") and len(bad) == 71
    assert all(c in string.hexdigits for c in bad[7:])
    assert "/" not in name and ".." not in name
