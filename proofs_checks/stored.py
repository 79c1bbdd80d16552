"""Stored Step-0 measurements of the papers' architectures (chowdhury2026 C1, C7, C8, C9).

The default ``posbias check`` cannot afford to measure Qwen2-0.5B (24 blocks, width 896) and
GPT-2 small (12 blocks, width 768) at full width within its time budget, so it reads the
measurements that ``posbias measure`` produced once and that ship with the package under
``posbias/proofs_checks/data/step0/``.  ``posbias check --thorough`` repeats them live with the
same commands; a slow test re-measures them and fails when they drift beyond probe noise.

Each file ``<stem>.json`` holds one record::

    {"stem", "command", "argv", "seed", "versions": {"posbias", "torch", "transformers",
     "numpy", "python"}, "date", "wall_seconds", "machine", "result"}

where ``result`` is the JSON that ``posbias measure ... --format json`` printed (keys
``measurement``, ``theory`` and, for ``--rope both``, ``rope``; with ``--kernel-inputs N`` the
measurement holds ``kernel_inputs``, ``kernel_tv``, ``kernel_tv_half`` and
``kernel_instance_tv``: the attention averaged over N further inputs and over heads, compared
with the Cesàro matrix per layer) and ``machine.max_rss_bytes`` the peak resident memory of the
measuring process.

For the RoPE comparison the plan holds one more run per rotary architecture
(:data:`FLOOR_RUNS`): the weights of the ``--rope both`` run with four inputs, its first two
the same, which gives the spread of the profile between inputs of the same weights.

Besides the primary length, the plan holds runs at the paper's running length
(:data:`PAPER_LENGTHS`: L = 2048 for Qwen2-0.5B, 1024 for GPT-2 small, whose learned positions
end there), one input per seed, with the averaged kernel (:data:`KERNEL_INPUTS`).

Record them again with ``python -m posbias.proofs_checks.stored [STEM ...]`` (one process, one
torch thread; minutes per file on two cores).
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from importlib import metadata

import numpy as np

from posbias.errors import InvalidArgument
from posbias.files import write_output
from posbias.numerics.compare import spearman, wasserstein1
from posbias.proofs_checks.data import data_path
from posbias.validation import read_text_bounded

__all__ = [
    "ARCHITECTURES",
    "DRIFT_RULE",
    "FLOOR_RUNS",
    "KERNEL_INPUTS",
    "PAPER_ATTENTION",
    "PAPER_LENGTHS",
    "PAPER_MAX_MEMORY",
    "PAPER_SEEDS",
    "PRIMARY_LENGTH",
    "PROBES",
    "ROTARY",
    "SAMPLES",
    "SCAN_LENGTHS",
    "SEEDS",
    "STEP0_PLAN",
    "Step0Plan",
    "argv_of",
    "drift",
    "load_record",
    "main",
    "noise_floor",
    "record_run",
    "run_measure",
    "runs",
    "step0_dir",
]

#: the Step-0 protocol posbias states for the papers' architectures (chowdhury2026 C9 does not
#: give its own): context length, Rademacher probes per input, random inputs per seed, seeds
PRIMARY_LENGTH = 256
PROBES = 8
SAMPLES = 2
SEEDS = (0, 1)
#: lengths of the one-seed scan that shows how the peak-to-valley ratio depends on L
SCAN_LENGTHS = (128, 256, 512, 1024)
#: preset names of the papers' architectures (full width: posbias.measurements.presets)
ARCHITECTURES = ("qwen2-0.5b", "gpt2")
#: the rotary architectures, measured with RoPE on and off at the first seed
ROTARY = ("qwen2-0.5b",)
#: the paper's running length per architecture (chowdhury2026's running example has L = 2048;
#: GPT-2 small has 1024 learned positions and cannot go beyond them), one input per seed
PAPER_LENGTHS = {"qwen2-0.5b": 2048, "gpt2": 1024}
#: the seeds measured at the paper's length (a Qwen2-0.5B run at L = 2048 takes 10 to 30
#: minutes on this shared two-core machine, a GPT-2 small run at 1024 a few minutes)
PAPER_SEEDS = {"qwen2-0.5b": (0, 1), "gpt2": (0, 1)}
#: further random inputs (forward passes only) whose attention, averaged over them and over
#: heads, is compared with the Cesàro matrix at the paper's length (chowdhury2026 C1; a Qwen2
#: forward pass at L = 2048 takes about 80 s on one thread here, so fewer inputs there)
KERNEL_INPUTS = {"qwen2-0.5b": 4, "gpt2": 16}
#: memory the paper-length runs may use: ``posbias measure`` estimates its peak from an upper
#: bound (4 L x L maps per head and layer kept for the backward pass; 38 GB for Qwen2-0.5B at
#: L = 2048), above this machine's 23 GB; the peak resident memory each run reached is stored
#: with it (``machine.max_rss_bytes``)
PAPER_MAX_MEMORY = "40G"
#: attention of the paper-length Jacobian passes: fused (sdpa) where eager attention's L x L
#: weights kept for the backward pass do not fit this machine (Qwen2-0.5B at L = 2048 went
#: beyond 14 GB with eager attention); the kernel inputs always run eager
PAPER_ATTENTION = {"qwen2-0.5b": "sdpa"}
#: the input-noise floor of the RoPE comparison (chowdhury2026 C8), per rotary architecture:
#: ``(length, seed, inputs)`` of a RoPE-on run with the weights, probes and first two inputs of
#: the ``--rope both`` run (same seed) and two further inputs, so that two profiles of the same
#: weights pooled over two different pairs of inputs can be compared
FLOOR_RUNS: dict = {"qwen2-0.5b": (256, 0, 4)}


def argv_of(arch: str, length: int, seed: int, samples: int, rope: str,
            probes: int = PROBES, kernel_inputs: int = 0,
            max_memory: str | None = None, attention: str = "eager") -> list[str]:
    """The ``posbias measure`` command line of one stored run."""
    extra = ["--attention", attention] if attention != "eager" else []
    extra += ["--kernel-inputs", str(kernel_inputs)] if kernel_inputs else []
    if max_memory:
        extra += ["--max-memory", max_memory]
    return ["measure", "--arch", arch, "--length", str(length), "--probes", str(probes),
            "--samples", str(samples), "--seed", str(seed), "--rope", rope, "--threads", "1",
            *extra, "--format", "json"]


@dataclass(frozen=True)
class Step0Plan:
    """The measurements the Step-0 claims read: architectures (preset names), the primary
    length with its seeds and samples, and the one-seed length scan (see
    this module)."""

    architectures: tuple
    length: int
    probes: int
    samples: int
    seeds: tuple
    scan_lengths: tuple
    rotary: tuple
    #: ``((arch, L), ...)``: the paper's running length per architecture, measured at every seed
    #: with one input (empty: none)
    paper_lengths: tuple = ()
    #: ``((arch, n), ...)``: further inputs of the averaged kernel in the paper-length runs
    kernel_inputs: tuple = ()
    #: ``--max-memory`` of the paper-length runs (None: the command's own limit)
    paper_max_memory: str | None = None
    #: ``((arch, attention), ...)``: attention of the paper-length Jacobian passes (eager when
    #: absent)
    paper_attention: tuple = ()
    #: ``((arch, (seed, ...)), ...)``: the seeds measured at the paper's running length (the
    #: plan's seeds when absent)
    paper_seeds: tuple = ()
    #: ``((arch, length, seed, inputs), ...)``: RoPE-on runs whose inputs give the spread of the
    #: profile between inputs of the same weights (the RoPE comparison's noise floor)
    floor_runs: tuple = ()

    def floor_stems(self) -> dict:
        """``arch -> stem`` of each architecture's input-floor run."""
        return {arch: f"{arch}-L{length}-seed{seed}-inputs{inputs}"
                for arch, length, seed, inputs in self.floor_runs}

    def seeds_at_paper_length(self, arch: str) -> tuple:
        """The seeds of ``arch``'s runs at the paper's running length."""
        return tuple(dict(self.paper_seeds).get(arch, self.seeds))

    def paper_length(self, arch: str) -> int | None:
        """The paper's running length of ``arch`` in this plan (None when it has none)."""
        return dict(self.paper_lengths).get(arch)

    def paper_stems(self) -> set:
        """Stems of the runs at the paper's running length (not part of the primary plan)."""
        return {f"{arch}-L{L}-seed{seed}" for arch, L in self.paper_lengths
                if self.length != L for seed in self.seeds_at_paper_length(arch)}

    def runs(self) -> dict:
        """``stem -> posbias measure argv`` of every run of the plan (a paper-length run whose
        stem is a scan length replaces that scan run: the same command with the kernel inputs)."""
        out = {}
        kernel = dict(self.kernel_inputs)
        for arch in self.architectures:
            for seed in self.seeds:
                rope = "both" if arch in self.rotary and seed == self.seeds[0] else "on"
                out[f"{arch}-L{self.length}-seed{seed}"] = argv_of(
                    arch, self.length, seed, self.samples, rope, self.probes)
            for length in self.scan_lengths:
                if length != self.length:
                    out[f"{arch}-L{length}-seed{self.seeds[0]}"] = argv_of(
                        arch, length, self.seeds[0], 1, "on", self.probes)
            L = self.paper_length(arch)
            if L is not None and self.length != L:
                for seed in self.seeds_at_paper_length(arch):
                    out[f"{arch}-L{L}-seed{seed}"] = argv_of(
                        arch, L, seed, 1, "on", self.probes, kernel.get(arch, 0),
                        self.paper_max_memory, dict(self.paper_attention).get(arch, "eager"))
        stems = self.floor_stems()
        for arch, length, seed, inputs in self.floor_runs:
            out[stems[arch]] = argv_of(arch, length, seed, inputs, "on", self.probes)
        return out

    def protocol(self) -> dict:
        return {"architectures": list(self.architectures), "length": self.length,
                "probes": f"{self.probes} Rademacher", "samples_per_seed": self.samples,
                "seeds": list(self.seeds), "scan_lengths": list(self.scan_lengths),
                "metric": "Frobenius norm of the Jacobian of the final position's last hidden "
                "state w.r.t. each input embedding, normalized to sum 1",
                "dtype": "float32", "vocabulary": "the checkpoint's full vocabulary",
                **({"paper_lengths": dict(self.paper_lengths),
                    "paper_length_runs": "one input per seed, seeds as above",
                    "kernel_inputs": dict(self.kernel_inputs)} if self.paper_lengths else {})}


