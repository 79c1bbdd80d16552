"""Claims of barbero2025: F. Barbero, Á. Arroyo, X. Gu, C. Perivolaropoulos, M. Bronstein,
P. Veličković, R. Pascanu, *Why do LLMs attend to the first token?*, COLM 2025, arXiv 2504.02732.

Read: the abstracts and third-party notes (Section 4.1, Figure 5, Table 1); not the paper's
theorems, so the sink layer (1-λ)I + λ(αJ₁ + (1-α)C) is posbias's model of its mechanism.  No
public code was found.

Claims:

- ``sink-hausdorff``: the sink layer stays a Hausdorff matrix, with moments
  (1-λ) + λ(αδ_k0 + (1-α)/(k+1)), for every depth (closed-form profile with a sink);
- ``sink-recency-atom``: a sink leaves chowdhury2026's recency delta (1-λ)^H unchanged;
- ``sink-dead-zone``: a sink scales the k-th term of the middle's density by (1-α)^k, so it
  deepens chowdhury2026's dead zone;
- ``sink-slows-mixing``: the paper's claim that a sink lets the model avoid over-mixing, in the
  model: every other token's influence on the last token falls as the sink grows.
"""

import importlib

MODULES = ("sink_hausdorff", "sink_recency_atom", "sink_dead_zone", "sink_slows_mixing")

for _name in MODULES:
    importlib.import_module(f"{__name__}.{_name}")
