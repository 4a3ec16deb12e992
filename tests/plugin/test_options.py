"""claims.plugin.options: OLLAMA_HOST-style values become base URLs."""

from __future__ import annotations

import pytest

from claims.plugin.options import HostError, normalize_host, parse_host, redact_credentials


@pytest.mark.parametrize(
    ("raw", "url"),
    [
        ("127.0.0.1", "http://127.0.0.1:11434"),
        (":11434", "http://127.0.0.1:11434"),
        ("0.0.0.0:11434", "http://127.0.0.1:11434"),
        ("localhost:8080", "http://localhost:8080"),
        ("http://127.0.0.1:11434/", "http://127.0.0.1:11434"),
        ("https://ollama.example", "https://ollama.example:443"),
        ("::1", "http://[::1]:11434"),
        ("[::1]", "http://[::1]:11434"),
        ("[::1]:9000", "http://[::1]:9000"),
        ("[::]:11434", "http://[::1]:11434"),
    ],
)
def test_host_values_become_base_urls(raw, url):
    assert normalize_host(raw) == url


@pytest.mark.parametrize(
    ("raw", "url", "shown", "auth"),
    [
        # Issue 22: the user was taken for the host and "s3cret@127.0.0.1" for the port.
        ("http://user:s3cret@127.0.0.1", "http://127.0.0.1:11434",
         "http://***@127.0.0.1:11434", ("user", "s3cret")),
        ("http://user:s3cret@127.0.0.1:9", "http://127.0.0.1:9",
         "http://***@127.0.0.1:9", ("user", "s3cret")),
        ("https://al%40ice:p%3Ass@[::1]:8443", "https://[::1]:8443",
         "https://***@[::1]:8443", ("al@ice", "p:ss")),
        ("http://user@127.0.0.1:9", "http://127.0.0.1:9", "http://***@127.0.0.1:9",
         ("user", "")),
        ("http://127.0.0.1:9", "http://127.0.0.1:9", "http://127.0.0.1:9", None),
    ],
)
def test_credentials_are_parsed_out_of_the_url_and_never_shown(raw, url, shown, auth):
    host = parse_host(raw)
    assert (host.url, host.shown, host.auth) == (url, shown, auth)
    assert "s3cret" not in repr(host) and "p:ss" not in repr(host)


@pytest.mark.parametrize(
    ("raw", "why"),
    [
        ("ftp://127.0.0.1", "scheme must be http or https"),
        ("http://user:s3cret@127.0.0.1:notaport", "port is not a number"),
        ("http://127.0.0.1:99999", "port is not a number"),
        ("http://127.0.0.1:9/?x=1", "no query or fragment"),
    ],
)
def test_a_value_that_is_no_server_address_is_refused_without_its_password(raw, why):
    with pytest.raises(HostError, match=why) as caught:
        parse_host(raw)
    assert "s3cret" not in str(caught.value)


@pytest.mark.parametrize(
    ("raw", "loopback"),
    [("127.0.0.1", True), ("127.8.0.1:9", True), ("[::1]", True), ("localhost", True),
     ("0.0.0.0", True), ("192.168.1.20", False), ("spark.lan:11434", False)],
)
def test_a_host_off_this_machine_is_known_as_remote(raw, loopback):
    assert parse_host(raw).loopback is loopback


@pytest.mark.parametrize(
    ("arg", "shown"),
    [
        ("--ollama-host=http://user:s3cret@127.0.0.1:9", "--ollama-host=http://***@127.0.0.1:9"),
        ("https://u@h/x", "https://***@h/x"),
        # Issue 35: other spellings of a password.
        ("--ollama-host=http://us@er:s3cret@h:9", "--ollama-host=http://***@h:9"),
        ("http://user:pa/ss@h:9", "http://***@h:9"),
        ("http://user:p#ss@h:9", "http://***@h:9"),
        ("--ollama-host", "--ollama-host"),
        ("tests/claims/w2/test_ollama.py", "tests/claims/w2/test_ollama.py"),
    ],
)
def test_recorded_arguments_lose_their_credentials(arg, shown):
    assert redact_credentials(arg) == shown


# Issue 35: each spelling the parser refuses is pytest's usage error, and shows no secret.
def test_the_plugin_refuses_them_as_usage_errors_printing_no_secret(claims_pytester):
    for raw in ("http://us@er:s3cret@127.0.0.1:9", "http://user:pa/s3cret@127.0.0.1:9",
                "http://user:p#s3cret@127.0.0.1:9", "http://user:[s3cret@127.0.0.1:9"):
        result = claims_pytester.run(f"--ollama-host={raw}", "--collect-only")
        assert result.ret == 4, raw  # pytest's usage error
        out = result.stdout.str() + result.stderr.str()
        assert "percent-encoded" in out and "s3cret" not in out
        assert "INTERNALERROR" not in out


def test_a_scripts_documents_option_is_the_plugins_with_the_environments_default(
        monkeypatch, tmp_path):
    import argparse

    from claims.plugin.options import DOCUMENTS_ENV, NO_DOCUMENTS, add_documents_argument

    def parsed(*argv: str):
        parser = argparse.ArgumentParser()
        add_documents_argument(parser, "to look in")
        return parser.parse_args(list(argv)).claims_documents

    monkeypatch.delenv(DOCUMENTS_ENV, raising=False)
    assert parsed() is None
    assert parsed("--claims-documents", str(tmp_path)) == tmp_path
    monkeypatch.setenv(DOCUMENTS_ENV, str(tmp_path / "seeds"))
    assert parsed() == tmp_path / "seeds"
    monkeypatch.setenv(DOCUMENTS_ENV, "")
    assert parsed() is None
    assert "--claims-documents DIR or $CLAIMS_DOCUMENTS" in NO_DOCUMENTS
