"""Claims of barbero2024: F. Barbero, A. Banino, S. Kapturowski, D. Kumaran, J. G. M. Araújo,
A. Vitvitskyi, R. Pascanu, P. Veličković, *Transformers need glasses! Information over-squashing
in language tasks*, NeurIPS 2024, arXiv 2406.04267.

Read: the arXiv abstract page and a third-party section-by-section transcription of the paper
(sections 4-6, Appendix B); not the PDF itself.  No public code was found.

Claims, in the paper's order:

- ``path-sum-bound``: Theorem 5.1 / B.5, the over-squashing bound as a sum over causal paths;
- ``uniform-paths``: its equal uniform-attention case (Proposition B.8's normalisation), the
  residual Cesàro rollout with λ = 1/2, and earlier tokens having more paths;
- ``first-token-limit``: Proposition 5.2 / B.8, the bound tends to the first token only;
- ``simple-eigenvalue``: Lemma B.6, 1 is a simple eigenvalue of a causal attention matrix;
- ``softmax-tv-limit``: Proposition B.4, alternating logits keep their softmaxes 2(e-1)/(e+1)
  apart;
- ``no-counting-without-pe``: Proposition 6.1 / B.9, without positional encodings and causal
  masking only the ratios of the token counts reach the representations.
"""

import importlib

MODULES = ("path_sum_bound", "uniform_paths", "first_token_limit", "simple_eigenvalue",
           "softmax_tv_limit", "no_counting_without_pe")

for _name in MODULES:
    importlib.import_module(f"{__name__}.{_name}")
