"""``posbias measure``: measured influence and mixing coefficients of a randomly initialized
real architecture, compared with the Cesàro rollout (chowdhury2026 C8/C9, herasimchyk2026).

Needs the ``models`` extra (torch, transformers); without it the command names the extra and
exits with status 2.  Results go to stdout (``--format table`` or ``json``), progress to stderr.
"""

from __future__ import annotations

import json
import math
import os
import sys

from posbias.cli._common import OPTION as _OPTION
from posbias.cli._common import add_output, check_memory, seed_type
from posbias.errors import InvalidArgument
from posbias.measurements.presets import PRESETS

__all__ = ["add_parser", "run", "estimate_bytes"]


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
    p.add_argument("--seed", type=seed_type, default=0, metavar="S", help="seed of weights, inputs, probes")
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
    add_output(p, ("text", "json"), "text", aliases={"table": "text"})
    p.add_argument("--plot", metavar="FILE", help="write a plot of the profiles (.png or .pdf; needs matplotlib)")
    p.set_defaults(func=run)
    return p


def _progress(msg: str) -> None:
    print(f"[measure] {msg}", file=sys.stderr, flush=True)


def _quiet(msg: str) -> None:
    pass


def _max_threads() -> int:
    return max(1, min(256, 4 * (os.cpu_count() or 1)))


def _validate(args) -> None:
    """Every number before torch is imported or anything is printed (one line, exit 2)."""
    if not args.arch or not args.arch.isprintable() or len(args.arch) > 100:
        raise InvalidArgument("--arch", args.arch, "a preset name or a transformers model type")
    for name, lo in (("length", 2), ("probes", 1), ("samples", 1), ("layers", 1), ("hidden", 1),
                     ("heads", 1), ("kv_heads", 1), ("vocab", 2)):
        value = getattr(args, name)
        if value is not None and value < lo:
            raise InvalidArgument(_OPTION[name], value, f"an integer >= {lo}")
    if not 1 <= args.threads <= _max_threads():
        raise InvalidArgument("--threads", args.threads, f"an integer between 1 and {_max_threads()} "
                              f"(4 per CPU core of this machine, at most 256)")


def estimate_bytes(settings: dict, length: int, exact: bool, dtype: str) -> float:
    """Memory of a measurement from its sizes: the weights and their gradients, one batch copy
    of the activations kept for the backward pass (``layers * (4 heads L^2 + 40 L hidden)``
    numbers, the attention maps dominating), and about 600 MB for torch and transformers."""
    itemsize = 4 if dtype == "float32" else 8
    d, layers = settings["hidden_size"], settings["num_hidden_layers"]
    inter = settings.get("intermediate_size") or settings.get("n_inner") or 4 * d
    params = layers * (4 * d * d + 3 * d * inter) + 2 * settings["vocab_size"] * d
    activations = layers * (4 * settings["num_attention_heads"] * length * length + 40 * length * d)
    return itemsize * (3 * params + activations) + 600e6


def _fmt(x: float, digits: int = 4) -> str:
    if x is None:
        return "-"
    if isinstance(x, float) and not math.isfinite(x):
        return "n/a"  # a ratio to a minimum that is 0 in float: no inf/nan in a report
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
    from posbias.render.plots import plot_curves

    curves = [(f"measured ({m.metric})", m.profile, "-"),
              ("Cesàro rollout, measured λ_t", c.profile_measured_lambda, "--"),
              (f"Cesàro rollout, α = {c.best_alpha:.3g}", c.profile_best_alpha, ":")]
    if rope is not None:
        curves.append(("measured, RoPE off", rope.off.profile, "-."))
    plot_curves(curves, path, title=f"{m.arch} at initialization, L = {m.length}", parameter="--plot")


def run(args) -> int:
    from posbias.measurements import measure as ms
    from posbias.proofs_checks import measured as mc
    from posbias.files import check_target

    _validate(args)
    check_target(args.output, args.format)
    if args.plot:
        from posbias.render.plots import check_plot_path

        check_plot_path(args.plot, "--plot")
    if args.arch in PRESETS:  # a transformers model type is sized once transformers is loaded
        from posbias.measurements.presets import resolve_settings

        try:
            settings = resolve_settings(PRESETS[args.arch], layers=args.layers, hidden=args.hidden,
                                        heads=args.heads, kv_heads=args.kv_heads, vocab=args.vocab,
                                        length=args.length)
        except InvalidArgument as exc:
            raise InvalidArgument(_OPTION.get(exc.parameter, exc.parameter), exc.value, exc.allowed) from None
        check_memory(estimate_bytes(settings, args.length, args.exact, args.dtype), args.max_memory,
                     "use a smaller --length, --hidden or --layers")
    progress = _quiet if args.quiet else _progress
    kwargs = dict(length=args.length, layers=args.layers, hidden=args.hidden, heads=args.heads,
                  kv_heads=args.kv_heads, vocab=args.vocab, seed=args.seed, probes=args.probes,
                  exact=args.exact, metric=args.metric, samples=args.samples, dtype=args.dtype,
                  probe_dist=args.probe_dist, threads=args.threads, progress=progress)
    try:
        ms.require_models_extra()
        if args.arch in PRESETS:  # validated above; a model type is validated by the library first
            progress(f"measuring {args.arch} at initialization (L = {args.length})")
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
        text = json.dumps(out, indent=2, allow_nan=False)
    else:
        text = _table(m, c, rope)
    if args.plot:
        _plot(args.plot, m, c, rope)
    from posbias.files import write_output

    write_output(text, args.output, fmt=args.format)
    return 0
