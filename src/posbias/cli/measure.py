"""``posbias measure``: measured influence and mixing coefficients of a randomly initialized
real architecture, compared with the Cesàro rollout (chowdhury2026 C8/C9, herasimchyk2026).

Needs the ``models`` extra (torch, transformers); without it the command names the extra and
exits with status 2.  Results go to stdout (``--format table`` or ``json``), progress to stderr.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from typing import TYPE_CHECKING, Any

from posbias.cli._common import OPTION, add_output, flag_error, flag_of, seed_type
from posbias.errors import InvalidArgument
from posbias.files import check_target, check_writable, write_output
from posbias.measurements import export
from posbias.measurements import measure as ms
from posbias.measurements.checkpoint import load_checkpoint
from posbias.measurements.devices import check_device, resolve_device
from posbias.measurements.hooks import require_models_extra
from posbias.measurements.journal import JOURNAL_SUFFIX, check_fresh, windows_done
from posbias.measurements.measure import plan_influence
from posbias.measurements.planning import MeasurementPlan, plan_checkpoint
from posbias.measurements.presets import PRESETS
from posbias.measurements.pretrained import measure_pretrained
from posbias.measurements.sharding import DEVICE_MAPS, describe_device_map
from posbias.measurements.text import text_windows
from posbias.numbers import rounded, significant
from posbias.proofs_checks.pretrained import compare_with_rollout
from posbias.render.plots import check_plot_path, plot_curves

if TYPE_CHECKING:
    from posbias.proofs_checks.measured import RopeComparison

__all__ = ["add_parser", "run"]


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
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
    p.add_argument("--arch", metavar="NAME",
                   help="preset name or transformers model type (e.g. gpt2, qwen2-0.5b, llama); "
                        "or measure a checkpoint with --model")
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
    p.add_argument("--metric", choices=("jacobian", "top1-grad"), default=None,
                   help="influence metric (default jacobian; top1-grad with --model)")
    p.add_argument("--rope", choices=("on", "off", "both"), default="on",
                   help="RoPE on, patched to the identity, or both compared (rotary models)")
    p.add_argument("--dtype", choices=("float32", "float64", "bfloat16"), default="float32",
                   help="float32 (default) or float64 with --arch; float32 or bfloat16 with --model")
    p.add_argument("--threads", type=int, default=1, metavar="N",
                   help="torch threads (default 1: fastest for small shapes on shared machines)")
    p.add_argument("--attention", choices=("eager", "sdpa"), default="eager",
                   help="attention of the Jacobian passes: eager (default; records the "
                        "attention weights) or sdpa (torch's fused attention: far less memory "
                        "at long contexts; with --arch)")
    p.add_argument("--kernel-inputs", type=int, default=0, metavar="N",
                   help="further random inputs whose attention, averaged over them and over "
                        "heads, is compared with the Cesàro matrix (forward passes only; "
                        "default 0; with --arch)")
    p.add_argument("--device", default="cpu", metavar="DEVICE",
                   help="where the passes run: cpu (default), cuda, cuda:N, mps, or auto (CUDA "
                        "if present, else MPS, else cpu); weights, ids and probes are drawn on "
                        "the CPU either way, and the device is recorded in the output")
    add_output(p, ("text", "json"), "text", aliases={"table": "text"})
    p.add_argument("--plot", metavar="FILE", help="write a plot of the profiles (.png or .pdf; needs matplotlib)")
    _add_checkpoint_options(p)
    p.set_defaults(func=run)
    return p


def _progress(msg: str) -> None:
    print(f"[measure] {msg}", file=sys.stderr, flush=True)


def _quiet(msg: str) -> None:
    pass


def _max_threads() -> int:
    return max(1, min(256, 4 * (os.cpu_count() or 1)))


def _check_device_spelling(args: argparse.Namespace) -> None:
    args.device = check_device("--device", args.device)


def _resolve_device(args: argparse.Namespace) -> str:
    """The device --device names, once torch is importable: one line and exit 2 when it is
    not there (before any model is built or loaded); -v says which one was chosen and why."""
    device, why = resolve_device(args.device, "--device")
    if args.verbose:
        print(f"[measure] device {args.device}: {device} ({why})", file=sys.stderr, flush=True)
    return device


def _validate(args: argparse.Namespace) -> None:
    """Every number before torch is imported or anything is printed (one line, exit 2)."""
    _check_device_spelling(args)
    if not args.arch or not args.arch.isprintable() or len(args.arch) > 100:
        raise InvalidArgument("--arch", args.arch, "a preset name or a transformers model type")
    for name, lo in (("length", 2), ("probes", 1), ("samples", 1), ("layers", 1), ("hidden", 1),
                     ("heads", 1), ("kv_heads", 1), ("vocab", 2), ("kernel_inputs", 0)):
        value = getattr(args, name)
        if value is not None and value < lo:
            raise InvalidArgument(OPTION[name], value, f"an integer >= {lo}")
    if not 1 <= args.threads <= _max_threads():
        raise InvalidArgument("--threads", args.threads, f"an integer between 1 and {_max_threads()} "
                              f"(4 per CPU core of this machine, at most 256)")


def _fmt(x: float | None) -> str:
    # a ratio to a minimum that is 0 in float prints as n/a: no inf/nan in a report
    return significant(x, 4, nonfinite="n/a")


def _num(x: float | None) -> float | None:
    return None if x is None else rounded(x, 7)


def _table(m: Any, c: Any, rope: RopeComparison | None) -> str:
    s = m.settings
    heads = f"{s['num_attention_heads']} heads"
    if "num_key_value_heads" in s:
        heads += f" ({s['num_key_value_heads']} KV)"
    lines = [
        f"arch {m.arch} ({s['model_type']}): {s['num_hidden_layers']} layers, hidden "
        f"{s['hidden_size']}, {heads}, vocab {s['vocab_size']}; L = {m.length}, {m.metric} "
        f"({m.estimator}), {m.samples} sample(s), seed {m.seed}, RoPE "
        f"{'on' if m.rope else 'off'}{'' if s['rotary'] else ' (not rotary)'}, {m.dtype}, "
        f"{'' if m.device == 'cpu' else 'on ' + m.device + ', '}"
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
        f"{'Cesàro, measured lambda':<26} {_fmt(c.spearman_measured_lambda):<9} "
        f"{_fmt(c.w1_measured_lambda):<9} "
        f"{_fmt(c.theory_measured_lambda['first_over_min']):<10} "
        f"{_fmt(c.theory_measured_lambda['last_over_min']):<9} {c.theory_measured_lambda['argmin']}",
        f"{'Cesàro, alpha = ' + _fmt(c.best_alpha):<26} {_fmt(c.spearman_best_alpha):<9} "
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
    lines += ["", "position  measured    Cesàro(lambda)  Cesàro(alpha)"]
    for j in picks:
        lines.append(f"{j:>8}  {_fmt(float(m.profile[j - 1])):<10}  "
                     f"{_fmt(float(c.profile_measured_lambda[j - 1])):<14}  "
                     f"{_fmt(float(c.profile_best_alpha[j - 1]))}")
    return "\n".join(lines)


def _plot(path: str, m: Any, c: Any, rope: RopeComparison | None) -> None:
    curves = [(f"measured ({m.metric})", m.profile, "-"),
              ("Cesàro rollout, measured λ_t", c.profile_measured_lambda, "--"),
              (f"Cesàro rollout, α = {c.best_alpha:.3g}", c.profile_best_alpha, ":")]
    if rope is not None:
        curves.append(("measured, RoPE off", rope.off.profile, "-."))
    plot_curves(curves, path, title=f"{m.arch} at initialization, L = {m.length}", parameter="--plot")


def run(args: argparse.Namespace) -> int:
    # the theory comparison loads scipy: imported when a measurement runs, not at start-up
    from posbias.proofs_checks import measured as mc

    if args.model is not None:
        return _run_checkpoint(args)
    _reject_checkpoint_options(args)
    if args.metric is None:
        args.metric = "jacobian"
    _validate(args)
    require_models_extra()
    device = _resolve_device(args)
    check_target(args.output, args.format)
    if args.plot:
        check_plot_path(args.plot, "--plot")
    # --rope both: on and off, and a second RoPE-on run with other probes (probe noise)
    runs = 1 if args.rope != "both" else (
        3 if args.metric != "top1-grad" and not args.exact else 2)
    plan = plan_influence(args.arch, length=args.length, layers=args.layers, hidden=args.hidden,
                          heads=args.heads, kv_heads=args.kv_heads, vocab=args.vocab,
                          dtype=args.dtype, device=device, metric=args.metric,
                          probes=args.probes, exact=args.exact, max_memory=args.max_memory,
                          samples=args.samples, threads=args.threads, runs=runs,
                          kernel_inputs=args.kernel_inputs or 0)
    if args.verbose:
        print(plan.describe(), file=sys.stderr, flush=True)
    plan.check()  # per device, before any model is built
    progress = _quiet if args.quiet else _progress
    kwargs = dict(length=args.length, layers=args.layers, hidden=args.hidden, heads=args.heads,
                  kv_heads=args.kv_heads, vocab=args.vocab, seed=args.seed, probes=args.probes,
                  exact=args.exact, metric=args.metric, samples=args.samples, dtype=args.dtype,
                  probe_dist=args.probe_dist, threads=args.threads, progress=progress,
                  max_memory=args.max_memory)
    if args.kernel_inputs:
        kwargs["kernel_inputs"] = args.kernel_inputs
    if args.attention != "eager":
        kwargs["attention"] = args.attention
    try:
        kwargs["device"] = device
        progress(f"measuring {args.arch} at initialization (L = {args.length})")
        rope = None
        if args.rope == "both":
            rope = mc.rope_comparison(args.arch, noise_floor=True, **kwargs)
            m = rope.on
        else:
            m = ms.measure_influence(args.arch, rope=args.rope == "on", **kwargs)
        c = mc.compare_with_theory(m)
    except InvalidArgument as exc:
        if exc.parameter == "rope" and args.rope == "both":  # the flag's value, not one run's
            exc = InvalidArgument(exc.parameter, "both", exc.allowed)
        raise flag_error(exc) from None
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

    write_output(text, args.output, fmt=args.format)
    return 0


# ----------------------------------------------------------------------------------------------
# a pretrained checkpoint: --model PATH|NAME (herasimchyk2026 protocol, chowdhury2026 C10)

_CHECKPOINT_ONLY = ("text", "export_config", "save_influence", "name", "allow_download",
                    "random_init", "resume", "device_map", "offload_folder",
                    "offload_activations", "batch_size", "no_checkpointing", "route")


def _batch_size(text: str) -> int | str:
    if str(text).strip().lower() == "auto":
        return "auto"
    if not re.fullmatch(r"[0-9]{1,6}", str(text).strip()) or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is invalid: expected an integer >= 1 or auto")
    return int(text)


def _add_checkpoint_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group(
        "a checkpoint (--model)",
        "Load a causal LM and its tokenizer with transformers from a local directory or the "
        "local Hugging Face cache (nothing is downloaded without --allow-download), measure it "
        "on real text (--text) or random ids, and export its rollout config and influence.")
    g.add_argument("--model", metavar="PATH|NAME",
                   help="checkpoint directory (save_pretrained) or model name in the local cache")
    g.add_argument("--text", metavar="FILE|DIR",
                   help="plain text, .jsonl with a 'text' field, or a directory of them; windows "
                        "of exactly --length tokens (default: random token ids)")
    g.add_argument("--allow-download", action="store_true",
                   help="fetch --model from the Hugging Face hub when it is not cached")
    g.add_argument("--random-init", action="store_true",
                   help="the checkpoint's architecture with freshly initialized weights (--seed): "
                        "its Step-0 model, saved with stage step-0")
    g.add_argument("--export-config", metavar="FILE.yaml",
                   help="write the measured rollout config (herasimchyk2026 YAML schema, logit "
                        "units; readable by posbias rollout)")
    g.add_argument("--save-influence", metavar="DIR",
                   help="write DIR/measured-influence/NAME.csv, NAME.yaml and "
                        "NAME.measurement.json (what posbias check --data-dir DIR reads)")
    g.add_argument("--name", metavar="NAME",
                   help="file stem for --save-influence (default: the model's directory name, "
                        "with -step0 appended under --random-init)")
    g.add_argument("--route", choices=("auto", "family", "generic"), default=None,
                   help="how queries and keys are read: family (posbias' own code for BLOOM, "
                        "Falcon, MPT, GPT-2, LLaMA, Qwen2, Mistral), generic (transformers' "
                        "attention interface; any model without ALiBi) or auto (default: the "
                        "family route where there is one)")
    g.add_argument("--batch-size", metavar="N|auto", type=_batch_size, default=None,
                   help="text windows per forward and backward pass (top1-grad; default 1): "
                        "auto starts from what the memory plan says fits and halves the batch on "
                        "out-of-memory, keeping finished windows")
    g.add_argument("--no-checkpointing", action="store_true",
                   help="keep every block's activations for the backward pass instead of "
                        "recomputing each block (faster, about twice the memory)")
    g.add_argument("--device-map", metavar="MAP", default=None,
                   help="shard and offload a model larger than one device through accelerate: "
                        "auto, balanced, balanced_low_0 or sequential (the map is computed "
                        "before any weight is read and printed with -v; with --max-memory "
                        "DEVICE=SIZE,... per device, e.g. 0=20G,1=20G,cpu=64G)")
    g.add_argument("--offload-folder", metavar="DIR", default=None,
                   help="with --device-map: keep the blocks that fit on no device on disk here "
                        "(without it, a map that needs disk is refused)")
    g.add_argument("--offload-activations", action="store_true",
                   help="keep the block inputs the backward pass saves in host memory "
                        "(torch.autograd.graph.save_on_cpu; for accelerators)")
    g.add_argument("--resume", action="store_true",
                   help="continue an interrupted measurement from its journal: with -o FILE, "
                        "every finished window is appended to FILE.windows.jsonl as it "
                        "finishes, and --resume goes on from the next one (the same profile, "
                        "bit for bit, as an uninterrupted run)")


def _reject_checkpoint_options(args: argparse.Namespace) -> None:
    if args.arch is None:
        raise InvalidArgument("--arch", None, "a preset or model type (or --model PATH|NAME)")
    for key in _CHECKPOINT_ONLY:
        value = getattr(args, key, None)
        if value not in (None, False):
            raise InvalidArgument(flag_of(key), value, "no value without --model")
    if args.dtype == "bfloat16":
        raise InvalidArgument("--dtype", "bfloat16", "float32 or float64 with --arch")


def _checkpoint_preflight(args: argparse.Namespace) -> None:
    """Every check that needs no model, before any work (nothing half-done on bad input)."""
    _check_device_spelling(args)
    if getattr(args, "kernel_inputs", 0):
        raise InvalidArgument("--kernel-inputs", args.kernel_inputs, "0 with --model (the "
                              "averaged Step-0 kernel is measured with --arch)")
    if getattr(args, "attention", "eager") != "eager":
        raise InvalidArgument("--attention", args.attention, "eager with --model")

    if args.arch is not None:
        raise InvalidArgument("--arch", args.arch, "no value with --model (one of the two)")
    if args.dtype not in ("float32", "bfloat16"):
        raise InvalidArgument("--dtype", args.dtype, "float32 or bfloat16 with --model")
    for key in ("exact", "layers", "hidden", "heads", "kv_heads", "vocab"):
        if getattr(args, key) not in (None, False):
            raise InvalidArgument(flag_of(key), getattr(args, key),
                                  "no value with --model (the checkpoint fixes it)")
    if args.rope != "on":
        raise InvalidArgument("--rope", args.rope, "on with --model")
    for key, lo in (("length", 2), ("samples", 1), ("seed", 0), ("threads", 1), ("probes", 1)):
        value = getattr(args, key)
        if value < lo:
            raise InvalidArgument(flag_of(key), value, f"an integer >= {lo}")
    if args.text is not None and not os.path.exists(args.text):
        raise InvalidArgument("--text", args.text, "an existing text file, .jsonl file or directory")
    if args.name is not None and not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}", args.name):
        raise InvalidArgument("--name", args.name, "a file stem of letters, digits, '.', '_', '-'")
    if args.device_map is not None:
        if args.device_map not in DEVICE_MAPS:
            raise InvalidArgument("--device-map", args.device_map, "one of "
                                  + ", ".join(DEVICE_MAPS))
        if args.device not in ("cpu", "auto"):
            raise InvalidArgument("--device", args.device, "cpu or auto with --device-map (the "
                                  "map places every block)")
        if args.offload_folder is not None and os.path.exists(args.offload_folder) \
                and not os.path.isdir(args.offload_folder):
            raise InvalidArgument("--offload-folder", args.offload_folder, "a directory (it is "
                                  "created when missing)")
    elif args.offload_folder is not None:
        raise InvalidArgument("--offload-folder", args.offload_folder, "no value without "
                              "--device-map")
    if args.resume and args.output in (None, "-"):
        raise InvalidArgument("--resume", "on", "-o FILE with it (the journal of finished "
                              "windows is FILE.windows.jsonl, beside the output)")
    if args.output not in (None, "-"):
        check_writable(args.output + JOURNAL_SUFFIX, "-o")
        if not args.resume:
            try:
                check_fresh(args.output + JOURNAL_SUFFIX)
            except InvalidArgument as exc:
                raise InvalidArgument("--resume", exc.value, exc.allowed) from None
    if args.plot:
        check_writable(args.plot, "--plot")
    if args.export_config:
        check_writable(args.export_config, "--export-config")
    if args.save_influence is not None and os.path.exists(args.save_influence) \
            and not os.path.isdir(args.save_influence):
        raise InvalidArgument("--save-influence", args.save_influence, "a directory (it is "
                              "created when missing)")


def _measure_checkpoint(args: argparse.Namespace, device: str = "cpu") -> Any:  # a PretrainedMeasurement

    say = _quiet if args.quiet else _progress  # -q: no progress on standard error
    say(f"loading {args.model} ({args.dtype}"
        f"{', random init' if args.random_init else ''}, {device})")
    sharded = {}
    if args.device_map is not None:
        sharded = {"device_map": args.device_map, "offload_folder": args.offload_folder,
                   "max_memory": args.max_memory if isinstance(args.max_memory, dict) else None}
    loaded = load_checkpoint(args.model, dtype=args.dtype, allow_download=args.allow_download,
                             random_init=args.random_init, seed=args.seed,
                             device=device if args.device_map is None else "cpu", **sharded)
    if loaded.device_map is not None:
        say(f"device map ({args.device_map}): "
            f"{describe_device_map(loaded.device_map, loaded.device_bytes)}")
    windows, inputs = None, None
    if args.text is not None:
        tw = text_windows(loaded.tokenizer, args.text, length=args.length,
                          samples=args.samples, seed=args.seed, progress=say)
        windows, inputs = tw.ids, tw.describe()
        say(inputs)
    journal = None
    if args.output not in (None, "-"):
        journal = args.output + JOURNAL_SUFFIX
    return measure_pretrained(loaded, windows, length=args.length, samples=args.samples,
                              seed=args.seed, metric=args.metric, probes=args.probes,
                              threads=args.threads, inputs=inputs, progress=say,
                              journal=journal, resume=args.resume,
                              offload_activations=args.offload_activations,
                              batch_size=1 if args.batch_size is None else args.batch_size,
                              checkpointing=not args.no_checkpointing,
                              route=args.route or "auto",
                              max_memory=args.max_memory if isinstance(args.max_memory, int)
                              else None)


def _checkpoint_plan(args: argparse.Namespace, device: str) -> MeasurementPlan | None:
    """The library's plan of measuring --model (:func:`posbias.measurements.planning.plan_checkpoint`)
    from its configuration alone, before any weight is read; a resumed run is planned for the
    windows its journal has left."""
    windows = args.samples
    if args.resume and args.output not in (None, "-"):  # planned for the windows left
        windows = max(1, windows - windows_done(args.output + JOURNAL_SUFFIX))
    return plan_checkpoint(
        args.model, length=args.length, windows=windows, dtype=args.dtype, device=device,
        metric=args.metric, probes=args.probes, threads=args.threads,
        batch_size="auto" if args.batch_size == "auto" else (args.batch_size or 1),
        checkpointing=not args.no_checkpointing, offload_activations=args.offload_activations,
        device_map=args.device_map, max_memory=args.max_memory,
        offload_folder=args.offload_folder)


def _run_checkpoint(args: argparse.Namespace) -> int:
    _checkpoint_preflight(args)
    require_models_extra()
    device = _resolve_device(args)
    check_target(args.output, args.format)
    if args.plot:
        check_plot_path(args.plot, "--plot")
    if args.metric is None:
        args.metric = "top1-grad"
    plan = _checkpoint_plan(args, device)
    if plan is not None:
        if args.verbose:
            print(plan.describe(), file=sys.stderr, flush=True)
        plan.check()
    try:
        m = _measure_checkpoint(args, device)
    except InvalidArgument as exc:
        raise flag_error(exc) from None
    config_text = export.rollout_config_yaml(m)
    comparison = compare_with_rollout(m.profile, config_text)
    files = {}
    if args.export_config:
        files[args.export_config] = (config_text, "--export-config")
    if args.save_influence is not None:
        stage = "step-0" if args.random_init else "pretrained"
        name = args.name or (m.name + ("-step0" if args.random_init else ""))

        os.makedirs(os.path.join(args.save_influence, "measured-influence"), exist_ok=True)
        for path, text in export.influence_files(m, args.save_influence, name=name,
                                                 stage=stage).items():
            files[path] = (text, "--save-influence")

    for path, (text, parameter) in files.items():
        write_output(text, path, parameter)
    if args.plot:
        _plot_checkpoint(args.plot, m, comparison)
    if args.format == "json":
        text = json.dumps({"measurement": m.as_dict(), "theory": comparison.as_dict(),
                           "written": sorted(files)}, indent=2, allow_nan=False)
    else:
        text = _checkpoint_table(m, comparison, sorted(files))
    write_output(text, args.output, fmt=args.format)
    return 0


def _checkpoint_table(m: Any, c: Any, written: list[str]) -> str:
    lines = [
        f"model {m.model} ({m.model_type}): {m.num_layers} layers, {m.num_heads} heads, d_head "
        f"{m.head_dim}, {m.dtype}, attention {m.attn_implementation}, positions: {m.positional}"
        + ("" if m.details.get("device", "cpu") == "cpu" else f", on {m.details['device']}"),
        f"inputs: {m.inputs}",
        f"L = {m.length}, {m.metric}, {m.seconds:.1f} s",
        "",
        "layer  lambda    score scale  mean diag-lower q.k (raw)  ALiBi slopes (first, last)",
    ]
    for t in range(m.num_layers):
        sl = "-" if m.alibi_slopes is None else (
            f"{_fmt(float(m.alibi_slopes[t][0]))}, {_fmt(float(m.alibi_slopes[t][-1]))}"
            f" (x {_fmt(float(m.alibi_scale[t]))})")
        lines.append(f"{t + 1:>5}  {_fmt(float(m.lambdas[t])):<8}  "
                     f"{_fmt(float(m.score_scale[t])):<11}  "
                     f"{_fmt(float(m.diagonal_scores[t].mean())):<25}  {sl}")
    lines += ["", "profile                      spearman  W1        p(1)/min  p(L)/min  argmin"]
    for label, row in c.rows():
        lines.append(f"{label:<28} {row['spearman']:<9} {row['w1']:<9} {row['first_over_min']:<9} "
                     f"{row['last_over_min']:<9} {row['argmin']}")
    if written:
        lines += [""] + [f"wrote {path}" for path in written]
    return "\n".join(lines)


def _plot_checkpoint(path: str, m: Any, c: Any) -> None:
    plot_curves([(f"measured ({m.metric})", m.profile, "-"),
                 ("rollout, measured λ_t, slopes, content", c.rollout, "--"),
                 ("rollout, attention only (λ = 1)", c.attention_only, ":")],
                path, title=f"{m.name}, L = {m.length}, {m.samples} window(s)",
                xlabel="input position j", parameter="--plot")
