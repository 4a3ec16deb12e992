"""Where a document prints a file the lab bundles: the printed programs to compare.

A post prints a script for the reader to copy and the lab repository keeps the script;
each such pair is a claim (the program printed is the lab's file: claims/probes/files/
printed_programs.py compares them, the transcription of the printed text sits under
``fixtures/recorded/programs/``). :func:`printed_files` finds the pairs so none is
missed: for each text file of the folders the document's ``lab`` list names, the runs
of its lines the document's own text prints in the same order, line-aligned, read as
the comparison reads a program (the blog's rendering undone on the document's side,
whitespace collapsed) but with indentation set aside, so a program printed with other
indentation, or changed here and there, is still found. A run shorter than MIN_LINES is
not reported: two lines (a main guard and its call) are common to many scripts. A run
in a program or configuration file (PROGRAM_SUFFIXES, PROGRAM_NAMES) that prints at
least MIN_SHARE of it is a printed program; runs in a README, a report or a results
file are printed text or output, which a claim of the series' agreement with itself
judges, not this one.
``scripts/find-printed-programs.py`` lists what it finds.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path

from claims.catalog.records import Document
from claims.probes.files.printed_programs import program_lines
from claims.text.sources import Source, document_sources

__all__ = ["MIN_LINES", "MIN_SHARE", "PROGRAM_NAMES", "PROGRAM_SUFFIXES", "PrintedFile",
           "is_program", "lab_files", "printed_files"]

# The shortest run of a file's lines, printed in order, that counts as printing it: three
# finds Week 1's validation script, which the post prints rewritten (three lines in a row
# are the lab file's).
MIN_LINES = 3
# The least share of a program file's lines a run must print to be the program printed,
# not a fragment of it inside a command: W2's curl command ends in the jq filter of
# inspect_model.sh (3 of its 136 lines, 2%); Week 1's rewritten validation script prints
# 3 of the file's 21 lines in a row (14%).
MIN_SHARE = 0.10
# Which files are programs or configurations (a reader runs or loads them as printed).
PROGRAM_SUFFIXES = (".py", ".sh", ".bash", ".yaml", ".yml", ".toml", ".cfg", ".ini", ".conf")
PROGRAM_NAMES = ("Modelfile", "Dockerfile", "Makefile", "requirements.txt")


def is_program(rel: str) -> bool:
    """Whether the lab file ``rel`` is a program or configuration (not prose or output)."""
    name = Path(rel).name
    return name.endswith(PROGRAM_SUFFIXES) or name.split(".")[0] in PROGRAM_NAMES \
        or name in PROGRAM_NAMES


@dataclass(frozen=True)
class PrintedFile:
    """Lines ``first``..``last`` of ``source`` print lines ``lab_first``..``lab_last`` of
    the lab file ``lab`` (``matched`` non-blank lines, of the file's ``lab_lines``)."""

    lab: str  # the path under fixtures/lab
    source: Source
    first: int
    last: int
    lab_first: int
    lab_last: int
    matched: int
    lab_lines: int

    @property
    def share(self) -> float:
        """How much of the file the run prints (non-blank lines), 0 to 1."""
        return self.matched / self.lab_lines if self.lab_lines else 0.0

    @property
    def program(self) -> bool:
        """Whether the run prints a program (or configuration) rather than a fragment of
        one (MIN_SHARE) or a file of prose or output."""
        return is_program(self.lab) and self.share >= MIN_SHARE


def lab_files(doc: Document, lab_root: Path) -> list[str]:
    """The UTF-8 text files (paths under ``lab_root``) of the document's ``lab`` list,
    folders walked, in path order."""
    found: set[Path] = set()
    for entry in doc.lab:
        path = lab_root / entry
        if path.is_dir():
            found.update(p for p in path.rglob("*") if p.is_file())
        elif path.is_file():
            found.add(path)
    out: list[str] = []
    for path in sorted(found):
        try:
            path.read_text("utf-8")
        except (OSError, UnicodeDecodeError):
            continue  # not text: nothing a document prints as lines
        out.append(path.relative_to(lab_root).as_posix())
    return out


def _own_text(source: Source, doc_id: str) -> str:
    """The source's text with other documents' lines blanked (line numbers kept)."""
    return "\n".join(line if owner == doc_id else ""
                     for line, owner in zip(source.lines, source.owner, strict=True))


def printed_files(doc: Document, sources: dict[tuple[str, str], Source],
                  lab_root: Path) -> list[PrintedFile]:
    """Each run of at least MIN_LINES lines of a lab file of ``doc`` that the document's
    own text prints (``sources``: as claims.text.sources reads them), in the
    document's order of sources, then the file's."""
    found: list[PrintedFile] = []
    files = lab_files(doc, lab_root)
    texts = {rel: program_lines((lab_root / rel).read_text("utf-8")) for rel in files}
    # The checkout is two folders above the lab copy (fixtures/lab).
    for kind, key in document_sources(doc, lab_root.parent.parent):
        source = sources[(kind, key)]
        printed = program_lines(_own_text(source, doc.id), rendered=True)
        mine = [p.text for p in printed]
        for rel in files:
            if kind == "file" and key == rel:
                continue  # a bundled document's own text file prints itself
            lab = texts[rel]
            matcher = difflib.SequenceMatcher(None, mine, [f.text for f in lab],
                                              autojunk=False)
            for block in matcher.get_matching_blocks():
                if block.size < MIN_LINES:
                    continue
                found.append(PrintedFile(
                    rel, source, printed[block.a].number, printed[block.a + block.size - 1].number,
                    lab[block.b].number, lab[block.b + block.size - 1].number, block.size,
                    len(lab)))
    return found
