"""``posbias measure``: measured influence and mixing coefficients of a randomly initialized
real architecture, compared with the Cesàro rollout (chowdhury2026 C8/C9, herasimchyk2026).

Needs the ``models`` extra (torch, transformers); without it the command names the extra and
exits with status 2.  Results go to stdout (``--format table`` or ``json``), progress to stderr.
"""

from __future__ import annotations

import json
import math
import sys

from posbias.errors import InvalidArgument, NeedsExtra
from posbias.measurements.presets import PRESETS

__all__ = ["add_parser", "run"]

#: library parameter names -> the option the user typed
_OPTION = {
    "arch": "--arch", "layers": "--layers", "hidden": "--hidden", "heads": "--heads",
    "kv_heads": "--kv-heads", "vocab": "--vocab", "length": "--length", "seed": "--seed",
    "probes": "--probes", "samples": "--samples", "metric": "--metric", "rope": "--rope",
    "dtype": "--dtype", "probe_dist": "--probe-dist", "exact": "--exact",
    "threads": "--threads",
}


def add_parser(subparsers):
    presets = ", ".join(sorted(PRESETS))
    p = subparsers.add_parser(
        "measure",
        help="measure Step-0 influence and lambda on a randomly initialized real architecture",
        description=(
            "Build a randomly initialized causal LM from a transformers configuration (nothing "
            "is downloaded), measure the influence of each input position on the final one "
            "(Jacobian Frobenius norm, exact or from random probes, or the top-1 probability "
            "gradient) and the mixing coefficient lambda_t of every block, and compare with the "
            "Cesàro rollout using the measured lambdas and the best constant alpha. "
            f"Presets: {presets}; any causal-LM model type of transformers also works. "
            "Needs the 'models' extra (torch, transformers)."),
    )
    p.add_argument("--arch", required=True, metavar="NAME",
                   help="preset name or transformers model type (e.g. gpt2, qwen2-0.5b, llama)")
    p.add_argument("--layers", type=int, metavar="N", help="number of blocks (override)")
    p.add_argument("--hidden", type=int, metavar="D", help="hidden size (override; divisible by heads)")
    p.add_argument("--heads", type=int, metavar="H", help="attention heads (override)")
    p.add_argument("--kv-heads", type=int, metavar="K",
                   help="key/value heads (override; must divide heads; grouped-KV models only)")
    p.add_argument("--vocab", type=int, metavar="V", help="vocabulary size (override)")
    p.add_argument("--length", type=int, default=64, metavar="L", help="sequence length (default 64)")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="seed of weights, inputs, probes")
    p.add_argument("--probes", type=int, default=8, metavar="K",
                   help="random probes for the Jacobian estimate (default 8)")
    p.add_argument("--exact", action="store_true",
                   help="exact Jacobian (one backward pass per hidden coordinate)")
    p.add_argument("--probe-dist", choices=("rademacher", "gaussian"), default="rademacher",
                   help="probe distribution (default rademacher)")
    p.add_argument("--samples", type=int, default=1, metavar="N",
                   help="random input sequences to average over (default 1)")
    p.add_argument("--metric", choices=("jacobian", "top1-grad"), default="jacobian",
                   help="influence metric (default jacobian)")
    p.add_argument("--rope", choices=("on", "off", "both"), default="on",
                   help="RoPE on, patched to the identity, or both compared (rotary models)")
    p.add_argument("--dtype", choices=("float32", "float64"), default="float32")
    p.add_argument("--threads", type=int, default=1, metavar="N",
                   help="torch threads (default 1: fastest for small shapes on shared machines)")
    p.add_argument("--format", choices=("table", "json"), default="table")
    p.add_argument("--plot", metavar="FILE", help="write a plot of the profiles (needs matplotlib)")
    p.set_defaults(func=run)
    return p


def _progress(msg: str) -> None:
    print(f"[measure] {msg}", file=sys.stderr, flush=True)


def _fmt(x: float, digits: int = 4) -> str:
    if x is None:
        return "-"
    if isinstance(x, float) and not math.isfinite(x):
        return str(x)
    return f"{x:.{digits}g}"


def _num(x):
    return None if x is None else float(f"{x:.7g}")


