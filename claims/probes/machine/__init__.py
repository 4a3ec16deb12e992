"""Probes of the machine: OS, CPU and memory, the NVIDIA stack, torch's CUDA, GPU throughput.

* :mod:`~claims.probes.machine.system` - OS, architecture, CPU cores by type,
  memory, and the GPU stack gathered in one record;
* :mod:`~claims.probes.machine.nvidia` - what ``nvidia-smi`` and ``nvcc``
  report, parsed from their text;
* :mod:`~claims.probes.machine.torch_cuda` - torch's CUDA build, device and
  where its CUDA libraries come from;
* :mod:`~claims.probes.machine.gpu` - matrix-multiply and copy throughput,
  CPU against GPU, FP32 against TF32;
* :mod:`~claims.probes.machine.tools` - running a command-line tool once,
  with a timeout, its output kept as text.
"""
