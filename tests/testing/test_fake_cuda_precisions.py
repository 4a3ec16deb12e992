"""The fake machines' Week 5 captures (fixtures/system/<machine>/matmul_precisions.json).

Each is read into the model claims.testing.fake_cuda answers the W5 probes with; the GB10's
is the lab's own results.json, read by the W5 probe's reader, so its figures are written once.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from claims.testing.fake_cuda import FAKE_SPEEDUP, precision_model

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
MIB = 2**20


def test_the_sparks_capture_is_the_labs_results_json():
    model = precision_model(FIXTURES / "system" / "gb10", FIXTURES)
    assert model is not None and model.source.endswith("week-05-pytorch-tensors/results.json")
    assert model.gflops == {"fp32": 18473.0, "fp16": 88807.9, "bf16": 87202.3}
    assert model.cpu_over_gpu == pytest.approx(168.281 / 7.44)
    assert model.workspace_bytes == 32 * MIB  # 224 MiB peak less 3 x 64 MiB of FP32 matrices
    # A product at the capture's side takes what its rate implies; a tiny one, the launch.
    assert model.seconds("fp32", 4096) == pytest.approx(7.44e-3, rel=1e-4)
    assert model.seconds("fp32", 16) == model.launch_s
    other = precision_model(FIXTURES / "system" / "gb10-580.95", FIXTURES)
    assert other == model


@pytest.mark.parametrize(("machine", "fp16"), [("h100", 760040.0), ("rtx5090-595", 218790.0)])
def test_a_discrete_cards_capture_has_no_cpu_run(machine, fp16):
    model = precision_model(FIXTURES / "system" / machine, FIXTURES)
    assert model is not None and model.gflops["fp16"] == fp16
    assert model.cpu_over_gpu == FAKE_SPEEDUP["fp32"]  # invented: no CPU in the capture


def test_a_machine_without_a_capture_has_no_model():
    assert precision_model(FIXTURES / "system" / "h200-580", FIXTURES) is None
