"""ollama CLI tables read back (claims.probes.files.ollama_cli)."""

from __future__ import annotations

import pytest

from claims.figures import Interval
from claims.probes.errors import InputError
from claims.probes.files.ollama_cli import table_row, until_minutes


def test_until_labels() -> None:
    assert until_minutes("4 minutes from now") == Interval(4.0, 5.0)
    assert until_minutes("About a minute from now") == Interval(1.0, 2.0)
    assert until_minutes("30 seconds from now") == Interval(0.5, 31 / 60)
    with pytest.raises(InputError, match="UNTIL"):
        until_minutes("Forever")


def test_table_row() -> None:
    row = table_row("NAME   ID    UNTIL", "phi4:latest   ac89   4 minutes from now")
    assert row["UNTIL"] == "4 minutes from now"
    with pytest.raises(InputError):
        table_row("NAME   ID", "only-one-cell")
