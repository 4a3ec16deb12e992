"""claims.simulation: a run through any fake is recognised and named."""

from __future__ import annotations

from claims import simulation
from claims.testing import fake_nvidia_smi


def test_a_real_path_is_not_simulated(tmp_path):
    real = tmp_path / "bin"
    real.mkdir()
    smi = real / "nvidia-smi"
    smi.write_text("#!/bin/sh\necho real\n")
    smi.chmod(0o755)
    assert simulation.fakes_in_use({"PATH": str(real)}) == simulation.declared()


def test_fake_tools_on_path_are_named(tmp_path):
    fake_nvidia_smi.install(tmp_path / "fake", ("nvidia-smi", "free"))
    found = simulation.fakes_in_use({"PATH": str(tmp_path / "fake")})
    assert "nvidia-smi (claims.testing.fake_nvidia_smi)" in found
    assert "free (claims.testing.fake_nvidia_smi)" in found


def test_the_environment_and_declarations_name_fakes_too(monkeypatch):
    monkeypatch.setattr(simulation, "_declared", {})
    simulation.declare("fake Ollama server")
    found = simulation.fakes_in_use({"PATH": "", simulation.ENV: "fake nvcc, other"})
    assert found == ["fake Ollama server", "fake nvcc", "other"]
    assert simulation.marker_line("x").startswith("# " + simulation.MARKER)