def _default_plan() -> Step0Plan:
    return Step0Plan(ARCHITECTURES, PRIMARY_LENGTH, PROBES, SAMPLES, SEEDS, SCAN_LENGTHS,
                     tuple(sorted(ROTARY)), tuple(sorted(PAPER_LENGTHS.items())),
                     tuple(sorted(KERNEL_INPUTS.items())), PAPER_MAX_MEMORY,
                     tuple(sorted(PAPER_ATTENTION.items())),
                     tuple(sorted((a, tuple(v)) for a, v in PAPER_SEEDS.items())),
                     tuple(sorted((a, *v) for a, v in FLOOR_RUNS.items())))


#: the plan of the stored runs: what the claims read (through
#: :data:`posbias.proofs_checks.measured.STEP0_PLAN`, which tests replace by a tiny one) and
#: what :func:`main` records
STEP0_PLAN = _default_plan()


def runs() -> dict:
    """``stem -> posbias measure argv`` of every stored run (the plan :data:`STEP0_PLAN`)."""
    return STEP0_PLAN.runs()


def step0_dir() -> str:
    """Folder of the stored Step-0 measurements (found through importlib.resources)."""
    return data_path("step0")


def load_record(stem: str, folder: str | None = None) -> dict | None:
    """The stored record ``<stem>.json`` (see the module docstring), or None when absent."""
    path = os.path.join(folder or step0_dir(), stem + ".json")
    if not os.path.isfile(path):
        return None
    try:
        record = json.loads(read_text_bounded(path, 256 * 2**20, "Step-0 record"))
    except ValueError as exc:  # truncated or not JSON
        raise InvalidArgument("Step-0 record", path, f"a JSON record ({exc})") from None
    except RecursionError:
        raise InvalidArgument("Step-0 record", path, "a JSON record nested less deeply") from None
    if not isinstance(record, dict):
        raise InvalidArgument("Step-0 record", path, "a JSON object")
    return record


