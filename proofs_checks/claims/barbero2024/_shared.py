"""Helpers shared by barbero2024's claim modules: what could be read of the paper, the date the
rules were fixed and the seeded case generator."""

from __future__ import annotations

import random

from posbias.proofs_checks.claims._common import case_rng
from posbias.proofs_checks.registry import CheckContext

__all__ = ["FIXED", "PAPER", "READ", "rng"]

PAPER = "barbero2024"
#: the date the rules of these claims were fixed, before their results
FIXED = "2026-12-04"
#: what could be read of the paper (every card repeats it)
READ = ("read: the arXiv abstract page and a third-party section-by-section transcription of "
        "the paper (github viktor-shcherb/msc_thesis, references/2024-12-transformers-need-"
        "glasses-over-squashing: sections 4-6 and Appendix B); the paper's PDF itself could not "
        "be read, so its wording, equation numbers and typesetting are as transcribed; no public "
        "code was found")


def rng(ctx: CheckContext, slug: str) -> random.Random:
    """The seeded generator of one claim's cases."""
    return case_rng(ctx, PAPER, slug)

