"""A pretend CUDA device, as a pytest plugin, for dry runs of the gpu tier without a GPU.

``pytest -p claims.testing.fake_cuda -m gpu ...`` (with the fake ``nvidia-smi``
of :mod:`claims.testing.fake_nvidia_smi` first on PATH) makes torch report one
CUDA device, an "NVIDIA GB10" of capability (12, 1) sharing system memory,
and replaces the probes that would need a real one:

* matmul series "on the GPU" run on the CPU and have their times divided by
  fixed factors (:data:`FAKE_SPEEDUP`), so the claim code sees a plausible
  CPU/GPU/TF32 ordering;
* the cold first call, the toolkit-hidden runtime check, the driver's CUDA
  version and torch's nvidia-* requirements are scripted from Week 1's values.

This exercises the gpu tier's test code end to end (tests/plugin/test_gpu_tier.py).
Its figures are invented; evidence produced with it says nothing about any
machine and must never be presented as a measurement.
"""

from __future__ import annotations

import dataclasses
import os
import sys
from types import SimpleNamespace
from typing import Any

import pytest

FAKE_NAME = "NVIDIA GB10"
FAKE_CAPABILITY = (12, 1)
# Pretend GPU: FP32 this many times faster than the same CPU run, TF32 faster still.
FAKE_SPEEDUP = {"fp32": 25.0, "tf32": 56.0}


def install() -> None:
    import torch

    from claims.probes import gpu, torch_cuda
    from claims.probes.system import memory_bytes

    total = memory_bytes()
    props = SimpleNamespace(name=FAKE_NAME, total_memory=total, is_integrated=1,
                            multi_processor_count=48, major=FAKE_CAPABILITY[0],
                            minor=FAKE_CAPABILITY[1])
    torch.cuda.is_available = lambda: True
    torch.cuda.device_count = lambda: 1
    torch.cuda.get_device_name = lambda device=None: FAKE_NAME
    torch.cuda.get_device_capability = lambda device=None: FAKE_CAPABILITY
    torch.cuda.get_device_properties = lambda device=None: props  # type: ignore[assignment,return-value]
    torch.cuda.synchronize = lambda device=None: None
    torch.version.cuda = "13.0"

    real_bench = gpu.bench_matmul

    def bench_matmul(device: Any = "cpu", **kwargs: Any) -> Any:
        if device != "cuda":
            return real_bench(device, **kwargs)
        result = real_bench("cpu", **kwargs)
        factor = FAKE_SPEEDUP[result.precision]
        return dataclasses.replace(result, device="cuda", device_name=FAKE_NAME, threads=None,
                                   times_s=tuple(t / factor for t in result.times_s))

    def cold_in_fresh_process(device: str = "cuda", **kwargs: Any) -> dict[str, Any]:
        return {"device": device, "n": kwargs.get("n"), "cold_ms": 135.73,
                "warm_median_ms": 7.67, "scripted": "claims.testing.fake_cuda"}

    def runtime_without_toolkit(timeout: float = 0.0) -> dict[str, Any]:
        lib = os.path.join(sys.prefix, "lib", "python3", "site-packages", "nvidia", "cu13", "lib",
                           "libcudart.so.13")
        return {"available": True, "result_finite": True, "device": "cuda:0",
                "libraries": [x.to_json() for x in torch_cuda.classify_libraries([lib], owners={})],
                "scripted": "claims.testing.fake_cuda"}

    gpu.bench_matmul = bench_matmul
    gpu.cold_in_fresh_process = cold_in_fresh_process
    torch_cuda.tensor_device = lambda device="cuda": "cuda:0"
    torch_cuda.cuda_driver_version = lambda: "13.0"
    torch_cuda.torch_cuda_requirements = lambda: [
        "nvidia-cuda-runtime==13.0.96", "nvidia-cudnn-cu13==9.20.0.48", "nvidia-cublas==13.1.1.3"]
    torch_cuda.runtime_without_toolkit = runtime_without_toolkit


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    install()