def _versions() -> dict:
    out: dict[str, str | None] = {"python": platform.python_version()}
    for name in ("posbias", "torch", "transformers", "numpy"):
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    return out


def run_measure(argv: list[str]) -> str:
    """Run ``posbias measure`` (``python -m posbias`` with ``argv``) in a child process with one
    OpenMP thread and return what it printed on stdout; raise RuntimeError on failure."""
    env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    proc = subprocess.run([sys.executable, "-m", "posbias", *argv], capture_output=True,
                          text=True, env=env, check=False)
    if proc.returncode != 0:
        tail = " ".join(proc.stderr.split())[-300:]
        raise RuntimeError(f"posbias {' '.join(argv)} exited with status {proc.returncode}: {tail}")
    return proc.stdout


def record_run(stem: str, argv: list[str] | None = None,
               runner: Callable[[list[str]], str] | None = None) -> dict:
    """Run ``posbias measure`` with the stored command line of ``stem`` (or ``argv``) and
    return the record with its provenance (needs the ``models`` extra).  ``runner(argv) ->
    stdout`` replaces the child process (default :func:`run_measure`)."""
    argv = list(argv or runs()[stem])
    start = time.perf_counter()
    out = (runner or run_measure)(argv)
    wall = time.perf_counter() - start
    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    try:
        import resource  # POSIX only

        rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024  # KiB on Linux
    except (ImportError, OSError):  # pragma: no cover - not on Linux
        rss = None
    return {
        "stem": stem,
        "command": "posbias " + " ".join(argv),
        "argv": argv,
        "seed": int(argv[argv.index("--seed") + 1]),
        "versions": _versions(),
        "date": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "wall_seconds": round(wall, 1),
        "machine": {"platform": platform.platform(), "cpus": os.cpu_count(),
                    "load_average_after": None if load is None else [round(x, 2) for x in load],
                    **({} if runner is not None or rss is None else {"max_rss_bytes": rss})},
        "result": json.loads(out),
    }


