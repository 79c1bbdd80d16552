"""Claims of herasimchyk2026: H. Herasimchyk, R. Labryga, T. Prusina, S. Laue, *A Residual-Aware
Theory of Position Bias in Transformers* (v1; v2: *A Structural Theory ...*), arXiv 2602.16837.
What could be read of it: its abstracts (v1 and v2) and its public code (ml-uhh/position-bias: the
README, which names the figures and tables, and the rollout configs posbias ships); its statements as posbias states them are H1-H5 of
:ref:`math-herasimchyk2026`.  Theorem and proposition numbers are not confirmed here: each card
says which parts of its setting are unconfirmed.

Its theory: the residual-aware rollout ``P(T) = R(T)⋯R(1)``, ``R(t) = (1-λ_t) I + λ_t A(t)``,
of causal attention kernels, and the position bias of its last row.  The claims, in the paper's
order, one module each:

- :mod:`.stochastic` (H1): every layer and rollout is row-stochastic and lower-triangular;
- :mod:`.primacy_drift` (H2a): causal masking moves the profile earlier with depth;
- :mod:`.recency_drift` (H2b): residual connections move it later;
- :mod:`.diagonal_positive` (H4): the rollout diagonal is a product, positive at finite depth;
- :mod:`.dichotomy` (H4): no collapse when ``Σ λ_t δ_t < ∞``, collapse when ``Σ λ_t = ∞`` with a
  first column bounded below;
- :mod:`.constant_residual_collapse` (H4): a constant λ only slows the collapse;
- :mod:`.alibi_recency` (H2c): ALiBi reinforces recency;
- :mod:`.content_diagonal` (H2d): the content's constant cancels, its diagonal sets the direction;
- :mod:`.u_shape_measured_schedules` (H3, H5): the measured configs' profiles are often U-shaped,
  the attention-only ones collapse;
- :mod:`.u_shape_mechanism` (H3): masking and residual connections alone, then ALiBi, then content:
  what each force contributes to the U;
- :mod:`.four_forces_configs` (H2, H5): each force shows its direction on the measured configs;
- :mod:`.empirical_match` (H5): the rollouts match measured influence of pretrained models.

The first six are checked exactly over generated cases, the ALiBi forces on precise (mpmath)
rollouts, the config claims on the 32 shipped rollout configs (:mod:`._runs` writes their stored
run).  Helpers shared by several claims are in :mod:`._shared`.
"""

import importlib

MODULES = (
    "stochastic",
    "primacy_drift",
    "recency_drift",
    "diagonal_positive",
    "dichotomy",
    "constant_residual_collapse",
    "alibi_recency",
    "content_diagonal",
    "u_shape_measured_schedules",
    "u_shape_mechanism",
    "four_forces_configs",
    "empirical_match",
)

for _name in MODULES:
    importlib.import_module(f"{__name__}.{_name}")
