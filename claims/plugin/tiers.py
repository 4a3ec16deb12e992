"""Is each tier's prerequisite present? Detected lazily, once per session.

Nothing is probed until a test of that tier is about to run, so ``-m offline``
touches neither the network nor a GPU driver. Each tier's detector is part of
its record in :mod:`claims.tiers`; each answer carries a precise reason a user
can act on ("no Ollama server at http://127.0.0.1:11434 (connection refused)",
"torch 2.13.0+cpu was built without CUDA").
"""

from __future__ import annotations

from claims.plugin.options import Settings
from claims.tiers import TIERS, TierStatus

__all__ = ["TierStatus", "Tiers"]


class Tiers:
    """Session cache of tier availability."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._cache: dict[str, TierStatus] = {}

    def status(self, tier: str) -> TierStatus:
        if tier not in self._cache:
            try:
                self._cache[tier] = TIERS[tier].detect(self.settings)
            except Exception as exc:  # a detector must never crash the session
                self._cache[tier] = TierStatus(False, f"{tier} prerequisite check failed: {exc!r}")
        return self._cache[tier]

    def stop(self, tier: str, reason: str) -> None:
        """The tier is unavailable from now on (its server stopped answering mid-run).

        Its remaining tests are "not run" with ``reason``; the evidence's tier
        status keeps what was detected and says when and why it stopped.
        """
        before = self._cache.get(tier)
        details = dict(before.details) if before is not None else {}
        details["stopped"] = reason
        self._cache[tier] = TierStatus(False, reason, details=details)

    def known(self) -> dict[str, TierStatus]:
        return dict(self._cache)
