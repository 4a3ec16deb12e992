"""Everything a claim test needs, in one import: ``from claims.testkit import ...``.

A claim test is a pytest test with a claim marker and a tier marker that asks for
the plugin's ``check`` fixture (:class:`Check`) and records its measurements
through it; the plugin turns what the check recorded into the claim's verdict::

    import pytest
    from claims.testkit import Check, not_run

    pytestmark = pytest.mark.offline          # the tier: offline, engine, ollama, gpu, hub

    @pytest.mark.claim("W2-DIGEST-FILENAME", source="recorded")
    def test_recorded_digest_maps_to_recorded_file_name(check: Check, recorded) -> None:
        w2 = recorded("W2")                       # fixtures/recorded/W2.json
        ...
        check.against("manifest digest", digest)  # against the catalog's stated figure

(tests/claims/w2/test_store.py has the whole test; tests/README.md says where a
new one goes.)

Where the evidence comes from is *declared*, never assigned, because it decides
how the figures are judged (a figure stated for one model or profile applies to
recorded evidence only; a confirmation is "reproduced" only from a live source):

* ``@pytest.mark.claim(ID, source="recorded")`` - the test reads what the
  document printed (figures transcribed under fixtures/recorded/);
* ``source="live"`` - a test of the offline tier that measures this machine
  itself; ``source="fixture"`` - a live-tier test that measures a fixture;
* no ``source`` - the tier decides: "live" on the live tiers (engine, ollama,
  gpu, hub), "fixture" on the offline tier;
* a fixture whose data decides it (the user's store, the Hub or the snapshot)
  calls :meth:`Check.declare_source` while the test is set up.

``check.source = ...`` raises :class:`CheckUsageError`.

How a test ends when it does not simply pass: :func:`not_run` (a prerequisite
is missing), :func:`not_applicable` (another profile or model),
:func:`needs_flag` (the user has not opted in to changing a server).

Relations stated in words rather than figures, recorded alike in every report:
:func:`identical_replies`, :func:`more_than_times`, :func:`equal`.

Figures: :class:`Interval` (a printed value with the precision it was printed
to), :func:`agrees`, :func:`convert`, and :func:`model_matches` (Ollama's own
rule for whether two names are one model).

Timing: :func:`record_decision` ends a check as a timing rule decided it,
:func:`against_range` compares repeated runs' range with a stated figure (the
rules themselves: :mod:`claims.timing`).

What a probe raises (:mod:`claims.probes.errors`): :class:`ProbeError` and its
kinds :class:`PrerequisiteMissing`, :class:`InputError`, :class:`ServerError`.
"""

from __future__ import annotations

from claims.check import SOURCES, Check, CheckUsageError, Source
from claims.figures import Interval, agrees, convert
from claims.plugin.decisions import against_range
from claims.plugin.decisions import record as record_decision
from claims.plugin.outcomes import needs_flag, not_applicable, not_run
from claims.probes.errors import InputError, PrerequisiteMissing, ProbeError, ServerError
from claims.probes.files.ollama_store.names import model_matches
from claims.relations import equal, identical_replies, more_than_times

__all__ = [
    "SOURCES",
    "Check",
    "CheckUsageError",
    "InputError",
    "Interval",
    "PrerequisiteMissing",
    "ProbeError",
    "ServerError",
    "Source",
    "against_range",
    "agrees",
    "convert",
    "equal",
    "identical_replies",
    "model_matches",
    "more_than_times",
    "needs_flag",
    "not_applicable",
    "not_run",
    "record_decision",
]
