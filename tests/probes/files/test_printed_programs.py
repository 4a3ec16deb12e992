"""The printed-program comparison (claims.probes.files.printed_programs): what it passes
over, what it never does, and where it says the programs first differ."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from claims.evidence import dumps
from claims.probes.files.printed_programs import (
    KATEX_TAGS,
    compare_programs,
    program_lines,
    rendering_undone,
    unrender,
)
from claims.terminal import safe_lines

ROOT = Path(__file__).resolve().parents[3]
LAB = ROOT / "fixtures" / "lab"
PROGRAMS = ROOT / "fixtures" / "recorded" / "programs"

PROGRAM = 'import sys\n\n\ndef main() -> None:\n    if sys.argv:\n        print("a  b")\n'


def test_the_same_text_is_the_same_program() -> None:
    result = compare_programs(PROGRAM, PROGRAM)
    assert result.same
    assert (result.printed_lines, result.file_lines) == (4, 4)
    assert result.diff == ()


def test_blank_lines_trailing_and_inner_spaces_are_passed_over() -> None:
    printed = 'import sys\ndef main() -> None:   \n    if sys.argv:\n        print("a  b")\n'
    assert compare_programs(printed, PROGRAM).same
    # A run of spaces inside the line reads as one, in a string too: stated in the note.
    assert compare_programs(PROGRAM.replace('"a  b"', '"a b"'), PROGRAM).same


def test_indentation_counts_by_depth_not_width() -> None:
    two = 'import sys\n\n\ndef main() -> None:\n  if sys.argv:\n    print("a  b")\n'
    assert compare_programs(two, PROGRAM).same
    # The same line one block out is another program.
    flat = 'import sys\n\n\ndef main() -> None:\n    if sys.argv:\n    print("a  b")\n'
    result = compare_programs(flat, PROGRAM)
    assert not result.same
    assert result.first_difference == ((6, '    print("a b")'), (6, '        print("a b")'))


def test_a_dedent_to_no_open_block_is_between_depths() -> None:
    lines = program_lines("if a:\n        b\n    c\n")
    assert [(line.depth, line.stray) for line in lines] == [(0, False), (1, False), (0, True)]
    for other in ("if a:\n        b\n        c\n", "if a:\n        b\nc\n"):
        assert not compare_programs("if a:\n        b\n    c\n", other).same


def test_every_one_character_change_is_a_difference() -> None:
    """The comparison cannot pass a changed program: on a real printed program, each
    non-space character changed in turn (to another, or dropped) makes it differ."""
    file = (LAB / "week-02-first-local-model" / "decode_tokens.py").read_text("utf-8")
    printed = (PROGRAMS / "W2" / "decode_tokens.py.txt").read_text("utf-8")
    assert compare_programs(printed, file).same
    changed = 0
    for i, char in enumerate(file):
        if char.isspace():
            continue
        other = "x" if char != "x" else "y"
        for edit in (file[:i] + other + file[i + 1:], file[:i] + file[i + 1:]):
            assert not compare_programs(printed, edit).same, (i, char)
            changed += 1
    assert changed > 1000


def test_a_wrapped_an_added_or_a_dropped_line_is_a_difference() -> None:
    wrapped = PROGRAM.replace('print("a  b")', 'print(\n        "a  b")')
    assert not compare_programs(wrapped, PROGRAM).same
    dropped = compare_programs(PROGRAM, PROGRAM + "    return\n")
    assert dropped.first_difference == ((None, ""), (7, "    return"))
    assert dropped.diff == ("@@ -4,0 +5 @@", "+    return")


def test_the_blogs_rendering_is_undone_on_the_printed_side_only() -> None:
    script = 'echo "=== $1 ==="; ssh "$HOST" "$2"\n'
    rendered = f'echo "=== {KATEX_TAGS[0]}1 ==="; ssh "{KATEX_TAGS[1]}HOST" "$2"\n'
    assert unrender(rendered) == script
    assert compare_programs(rendered, script).same
    # A file of the repository was never rendered: its text is read as it is.
    assert not compare_programs(script, rendered).same
    assert compare_programs("print(\u201chi\u201d, \u2018x\u2019)\n", "print(\"hi\", 'x')\n").same
    assert compare_programs("if a &lt; b &amp;&amp; c:\n", "if a < b && c:\n").same
    assert not compare_programs("if a < b && c:\n", "if a &lt; b &amp;&amp; c:\n").same


def test_rendering_undone_counts_lines_by_kind() -> None:
    text = f"a {KATEX_TAGS[0]}x{KATEX_TAGS[1]}\n\u201cq\u201d &amp; 2>&1\nplain\n"
    assert rendering_undone(text) == {"inline-maths tags": 1, "HTML character references": 1,
                                      "typographic quotes": 1}
    # "2>&1" is no character reference; nothing undone is nothing listed.
    assert rendering_undone("ssh spark 2>&1 || true\n") == {}


def test_hostile_lines_reach_the_evidence_as_visible_escapes() -> None:
    """A difference quotes the files' lines as they are; the evidence file and the report
    show control and bidi characters as escapes, never raw (claims.terminal)."""
    hostile = "print('ok')  # \x1b[2J\u202e\n"
    result = compare_programs("print('ok')\n", hostile)
    assert result.first_difference is not None
    shown = "\n".join(result.diff)
    assert "\x1b" in shown  # the probe keeps the text; showing it is the outputs' job
    written = dumps({"diff": shown})
    assert "\x1b" not in written and "\u202e" not in written
    assert json.loads(written)["diff"] == shown
    assert "\\x1b" in safe_lines(shown) and "\\u202e" in safe_lines(shown)


@pytest.mark.parametrize("printed", sorted(PROGRAMS.rglob("*.txt")), ids=lambda p: p.name)
def test_each_transcription_names_its_lab_file(printed: Path) -> None:
    """Each transcribed printed program is named, in its document's recorded JSON, after
    a lab file that exists (the claim tests read it so)."""
    doc = printed.parent.name
    named = json.loads((ROOT / "fixtures" / "recorded" / f"{doc}.json").read_text("utf-8"))
    rel = str(printed.relative_to(ROOT))
    lab_files = [lab for lab, path in named["programs_printed"].items() if path == rel]
    assert len(lab_files) == 1 and (LAB / lab_files[0]).is_file()
