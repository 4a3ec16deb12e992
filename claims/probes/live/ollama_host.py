"""The one parser of an Ollama server address (``--ollama-host``, ``$OLLAMA_HOST``).

Every part of the suite that reads an address goes through :func:`parse_host`;
the credentials an address may carry (``http://user:password@host``) are taken
out here and nowhere else. What leaves this module never holds them:
``OllamaHost.url`` and ``OllamaHost.shown`` (``scheme://***@host:port``) are
what is connected to, printed and recorded; ``OllamaHost.auth`` is HTTP Basic
auth for that host only and never appears in a repr; a :class:`HostError`
shows the address with its credentials masked; :func:`redact_credentials` masks
them in recorded command-line arguments.

The credentials are everything between ``://`` and the *last* ``@``: a
password holding ``/``, ``#``, ``?``, ``@``, ``[`` or ``]`` unencoded would
otherwise be read (as a URL parser reads it) as a path, a fragment or an IPv6
bracket, and part of it printed as the host. Such an address is refused with
a message saying how to write it (percent-encoding), never echoing the secret.
Imported by the plugin's options in every pytest run: standard library only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from urllib.parse import unquote, urlsplit

from claims.probes.live.loopback import is_loopback
from claims.probes.live.ollama_defaults import DEFAULT_HOST, DEFAULT_PORT

__all__ = [
    "HostError",
    "OllamaHost",
    "normalize_host",
    "parse_host",
    "redact_arguments",
    "redact_credentials",
]

MASK = "***"
# Characters a user name or password must percent-encode in a URL (RFC 3986's
# gen-delims, less ":", which separates the two).
_MUST_ENCODE = frozenset("/?#[]@")
_SCHEME = re.compile(r"(?i)([a-z][a-z0-9+.-]*)://")


class HostError(ValueError):
    """An ``--ollama-host`` / ``$OLLAMA_HOST`` value that is not a server address.

    Its message never holds the address's credentials.
    """


@dataclass(frozen=True)
class OllamaHost:
    """An Ollama server address, parsed.

    ``url`` (scheme, host, port, path; never credentials) is what is connected
    to, printed and recorded; ``shown`` is the same, marked ``***@`` when the
    address carried credentials; ``auth`` holds them for HTTP Basic auth to
    that host only, and never appears in a repr.
    """

    url: str
    shown: str
    loopback: bool
    hostname: str = ""
    port: int = DEFAULT_PORT
    auth: tuple[str, str] | None = field(default=None, repr=False, compare=False)


def _split_userinfo(value: str) -> tuple[str, str | None, str]:
    """(scheme, userinfo or None, the rest) of an address with or without a scheme."""
    match = _SCHEME.match(value)
    if match:
        scheme, rest = match.group(1).lower(), value[match.end():]
    else:
        scheme, rest = "http", value
    userinfo: str | None = None
    if "@" in rest:
        userinfo, rest = rest.rsplit("@", 1)
    return scheme, userinfo, rest


def parse_host(raw: str) -> OllamaHost:
    """Parse an OLLAMA_HOST-style value the way Ollama's client reads it.

    "127.0.0.1" -> http://127.0.0.1:11434, ":11434" -> http://127.0.0.1:11434,
    "0.0.0.0:11434" -> http://127.0.0.1:11434 (a bind-all address is reached on loopback),
    "::1" and "[::1]" -> http://[::1]:11434; "https://host" keeps its scheme and
    defaults to port 443. ``http://user:secret@host:port`` sends Basic auth to
    that host (percent-escapes in the user and password decoded). A value that
    is not an http(s) address raises :class:`HostError`, credentials masked.
    """
    value = raw.strip()
    scheme, userinfo, rest = _split_userinfo(value)
    rest = rest.rstrip("/")
    masked = f"{scheme}://{MASK + '@' if userinfo is not None else ''}{rest}"
    if any(ord(c) < 0x20 or 0x7F <= ord(c) < 0xA0 for c in value):
        # Shown without the value: a control character may be anywhere, the password too.
        raise HostError("the address holds a control character (a paste error?)")
    auth: tuple[str, str] | None = None
    if userinfo is not None:
        if any(c in _MUST_ENCODE or c.isspace() for c in userinfo):
            raise HostError(
                f"{masked}: the user name or password holds a character that must be "
                "percent-encoded in an address ('/' as %2F, '?' %3F, '#' %23, '@' %40, "
                "'[' %5B, ']' %5D, a space %20); the credentials are not shown"
            )
        user, _, password = userinfo.partition(":")
        auth = (unquote(user), unquote(password))
    if "://" not in value and rest.count(":") > 1 and not rest.startswith("["):
        rest = f"[{rest}]"  # a bare IPv6 literal carries no port
    if scheme not in ("http", "https"):
        raise HostError(f"{masked}: the scheme must be http or https")
    try:
        parts = urlsplit(f"{scheme}://{rest}")
        port = parts.port
        hostname = parts.hostname
    except ValueError as exc:
        why = "the port is not a number from 0 to 65535" if "port" in str(exc).lower() else str(exc)
        raise HostError(f"{masked}: {why}") from None
    if parts.query or parts.fragment or "?" in rest or "#" in rest:
        raise HostError(f"{masked}: a server address has no query or fragment")
    # No host is Ollama's default one; a bind-all address is reached on its loopback.
    host = {"": DEFAULT_HOST, "0.0.0.0": "127.0.0.1", "::": "::1"}.get(
        hostname or "", hostname or "")
    if any(c.isspace() or c in "/\\?#@[]" for c in host):
        raise HostError(f"{masked}: not a host name")
    if port is None:
        port = 443 if scheme == "https" else DEFAULT_PORT
    bracketed = f"[{host}]" if ":" in host else host
    base = f"{scheme}://{bracketed}:{port}{parts.path}"
    shown = f"{scheme}://{MASK}@{bracketed}:{port}{parts.path}" if auth else base
    return OllamaHost(url=base, shown=shown, loopback=is_loopback(host), hostname=host,
                      port=port, auth=auth)


def normalize_host(raw: str) -> str:
    """The base URL of an OLLAMA_HOST-style value, without credentials (:func:`parse_host`)."""
    return parse_host(raw).url


def redact_credentials(text: str) -> str:
    """``text`` with the credentials of every URL in it masked (``scheme://***@...``).

    For what is recorded of the command line: ``--ollama-host=http://u:pw@host``
    must not reach evidence.json or the report's "command" line. As in
    :func:`parse_host`, a URL's credentials run to the last ``@`` before the next
    URL (or the end): a password holding ``@``, ``/`` or ``#`` is masked whole.
    """
    pieces = _SCHEME.split(text)
    # re.split with one group: [before, scheme, after, scheme, after, ...]
    out = [pieces[0]]
    for i in range(1, len(pieces), 2):
        scheme, after = pieces[i], pieces[i + 1]
        if "@" in after:
            after = f"{MASK}@{after.rsplit('@', 1)[1]}"
        out.append(f"{scheme}://{after}")
    return "".join(out)


def _mask_bare(value: str) -> str:
    """An address value without a scheme ("user:pw@host") with its credentials masked."""
    return f"{MASK}@{value.rsplit('@', 1)[1]}" if "@" in value else value


def redact_arguments(args: list[str], host_flags: tuple[str, ...]) -> list[str]:
    """Command-line arguments as recorded: every URL's credentials masked, and those of a
    host option's value (``host_flags``, e.g. ``--ollama-host``) even without a scheme."""
    out: list[str] = []
    after_flag = False
    for arg in args:
        text = redact_credentials(arg)
        if after_flag:
            text = _mask_bare(text)
        else:
            for flag in host_flags:
                if text.startswith(f"{flag}="):
                    text = f"{flag}={_mask_bare(text[len(flag) + 1:])}"
        after_flag = arg in host_flags
        out.append(text)
    return out
