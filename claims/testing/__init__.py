"""Test doubles for the suite's own tests (never used to produce claim verdicts).

``fake_ollama`` is a real HTTP server on a loopback port that speaks enough of
Ollama's API, scripted from the exchanges Week 2 records, to test the probes'
timing and failure handling.

``relations`` is the exception: the relations several documents' claim tests
measure alike (identical replies, one rate N times another), recorded through
the test's ``check``, so they do feed verdicts.
"""
