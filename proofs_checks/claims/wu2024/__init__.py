"""Claims of wu2024: X. Wu, A. Ajorlou, Y. Wang, S. Jegelka, A. Jadbabaie, *On the Role of
Attention Masks and LayerNorm in Transformers*, NeurIPS 2024, arXiv 2405.18781.

Read: the abstract and third-party summaries; the theorem's exact statement could not be read.
No public code was found.

Claims:

- ``masked-rank-collapse``: pure masked attention collapses to rank one exponentially for every
  quasi-strongly connected mask, at the graph rate (1 - ε^r)^(t/r);
- ``local-mask-rate``: local (sliding-window) masks slow the collapse rate, decided against the
  exact rate of the masks' uniform kernels.
"""

import importlib

MODULES = ("masked_rank_collapse", "local_mask_rate")

for _name in MODULES:
    importlib.import_module(f"{__name__}.{_name}")
