"""Constructed results documents of the trained-LM proxies of chowdhury2026 C10 and C11: the
influence profiles at Step 0 and Step N of each seed are chosen by the test."""

import numpy as np

IDS = ("chowdhury2026:u-persists-trained-proxy", "chowdhury2026:dead-zone-trained-proxy")
L = 64


def U(ends=24.0, valley=1.0):
    """A U-shaped profile: end blocks ``ends`` times the interior valley."""
    p = np.full(L, valley)
    p[:4] = p[-4:] = ends * valley
    p[-1] *= 3  # a recency spike on the final token
    return (p / p.sum()).tolist()


def flat(ramp=1.0):
    """A nearly flat profile (no U, no dead zone), its last entry ``ramp`` times the rest."""
    p = np.ones(L)
    p[-1] = ramp
    return (p / p.sum()).tolist()


def doc(*seeds, learned=0.9):
    """A results document: one run per (profile at Step 0, profile at Step N)."""
    runs = []
    for s, (p0, pn) in enumerate(seeds):
        runs.append({"seed": s, "iterations": 100, "wall_seconds": 1.0, "history": [
            {"iteration": 0, "final_learned": 0.0, "influence": p0},
            {"iteration": 100, "final_learned": learned, "influence": pn}]})
    return {"runs": runs}
