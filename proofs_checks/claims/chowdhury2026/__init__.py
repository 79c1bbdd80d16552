"""Claims of chowdhury2026: B. D. Chowdhury, *Lost in the Middle at Birth: An Exact Theory of
Transformer Position Bias*, arXiv 2603.10123 (:ref:`math-chowdhury2026`, C1-C11).

What could be read of the paper here is its abstract; its full text could not be read, so the
statements are those of the abstract as docs/explanation/mathematics.rst gives them, and section and figure
numbers are not confirmed.  The paper has no public code.

The Cesàro model at initialization: the discrete rollout of ``N = (1-α)I + αM`` against the
continuum theory (Hardy kernel, density ρ_H, residual mixture, recency delta, dead zone, U shape),
checked by exact rationals, mpmath and the sympy derivations.  The claims about the paper's
architectures at initialization (the premise q·k ≈ 0, peak/valley, RoPE, the Step-0 fit) are
decided on Step-0 measurements of Qwen2-0.5B and GPT-2 small at full width
(:mod:`posbias.proofs_checks.measured`; stored runs of ``posbias measure`` by default, live with
``--thorough``); the claims about pretrained models (C10) on measurements the user supplies; the
proxies of C10 and C11 on small causal LMs trained here (a synthetic task and natural text).

Claims, one module each, in the paper's order:

- ``cesaro-stochastic`` (C1): q·k ≈ 0 at initialization, so attention is the Cesàro matrix and
  ``N^H`` is causal and row-stochastic;
- ``discrete-limit`` (C2, C3): ``L·p(j)`` converges to ρ_H(j/L) at rate O(1/L);
- ``residual-density`` (C5): the atom (1-α)^H plus the binomial mixture;
- ``recency-delta`` (C5): the last token keeps the atom (1-α)^H as L grows;
- ``dead-zone`` (C6): the middle is O(1/(H-1)!);
- ``u-shape`` (C7): the profile at initialization is U-shaped;
- ``u-shape-step0`` (C7): the same words on the measured Step-0 profiles of Qwen2 and GPT-2;
- ``peak-valley`` (C7): peak-to-valley ≈ 10^2 at initialization, measured;
- ``continuum-kernel`` (C2): the Hardy operator and the kernel of K^H;
- ``density`` (C3): ρ_H, its Mellin moments and its Gamma law;
- ``primacy-tail`` (C4): the logarithmic divergence at the first token;
- ``rope-init`` (C8): RoPE does not matter at initialization;
- ``step0-fit`` (C9): the Step-0 profile against the Cesàro rollout;
- ``u-persists-pretrained``, ``peak-valley-pretrained`` (C10): after pretraining;
- ``u-persists-trained-proxy``, ``dead-zone-trained-proxy`` (C10, C11): a small LM trained on a
  synthetic task;
- ``u-persists-text-proxy``, ``pv-grows-text-proxy``, ``dead-zone-text-proxy``,
  ``boundary-peaks-text-proxy`` (C10, C11): small LMs pretrained on natural text.

Every claim registers its rule: how the computed numbers map to a verdict, written from the
paper's statement before computing.
"""

import importlib

MODULES = (
    "cesaro_stochastic",
    "discrete_limit",
    "residual_density",
    "recency_delta",
    "dead_zone",
    "u_shape",
    "u_shape_step0",
    "peak_valley",
    "continuum_kernel",
    "density",
    "primacy_tail",
    "rope_init",
    "step0_fit",
    "u_persists_pretrained",
    "peak_valley_pretrained",
    "u_persists_trained_proxy",
    "dead_zone_trained_proxy",
    "u_persists_text_proxy",
    "pv_grows_text_proxy",
    "dead_zone_text_proxy",
    "boundary_peaks_text_proxy",
)

for _name in MODULES:
    importlib.import_module(f"{__name__}.{_name}")
