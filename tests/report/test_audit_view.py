"""The report's sensitivity section (claims.report.audit_view and audit.html.j2)."""

from __future__ import annotations

from claims.report import render_html
from claims.report.audit_view import audit_view
from claims.testing.evidence import empty_evidence

AUDIT = {
    "finished": "2026-12-01T10:00:00+00:00",
    "digest": "0123456789abcdef" * 4,
    "stale": False,
    "partial": False,
    "total": 291,
    "sensitive": 277,
    "insensitive": [
        {
            "claim": "W2-BLOB-SIZE",
            "figure": "blob bytes",
            "stated": "9,053,114,464 B",
            "reason": "not judged offline: figure stated for phi4 <script>",
        }
    ],
    "transcriptions": {"values": 10, "mutations": 30, "caught": 30},
    "ran_on": "on Python 3.11.7 (x86_64), not this one (Python 3.12.1 on aarch64) <b>",
    "slips": {"unit": {"cases": 921, "caught": 888}, "scope": {"cases": "x", "caught": 1}},
}


def test_no_audit_no_section():
    evidence = empty_evidence()
    assert audit_view(evidence) is None
    assert 'id="audit"' not in render_html(evidence)


def test_the_summary_sentence_and_the_reasons_are_shown_escaped():
    evidence = {**empty_evidence(), "audit": AUDIT}
    view = audit_view(evidence)
    assert view is not None
    assert view["sentence"] == "277 of 291 judged figures change their verdict when perturbed"
    html = render_html(evidence)
    assert "277 of 291 judged figures change their verdict when perturbed" in html
    assert "figure stated for phi4 &lt;script&gt;" in html
    assert "30 of 30 single-character changes" in html
    # The slips by kind, a malformed count left out rather than trusted.
    assert "888 of 921 unit slips caught" in html and "of x" not in html
    # The audit behind the numbers is named: its date, the sources' digest, where it ran.
    assert "2026-12-01T10:00:00+00:00" in html and "digest 0123456789ab" in html
    assert "on Python 3.11.7 (x86_64), not this one (Python 3.12.1 on aarch64) &lt;b&gt;" in html


def test_a_stale_or_unreadable_audit_says_so():
    html = render_html({**empty_evidence(), "audit": {**AUDIT, "stale": True}})
    section = html[html.index('<section id="audit">'):]
    section = section[: section.index("</section>")]
    assert "No audit matches this checkout" in section
    # The old audit is named, but never shown as current: no headline, no reasons table.
    assert "digest 0123456789ab" in section
    assert "<strong>277 of 291" not in section and "<details>" not in section
    bad = audit_view({**empty_evidence(), "audit": {"problem": "audit.json is not an audit"}})
    assert bad == {"problem": "audit.json is not an audit"}
    # Wrong types from a hand-edited file are shown as zero, not trusted.
    odd = audit_view({**empty_evidence(), "audit": {"total": "many", "insensitive": "x"}})
    assert odd is not None and odd["sentence"].startswith("0 of 0")
