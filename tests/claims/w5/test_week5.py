"""W5: the Week 5 lab folder (fixtures/lab/week-05-pytorch-tensors), its tensors, formats and
matmul benchmark.

Work in progress: filled in by the following commits.
"""

from __future__ import annotations

# ---- gpu tier (week5gpu) ----
