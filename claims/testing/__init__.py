"""Test doubles and test data for the suite's own tests and for simulated runs.

Nothing here produces a claim verdict about a real machine: a run through a
fake is marked simulated (:mod:`claims.simulation`). It is installed with the
package because a user can run through the fakes too (``pytest -p
claims.testing.fake_cuda``, docs/gpu-certification.md), and the fake ``ollama`` and ``nvidia-smi``
executables start this package's modules.

* ``fake_ollama`` - a real HTTP server on a loopback port that speaks enough of
  Ollama's API, checked against real 0.31.2's and 0.32.15's recorded exchanges;
  ``fake_ollama_serve`` - an ``ollama`` executable around it; ``ollama_versions`` -
  what differs between those releases, for the fakes to answer as either;
* ``fake_cuda`` (a pytest plugin) and ``fake_nvidia_smi`` - a recorded machine's
  CUDA devices and tools;
* ``recorded_store`` - the store a real Ollama 0.31.2 (or 0.32.15) wrote, assembled;
  ``gguf_corpus`` - the hostile GGUF corpus and its builder; ``evidence`` -
  minimal evidence documents for the report's tests.

The recordings they replay stay in the checkout's ``fixtures/``; they are found
through :mod:`claims.testing.recordings` (``$CLAIMS_FIXTURES``), never from this
package's own location. Claim tests import from :mod:`claims.testkit`, not here.
"""
