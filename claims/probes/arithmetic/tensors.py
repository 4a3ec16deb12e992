"""Week 5's tensors: the floating formats' bit layouts, tensor byte arithmetic, and the
benchmark's bundled records (results.json, model-run.yaml) read field by field.

Work in progress: filled in by the following commits.
"""

from __future__ import annotations

# ---- gpu tier (week5gpu) ----
