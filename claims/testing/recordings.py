"""Where the doubles find the recordings they replay: the suite's ``fixtures/`` folder.

The recordings (a real Ollama's exchanges and store, recorded machines, the
hostile GGUF corpus) live in the checkout's ``fixtures/`` with their provenance,
not in the installed package, so a double is told where that folder is instead
of guessing from its own location (which, installed, is site-packages):

* ``$CLAIMS_FIXTURES`` names it; the suite's ``tests/conftest.py`` sets it for
  the session, and the processes a test starts inherit it;
* a pytest run with ``-p claims.testing.fake_cuda`` and no ``$CLAIMS_FIXTURES``
  uses ``fixtures/`` under the run's rootdir (a checkout of the suite);
* an executable a double writes (the fake ``nvidia-smi``) carries the folder it
  was written with.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["ENV", "RecordingsNotFound", "fixtures_dir", "use"]

ENV = "CLAIMS_FIXTURES"


class RecordingsNotFound(RuntimeError):
    """No fixtures folder was named, or the one named does not exist."""


def fixtures_dir() -> Path:
    """The fixtures folder named by ``$CLAIMS_FIXTURES``; a clear error when there is none."""
    value = os.environ.get(ENV)
    if not value:
        raise RecordingsNotFound(
            f"claims.testing replays recordings from the suite's fixtures/ folder: set ${ENV} "
            "to it (the suite's tests/conftest.py does, and a run from a checkout with "
            "-p claims.testing.fake_cuda uses the rootdir's fixtures/)"
        )
    path = Path(value)
    if not path.is_dir():
        raise RecordingsNotFound(f"${ENV}={value}: no such folder")
    return path


def use(path: Path) -> None:
    """Name ``path`` as the fixtures folder for this process and the processes it starts."""
    os.environ[ENV] = str(path)
