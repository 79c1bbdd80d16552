"""Claims of wu2025: X. Wu, Y. Wang, S. Jegelka, A. Jadbabaie, *On the Emergence of Position
Bias in Transformers*, ICML 2025, arXiv 2502.01951 (:ref:`math-wu2025`, W1-W5).

What could be read of it: the theorems of section 4 on attention-only rollouts under causal,
sliding-window, prefix and decay masks (their theorem numbers are not confirmed here), and the
trained-network experiments of section 5 (Figures 2 and 5, read from a third-party reading of
the plots; the public code xinyiwu98/position-bias-in-attention for the training defaults).

The claims, one module each, in this order:

* ``wu2025:decay-mask`` (W4, :mod:`.decay_mask`): the decay-mask rollout is
  ``Θ(C(t+i-j, i-j) e^{-(i-j)m})`` with its critical point near ``t/(e^m - 1)``;
* ``wu2025:causal-collapse`` (W1, :mod:`.causal_collapse`): causal rollouts collapse onto the
  first token at rate ``(1-(j-1)ε)^t``;
* ``wu2025:sliding-window`` (W2, :mod:`.sliding_window`): sliding windows collapse too, at rate
  ``(1-(j-1)ε^h)^{t/(2h)}``;
* ``wu2025:prefix`` (W3, :mod:`.prefix`): under the prefix mask each prefix token keeps
  ``κ = ε``;
* ``wu2025:trained-causal-primacy``, ``-decay-recency``, ``-rope-tradeoff`` (Figure 2,
  attention-only networks) and ``wu2025:trained-causal-primacy-residual``, ``-decay-residual``,
  ``-rope-residual`` (Figure 5, residual connections): trained networks' position preferences
  on stored runs of ``posbias train``.

Shared helpers: :mod:`._shared` (the rollout claims) and :mod:`._trained` (the trained-model
claims, also read by ``posbias:trained-full-control``).
"""

import importlib

MODULES = (
    "decay_mask",
    "causal_collapse",
    "sliding_window",
    "prefix",
    "trained_causal_primacy",
    "trained_decay_recency",
    "trained_rope_tradeoff",
    "trained_causal_primacy_residual",
    "trained_decay_residual",
    "trained_rope_residual",
)

for _name in MODULES:
    importlib.import_module(f"{__name__}.{_name}")
