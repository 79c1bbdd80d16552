"""The gates of the trained claims: how well a trained network must do its task before its
positional differences count as evidence.

They live outside the claim modules so that ``posbias train`` can print, under a finished run,
whether every seed reached its gate without loading the claims (sympy, scipy). The claims read
the same numbers: one definition of each.
"""

from __future__ import annotations

__all__ = ["ICL_GATE", "LM_GATE"]

#: wu2025's in-context task: the in-context accuracy every seed must reach before a difference
#: counts as in-context retrieval (copying one of the two context labels at random gives 0.516)
ICL_GATE = 0.75

#: chowdhury2026's trained language models: the final position's learned fraction,
#: (ln V - loss) / (ln V - Bayes loss), every seed must reach before a profile counts
LM_GATE = 0.5