def main(argv: list[str] | None = None) -> int:
    """Record the named stored runs (default: all) into the package's ``data/step0`` folder."""
    known = runs()
    stems = list(argv if argv is not None else sys.argv[1:]) or list(known)
    unknown = [s for s in stems if s not in known]
    if unknown:
        print(f"unknown run(s) {', '.join(unknown)}; known: {', '.join(known)}", file=sys.stderr)
        return 2
    os.makedirs(step0_dir(), exist_ok=True)
    for stem in stems:
        rec = record_run(stem)
        write_output(json.dumps(rec, indent=1), os.path.join(step0_dir(), stem + ".json"))
        print(f"{stem}: {rec['wall_seconds']} s", file=sys.stderr, flush=True)
    return 0


#: how far a re-measurement of a stored run may drift: by no more than probe noise, i.e. the
#: disagreement of two estimates of the same profile with independent probes, as stored by the
#: ``--rope both`` run of Qwen2-0.5B (noise floor); a fresh run with the stored seed repeats the
#: same weights, inputs and probes, so on the same library versions it agrees far more closely
DRIFT_RULE = ("a re-measurement with the stored command drifts when W1(stored, new) exceeds the "
              "stored probe-noise W1 floor or Spearman(stored, new) falls below the stored "
              "probe-noise Spearman floor (two RoPE-on estimates of Qwen2-0.5B with independent "
              "probes, L = 256)")


def noise_floor(folder: str | None = None) -> dict:
    """The stored probe-noise floor ``{"spearman", "w1"}`` (from the ``--rope both`` record)."""
    for stem, argv in STEP0_PLAN.runs().items():
        if "both" in argv:
            rec = load_record(stem, folder)
            if rec is not None and rec["result"].get("rope"):
                r = rec["result"]["rope"]
                return {"spearman": r["noise_spearman"], "w1": r["noise_w1"], "stem": stem}
    raise FileNotFoundError("no stored --rope both record with a probe-noise floor")


def drift(old: dict, new: dict, floor: dict) -> dict:
    """Spearman and W1 between the profiles of two records of the same command, and whether
    they stay within the probe-noise ``floor`` (:data:`DRIFT_RULE`)."""
    def prof(rec):
        p = np.asarray(rec["result"]["measurement"]["profile"], dtype=float)
        return p / p.sum()

    a, b = prof(old), prof(new)
    s, w = float(spearman(a, b)), float(wasserstein1(a, b))
    return {"spearman": s, "w1": w, "floor": floor,
            "within": s >= floor["spearman"] and w <= floor["w1"]}


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
