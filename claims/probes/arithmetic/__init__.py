"""Probes that compute figures from other figures, exactly where the inputs are integers.

* :mod:`~claims.probes.arithmetic.memory` - parameter counts, weight and
  KV-cache bytes, GB against GiB, bits per weight;
* :mod:`~claims.probes.arithmetic.quant` - Q4_0 blocks as ggml stores them,
  and what a round trip through them loses.
"""
