"""Claims of posbias itself: the exact structure behind the papers that the package derives and
checks (:ref:`math-exact-structure`, X1-X7; docs/explanation/mathematics.rst), and a control of its own
test machinery.  Not a paper: the statements are the package's, with their derivations in
:mod:`posbias.derivations`.

The claims, one module each, in this order:

* ``posbias:laguerre`` (:mod:`.laguerre`): the Laguerre form of chowdhury2026 C5's continuous
  part;
* ``posbias:alibi-warp`` (X6, :mod:`.alibi_warp`): ALiBi is a warped Cesàro operator;
* ``posbias:content-as-residual`` (X4, :mod:`.content_as_residual`): a diagonal logit is a
  residual step;
* ``posbias:alibi-linear-time`` (X5, :mod:`.alibi_linear_time`): O(L) propagation for ALiBi
  kernels (machinery);
* ``posbias:hausdorff`` (X1, :mod:`.hausdorff`), ``posbias:bernstein`` (X2,
  :mod:`.bernstein`), ``posbias:symmetric-polynomial`` (X3, :mod:`.symmetric_polynomial`):
  the Hausdorff, Bernstein and symmetric-polynomial forms of the Cesàro rollout;
* ``posbias:schedule-products`` (X7, :mod:`.schedule_products`): closed-form schedule
  products;
* ``posbias:rope-score-law`` (:mod:`.rope_score_law`): the model-free half of chowdhury2026 C8;
* ``posbias:trained-full-control`` (:mod:`.trained_full_control`): the trained-model test
  machinery of wu2025's section-5 claims has no positional leak (machinery).

Shared helpers: :mod:`._shared` (the agreement and exact-comparison rules).
"""

import importlib

MODULES = (
    "laguerre",
    "alibi_warp",
    "content_as_residual",
    "alibi_linear_time",
    "hausdorff",
    "bernstein",
    "symmetric_polynomial",
    "schedule_products",
    "rope_score_law",
    "trained_full_control",
)

for _name in MODULES:
    importlib.import_module(f"{__name__}.{_name}")
