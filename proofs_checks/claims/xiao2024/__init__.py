"""Claims of xiao2024: G. Xiao, Y. Tian, B. Chen, S. Han, M. Lewis, *Efficient Streaming Language
Models with Attention Sinks* (StreamingLLM), ICLR 2024, arXiv 2309.17453.

Read: the abstract and a third-party transcription of Sections 3-4; the paper states the cache
(S attention sinks plus a rolling window of W recent tokens) and measures perplexity; the rollout
of that mask is posbias's.

Claims:

- ``streaming-support``: after T layers a token's influence is supported exactly on
  [1, S] ∪ [i - (W-1)T, i];
- ``streaming-profile``: inside that support the profile is a lazy walk back (the coefficients of
  g(z)^T) plus a Cesàro rollout on the sinks, in closed form.
"""

import importlib

MODULES = ("streaming_support", "streaming_profile")

for _name in MODULES:
    importlib.import_module(f"{__name__}.{_name}")
