"""The one parser of --ollama-host (issue 35): credentials never leave it, in any spelling.

On 4f018a0 ``http://us@er:s3cret@host`` wrote the password into the recorded
arguments (``us:***@er:s3cret@``), ``user:pa/ss@`` printed the whole password in
the usage error, ``user:p#ss@`` the part before ``#``, and a ``[`` in the userinfo
ended in INTERNALERROR (``Invalid IPv6 URL``).
"""

from __future__ import annotations

import string
from urllib.parse import quote

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from claims.probes.live.ollama_host import (
    HostError,
    OllamaHost,
    parse_host,
    redact_arguments,
    redact_credentials,
)

SECRET = "s3cret"
HOST = "127.0.0.1:9"


@pytest.mark.parametrize(
    "raw",
    [
        f"http://us@er:{SECRET}@{HOST}",
        f"http://user:pa/{SECRET}@{HOST}",
        f"http://user:{SECRET}/x@{HOST}",
        f"http://user:p#{SECRET}@{HOST}",
        f"http://user:{SECRET}#x@{HOST}",
        f"http://user:{SECRET}?x@{HOST}",
        f"http://user:[{SECRET}@{HOST}",
        f"http://user:{SECRET}]@{HOST}",
        f"http://us[er:{SECRET}@{HOST}",
        f"http://user:{SECRET} x@{HOST}",
        f"user:{SECRET}/x@{HOST}",  # no scheme
    ],
)
def test_an_unencoded_delimiter_in_the_credentials_is_a_clear_error_without_them(raw):
    with pytest.raises(HostError) as caught:
        parse_host(raw)
    message = str(caught.value)
    assert SECRET not in message and "user:" not in message and "us@er" not in message
    assert message.startswith("http://***@127.0.0.1:9: the user name or password holds a "
                              "character that must be percent-encoded")
    flags = ("--ollama-host",)
    assert SECRET not in str(redact_arguments([f"--ollama-host={raw}"], flags))
    assert SECRET not in str(redact_arguments(["--ollama-host", raw], flags))


def test_percent_encoded_delimiters_are_the_credentials_they_spell():
    host = parse_host(f"http://us%40er:pa%2Fs%23s%5B@{HOST}")
    assert host.auth == ("us@er", "pa/s#s[")
    assert (host.url, host.shown) == (f"http://{HOST}", f"http://***@{HOST}")


@pytest.mark.parametrize("raw", [f"http://[::1:{SECRET}", f"http://user:{SECRET}@[::1",
                                 f"http://user:{SECRET}@h:port{SECRET}"])
def test_a_malformed_host_part_is_a_host_error_never_a_traceback(raw):
    with pytest.raises(HostError) as caught:
        parse_host(raw)
    assert f"user:{SECRET}" not in str(caught.value)


def test_a_control_character_anywhere_is_refused_without_echoing_the_value():
    with pytest.raises(HostError) as caught:
        parse_host(f"http://user:{SECRET}\x1b[2J@{HOST}")
    assert SECRET not in str(caught.value) and "\x1b" not in str(caught.value)


# --- properties over generated credentials -------------------------------------------------

_TEXT = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), min_codepoint=0x20),
    min_size=0, max_size=12,
)
_PASSWORD = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), min_codepoint=0x20),
    min_size=6, max_size=16,
)


def _leaks(password: str, *texts: str) -> bool:
    return any(password in t for t in texts)


def _refusal(raw: str) -> str:
    with pytest.raises(HostError) as caught:
        parse_host(raw)
    return str(caught.value)


# What the parser prints for these addresses whatever the password: the address,
# the repr's field names, the refusals' wording. Hypothesis draws strings from the
# code under test, so a password such as "Ollama" or "password" is drawn, and it
# "appears" there without being leaked.
_OWN_TEXT = (
    f"http://***@{HOST}", "http://127.0.0.1", "--ollama-host=",
    repr(parse_host(f"http://u:p@{HOST}")),
    _refusal(f"http://u:p/@{HOST}"),
    _refusal(f"http://u:p\x7f@{HOST}"),
)


def test_the_parsers_own_text_holds_no_credentials():
    # The property below sets these texts aside; they must be the parser's alone.
    assert not any(_leaks(secret, *_OWN_TEXT) for secret in ("u:", "p/", "\x7f"))


@given(user=_TEXT, password=_PASSWORD)
def test_no_spelling_of_a_password_leaves_the_parser(user, password):
    assume(not _leaks(password, *_OWN_TEXT))
    raw = f"http://{user}:{password}@{HOST}"
    try:
        host = parse_host(raw)
    except HostError as exc:
        assert password not in str(exc)
    else:
        assert isinstance(host, OllamaHost)
        assert not _leaks(password, host.url, host.shown, repr(host))
        assert host.url == f"http://{HOST}"
    assert password not in redact_credentials(f"--ollama-host={raw}")


@given(user=_TEXT, password=_PASSWORD)
def test_percent_encoded_credentials_round_trip_exactly(user, password):
    host = parse_host(f"http://{quote(user, safe='')}:{quote(password, safe='')}@{HOST}")
    assert host.auth == (user, password)
    assert host.shown == f"http://***@{HOST}"


@given(password=st.text(alphabet=string.ascii_letters + string.digits + "!$&'()*+,;=-._~",
                        min_size=1, max_size=16))
def test_a_password_of_unreserved_characters_needs_no_encoding(password):
    assert parse_host(f"http://u:{password}@{HOST}").auth == ("u", password)
