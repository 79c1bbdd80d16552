"""Helpers shared by xiao2024's claim modules: what could be read of the paper, the date the
rules were fixed and the paper's cache configurations."""

from __future__ import annotations

__all__ = ["FIXED", "PAPER", "PAPER_CONFIGS", "READ"]

PAPER = "xiao2024"
#: the date the rules of these claims were fixed, before their results
FIXED = "2026-12-04"
READ = ("read: the arXiv abstract and a third-party section-by-section transcription of the "
        "paper (github viktor-shcherb/msc_thesis, references/2024-05-attention-sinks-streaming: "
        "Sections 3.1, 3.2, 4); the public code (mit-han-lab/streaming-llm) was not run; the "
        "paper states the cache (4 attention sinks plus a rolling window, 4+1020 for Falcon, "
        "Pythia and MPT, 4+2044 for Llama-2), not a rollout of it")
#: (sinks S, window W, layers T, model) of the paper's cache settings (window = cache - sinks)
PAPER_CONFIGS = ((4, 1020, 32, "Falcon-7B / MPT-7B (cache 1024)"),
                 (4, 2044, 32, "Llama-2-7B (cache 2048)"))
