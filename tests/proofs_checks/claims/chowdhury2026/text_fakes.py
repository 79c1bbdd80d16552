"""Constructed results documents of the natural-text proxies of chowdhury2026 C10 and C11,
written to a data directory and read back as the check reads the stored runs."""

import json

import numpy as np

from posbias.proofs_checks import registry
from posbias.proofs_checks.claims.chowdhury2026._text import TEXT_STORED

L = 256
IDS = {k: f"chowdhury2026:{k}-text-proxy"
       for k in ("u-persists", "pv-grows", "dead-zone", "boundary-peaks")}


def U(ends=12.0, valley=1.0):
    """A U-shaped profile: end blocks ``ends`` times a smooth interior valley."""
    x = np.linspace(0, 1, L)
    p = valley + (ends - valley) * (np.exp(-x / 0.05) + np.exp(-(1 - x) / 0.05))
    return p / p.sum()


def flat():
    p = np.ones(L)
    p[-1] = 1.2
    return p / p.sum()


def spiked(base, positions, height):
    p = np.array(base, dtype=float)
    for q in positions:
        p[q] *= height
    return (p / p.sum()).tolist()


POS = [64 + (37 * i) % 128 for i in range(8)]


def document(step0=None, stepN=None, margin=0.3, spike0=1.0, spikeN=6.0, seeds=(0, 1),
             windows=8):
    step0 = U(20) if step0 is None else step0
    stepN = U(60) if stepN is None else stepN
    rng = np.random.default_rng(0)
    noise = [1 + 0.02 * rng.standard_normal(L) for _ in range(windows)]
    def bwin(base, h):
        return [spiked(base * n, [q], h) for q, n in zip(POS[:windows], noise)]
    runs = [{"seed": s, "iterations": 2000, "wall_seconds": 10.0, "history": [
        {"iteration": 0, "below_bigram": -1.5, "influence": list(step0),
         "boundary_influence": bwin(step0, spike0)},
        {"iteration": 2000, "below_bigram": margin, "influence": list(stepN),
         "boundary_influence": bwin(stepN, spikeN)}]} for s in seeds]
    return {"name": TEXT_STORED[0], "config": {"arch": "llama"}, "runs": runs,
            "corpus": {"sha256": "0" * 64}, "provenance": {"command": "posbias train"},
            "boundary_windows": {"positions": POS[:windows],
                                 "eot_positions": [[q] for q in POS[:windows]]}}


def store(tmp_path, doc):
    """``doc`` written as the first stored run of a data directory; the check's context."""
    folder = tmp_path / "trained-lm-text"
    folder.mkdir(exist_ok=True)
    (folder / f"{TEXT_STORED[0]}.json").write_text(json.dumps(doc))
    return registry.CheckContext(data_dir=str(tmp_path))


def verdict(tmp_path, doc, key):
    """The verdict of the proxy ``key`` (``u-persists``, ...) on ``doc``."""
    return registry.run_claim(registry.get_claim(IDS[key]), store(tmp_path, doc)).evidence.verdict