def _table(m, c, rope) -> str:
    s = m.settings
    heads = f"{s['num_attention_heads']} heads"
    if "num_key_value_heads" in s:
        heads += f" ({s['num_key_value_heads']} KV)"
    lines = [
        f"arch {m.arch} ({s['model_type']}): {s['num_hidden_layers']} layers, hidden "
        f"{s['hidden_size']}, {heads}, vocab {s['vocab_size']}; L = {m.length}, {m.metric} "
        f"({m.estimator}), {m.samples} sample(s), seed {m.seed}, RoPE "
        f"{'on' if m.rope else 'off'}{'' if s['rotary'] else ' (not rotary)'}, {m.dtype}, "
        f"{m.seconds:.1f} s",
        "",
        "layer  lambda    attention TV from uniform",
    ]
    for t, lam in enumerate(m.lambdas, 1):
        tv = "-" if m.attention_tv is None else _fmt(float(m.attention_tv[t - 1]))
        lines.append(f"{t:>5}  {_fmt(float(lam)):<8}  {tv}")
    lines += [
        "",
        "profile                    spearman  W1        first/min  last/min  argmin",
        f"{'measured':<26} {'-':<9} {'-':<9} {_fmt(c.measured['first_over_min']):<10} "
        f"{_fmt(c.measured['last_over_min']):<9} {c.measured['argmin']}",
        f"{'Cesaro, measured lambda':<26} {_fmt(c.spearman_measured_lambda):<9} "
        f"{_fmt(c.w1_measured_lambda):<9} "
        f"{_fmt(c.theory_measured_lambda['first_over_min']):<10} "
        f"{_fmt(c.theory_measured_lambda['last_over_min']):<9} {c.theory_measured_lambda['argmin']}",
        f"{'Cesaro, alpha = ' + _fmt(c.best_alpha):<26} {_fmt(c.spearman_best_alpha):<9} "
        f"{_fmt(c.w1_best_alpha):<9} {_fmt(c.theory_best_alpha['first_over_min']):<10} "
        f"{_fmt(c.theory_best_alpha['last_over_min']):<9} {c.theory_best_alpha['argmin']}",
    ]
    if rope is not None:
        lines += ["", f"RoPE on vs off: spearman {_fmt(rope.spearman)}, W1 {_fmt(rope.w1)}"]
        if rope.noise_spearman is not None:
            lines.append(f"probe-noise floor (RoPE on, independent probes): spearman "
                         f"{_fmt(rope.noise_spearman)}, W1 {_fmt(rope.noise_w1)}")
    L = m.length
    picks = sorted({1, 2, 3, max(1, L // 4), max(1, L // 2), max(1, 3 * L // 4), max(1, L - 2),
                    max(1, L - 1), L})
    lines += ["", "position  measured    Cesaro(lambda)  Cesaro(alpha)"]
    for j in picks:
        lines.append(f"{j:>8}  {_fmt(float(m.profile[j - 1])):<10}  "
                     f"{_fmt(float(c.profile_measured_lambda[j - 1])):<14}  "
                     f"{_fmt(float(c.profile_best_alpha[j - 1]))}")
    return "\n".join(lines)


def _plot(path, m, c, rope) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise NeedsExtra("plot", "matplotlib") from None
    import numpy as np

    x = np.arange(1, m.length + 1)
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.semilogy(x, m.profile, label=f"measured ({m.metric})", lw=1.5)
    ax.semilogy(x, c.profile_measured_lambda, "--", label="Cesàro rollout, measured λ_t")
    ax.semilogy(x, c.profile_best_alpha, ":", label=f"Cesàro rollout, α = {c.best_alpha:.3g}")
    if rope is not None:
        ax.semilogy(x, rope.off.profile, lw=1, alpha=0.7, label="measured, RoPE off")
    ax.set_xlabel("input position j")
    ax.set_ylabel("influence on the final position")
    ax.set_title(f"{m.arch} at initialization, L = {m.length}")
    ax.legend(fontsize=8)
    fig.tight_layout()
    import io

    from posbias.files import write_output

    buf = io.BytesIO()
    fmt = path.rsplit(".", 1)[-1].lower() if "." in path else "png"
    fig.savefig(buf, format=fmt if fmt in ("png", "pdf", "svg") else "png")
    plt.close(fig)
    write_output(buf.getvalue(), path, "--plot")


def run(args) -> int:
    from posbias.measurements import measure as ms
    from posbias.proofs_checks import measured as mc
    from posbias.files import check_writable

    if args.plot:
        check_writable(args.plot, "--plot")
    kwargs = dict(length=args.length, layers=args.layers, hidden=args.hidden, heads=args.heads,
                  kv_heads=args.kv_heads, vocab=args.vocab, seed=args.seed, probes=args.probes,
                  exact=args.exact, metric=args.metric, samples=args.samples, dtype=args.dtype,
                  probe_dist=args.probe_dist, threads=args.threads, progress=_progress)
    try:
        ms.require_models_extra()
        _progress(f"measuring {args.arch} at initialization (L = {args.length})")
        rope = None
        if args.rope == "both":
            rope = mc.rope_comparison(args.arch, noise_floor=True, **kwargs)
            m = rope.on
        else:
            m = ms.measure_influence(args.arch, rope=args.rope == "on", **kwargs)
        c = mc.compare_with_theory(m)
    except InvalidArgument as exc:
        if exc.parameter in _OPTION:
            value = exc.value
            if exc.parameter == "rope" and args.rope == "both":
                value = "both"
            raise InvalidArgument(_OPTION[exc.parameter], value, exc.allowed) from None
        raise
    if args.format == "json":
        out = {"measurement": m.as_dict(), "theory": c.as_dict(m.digits)}
        if rope is not None:
            out["rope"] = {"spearman": _num(rope.spearman), "w1": _num(rope.w1),
                           "noise_spearman": _num(rope.noise_spearman),
                           "noise_w1": _num(rope.noise_w1),
                           "profile_off": rope.off.as_dict()["profile"],
                           "lambdas_off": rope.off.as_dict()["lambdas"]}
        text = json.dumps(out, indent=2)
    else:
        text = _table(m, c, rope)
    if args.plot:
        _plot(args.plot, m, c, rope)
    print(text)
    return 0
