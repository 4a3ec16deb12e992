"""W2 claims about the Ollama store's naming, as a property over all digests."""

from __future__ import annotations

import string

import pytest
from hypothesis import given
from hypothesis import strategies as st

from claims.probes.ollama_store import DigestError, blob_name_to_digest, digest_to_blob_name

pytestmark = pytest.mark.offline

hex64 = st.text(alphabet="0123456789abcdef", min_size=64, max_size=64)


@pytest.mark.claim("W2-DIGEST-FILENAME")
def test_recorded_digest_maps_to_recorded_file_name(check):
    check.source = "recorded"
    digest = check.claims[0].figure("manifest digest").text
    name = digest_to_blob_name(digest)
    check.against("blob file name", name)
    check.measure("round trip", blob_name_to_digest(name), holds=blob_name_to_digest(name) == digest,
                  expected="blob name maps back to the digest")


@pytest.mark.claim("W2-DIGEST-FILENAME")
@given(hexdigits=hex64)
def test_digest_and_blob_name_round_trip(hexdigits):
    digest = f"sha256:{hexdigits}"
    name = digest_to_blob_name(digest)
    assert name == f"sha256-{hexdigits}"
    assert blob_name_to_digest(name) == digest


@pytest.mark.claim("W2-DIGEST-FILENAME")
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
