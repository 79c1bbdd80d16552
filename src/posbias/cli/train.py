"""``posbias train``: train wu2025's in-context classification network and log its position
preference over training (``--task wu2025-icl``), or a small transformers causal LM on a
synthetic next-token task (``--task lm-synthetic``: in-context unigram estimation,
:mod:`posbias.measurements.lm_training`) and log its loss against the Bayes optimum, or on
natural text (``--task lm-text``: the Python documentation as prose, a BPE tokenizer trained
on it, :mod:`posbias.measurements.lm_text`) and log its validation loss against unigram and
bigram baselines.

Writes into ``--output`` (a directory, created when missing): ``results.json`` (configuration,
every evaluation of every seed, provenance: seeds, versions, command, machine, threads,
iterations, wall time), ``history.csv`` (one row per seed and evaluation), ``differences.png``
(``Acc(X_Y) - Acc(Y_X)`` and the in-context accuracy against iterations; needs matplotlib),
``influence.png`` with ``--record-influence`` (the final position's Jacobian influence profile
against training step), and ``checkpoints/`` (one per seed, rewritten at every evaluation;
``--resume`` continues from them, also to more iterations).  For ``lm-synthetic`` the
accuracy differences and their plot do not apply (``--mask``, ``--pe``, ``--residual`` and
``--train-bias`` are refused); ``--arch``, ``--layers``, ``--hidden``, ``--heads`` and
``--length`` shape the model and the context (refused for ``wu2025-icl``).  ``lm-text`` also
writes ``tokenizer.json`` (kept by ``--resume``), takes ``--vocab``, ``--corpus``,
``--max-documents`` and ``--boundary-windows`` (with it, ``boundaries.png``: the influence
around the document separators at Step 0 and Step N).  A progress bar with ETA goes to
stderr when it is a terminal; ``-v`` prints one line per evaluation.  Needs the ``models``
extra (torch).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterable
from typing import Any

from posbias.cli._common import flag_error, flag_of
from posbias.errors import InvalidArgument, NeedsExtra
from posbias.files import read_json_bounded, write_output
from posbias.measurements import lm_text as lx
from posbias.measurements import lm_training as lt
from posbias.measurements import loop
from posbias.measurements import training as tr
from posbias.measurements.devices import check_device, resolve_device
from posbias.measurements.hooks import require_models_extra, require_torch
from posbias.numbers import duration
from posbias.proofs_checks.gates import ICL_GATE, LM_GATE
from posbias.render import training_plots as tp
from posbias.resources import Plan

__all__ = ["add_parser", "run"]

TASKS = ("wu2025-icl", "lm-synthetic", "lm-text")
_LM = ("lm-synthetic", "lm-text")
#: largest results.json that --merge reads
_MAX_RESULTS_BYTES = 256 * 2**20
#: options of some tasks only: dest -> the tasks they belong to (flags from the one table)
_ONLY = {"mask": ("wu2025-icl",), "pe": ("wu2025-icl",), "residual": ("wu2025-icl",),
         "train_bias": ("wu2025-icl",), "arch": _LM, "layers": _LM, "hidden": _LM,
         "heads": _LM, "length": _LM, "vocab": ("lm-text",), "corpus": ("lm-text",),
         "max_documents": ("lm-text",), "boundary_samples": ("lm-text",)}
#: defaults that differ between the tasks: wu2025-icl, lm-synthetic, lm-text
_DEFAULTS = {"iterations": (20000, 2000, 2000), "lr": (1e-3, 3e-3, 1e-3),
             "weight_decay": (1e-6, 0.01, 0.01), "batch": (128, 32, 16),
             "eval_every": (500, 100, 100), "test_size": (10000, 2000, 200)}


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "train",
        help="train wu2025's in-context classification network or a small causal LM, and log "
             "its position preference / influence profile",
        description=(
            "Train the 2-layer self-attention network of wu2025 on its in-context "
            "classification task (K = 2048 classes, 32 labels, d = 64, 8 items in bursts of 4, "
            "gamma = 0.75) and evaluate, every --eval-every iterations, the in-context accuracy "
            "on novel classes and the accuracy differences Acc(X_Y) - Acc(Y_X) of the test sets "
            "IC_X_Y (X, Y in first, middle, last). --task lm-synthetic trains a small "
            "transformers causal LM (GPT-2 or LLaMA architecture from a configuration, no "
            "download) on in-context unigram estimation (each sequence from its own "
            "Dirichlet(1/2) distribution over 16 tokens; next-token loss at every "
            "position) and logs its loss against the Bayes optimum. --task lm-text trains one "
            "on natural text (the Python documentation sources of the Debian package "
            "python3.11-doc as plain prose, a byte-level BPE tokenizer trained on it) and "
            "logs its validation loss against unigram and bigram baselines. Needs the "
            "'models' extra (torch; transformers for the LM tasks)."),
    )
    _add_task_options(p)
    _add_training_options(p)
    p.set_defaults(func=run)
    return p


def _add_task_options(p: argparse.ArgumentParser) -> None:
    """--task and the options of one task or another: the network, the model, the corpus."""
    p.add_argument("--task", choices=TASKS, default="wu2025-icl")
    p.add_argument("--mask", default=None, metavar="MASK",
                   help="wu2025-icl: causal, full, window:W, prefix:K or decay:M (M > 0; "
                        "wu2025: 0.2231 = -ln 0.8) (default causal)")
    p.add_argument("--pe", default=None, metavar="PE",
                   help="wu2025-icl: positional encoding none, sin or rope (default none)")
    p.add_argument("--residual", default=None, metavar="on|off",
                   help="wu2025-icl: residual connections around attention (default on)")
    p.add_argument("--arch", default=None, metavar="ARCH",
                   help="lm-synthetic, lm-text: gpt2 or llama (default llama)")
    p.add_argument("--layers", type=int, default=None, metavar="H",
                   help="lm-synthetic, lm-text: decoder layers (default 4, lm-text 8)")
    p.add_argument("--hidden", type=int, default=None, metavar="D",
                   help="lm-synthetic, lm-text: hidden size (default 64, lm-text 128)")
    p.add_argument("--heads", type=int, default=None, metavar="N",
                   help="lm-synthetic, lm-text: attention heads (default 4)")
    p.add_argument("--length", type=int, default=None, metavar="L",
                   help="lm-synthetic, lm-text: context length in tokens (default 64, "
                        "lm-text 256)")
    p.add_argument("--vocab", type=int, default=None, metavar="V",
                   help="lm-text: BPE vocabulary size, with <|endoftext|> (default 4096)")
    p.add_argument("--corpus", default=None, metavar="DIR",
                   help="lm-text: the reStructuredText sources of the Python documentation "
                        "(default /usr/share/doc/python3.11/html/_sources, Debian package "
                        "python3.11-doc)")
    p.add_argument("--max-documents", type=int, default=None, metavar="N",
                   help="lm-text: only the first N documents of the corpus (default all)")
    p.add_argument("--boundary-windows", dest="boundary_samples", type=int, default=None,
                   metavar="N",
                   help="lm-text: also record, at every evaluation, the final position's "
                        "influence on N held-out windows with a document separator in their "
                        "middle half (the boundary-peak test; default 0)")


def _add_training_options(p: argparse.ArgumentParser) -> None:
    """The optimizer, seeds, evaluation, processes, device and output of a training."""
    p.add_argument("--iterations", type=int, default=None, metavar="N",
                   help="training iterations (batches) (default 20000, lm-synthetic and "
                        "lm-text 2000; wu2025: 100000)")
    p.add_argument("--lr", type=float, default=None,
                   help="AdamW learning rate (default 1e-3, lm-synthetic 3e-3)")
    p.add_argument("--weight-decay", type=float, default=None,
                   help="AdamW weight decay (default 1e-6, lm-synthetic 0.01)")
    p.add_argument("--batch", type=int, default=None,
                   help="batch size (default 128, lm-synthetic 32, lm-text 16)")
    p.add_argument("--seeds", type=int, nargs="+", default=[0], metavar="S",
                   help="seeds, one run each (default 0)")
    p.add_argument("--train-bias", default=None, metavar="POS",
                   help="wu2025-icl: answer position of the training data: none (uniform), "
                        "first, middle, last (default none)")
    p.add_argument("--eval-every", type=int, default=None, metavar="N",
                   help="evaluate (and checkpoint) every N iterations (default 500, "
                        "lm-synthetic 100)")
    p.add_argument("--test-size", type=int, default=None, metavar="N",
                   help="sequences per test set (default 10000, lm-synthetic 2000; lm-text: "
                        "validation windows, 200)")
    p.add_argument("--record-influence", type=int, nargs="?", const=32, default=0, metavar="N",
                   help="record the final position's Jacobian influence profile at every "
                        "evaluation (the exact route of posbias measure), averaged over N test "
                        "sequences (default 32)")
    p.add_argument("--jobs", type=int, default=1, metavar="J",
                   help="seeds trained at once in separate single-thread processes (default 1)")
    p.add_argument("--threads", type=int, default=1, metavar="N",
                   help="torch threads when the seeds train in this process, one after another "
                        "(default 1: the same digits on every machine; more is faster and "
                        "reproducible with the same count only)")
    p.add_argument("--device", default="cpu", metavar="DEVICE",
                   help="where the network trains: cpu (default), cuda, cuda:N, mps, or auto "
                        "(CUDA if present, else MPS, else cpu); data and initial weights are "
                        "drawn on the CPU either way, checkpoints hold CPU tensors, and the "
                        "device is recorded in results.json; with --jobs 1 only")
    p.add_argument("-o", "--output", default=None, metavar="DIR",
                   help="output directory (default posbias-train-<configuration>)")
    p.add_argument("--resume", action="store_true",
                   help="continue from the checkpoints in the output directory")
    p.add_argument("--merge", nargs="+", default=None, metavar="RESULTS",
                   help="train nothing: merge the results.json files (or output directories) "
                        "of trainings of one configuration with different seeds into one "
                        "document in --output, with its history.csv and plots (the seeds of a "
                        "configuration trained on several machines); every field but the runs "
                        "and their provenance must agree")
    p.add_argument("--yes", action="store_true",
                   help="start a training estimated at more than 10 minutes without asking on "
                        "a terminal (beyond a day: everywhere)")
    p.add_argument("-f", "--format", choices=("table", "json"), default="table",
                   help="what goes to stdout (default table)")
    p.add_argument("-v", "--verbose", action="store_true", help="one line per evaluation on stderr")


def _config(args: argparse.Namespace) -> lt.LMTrainConfig | lx.LMTextConfig | tr.TrainConfig:
    lm = args.task == "lm-synthetic"
    for dest, tasks in _ONLY.items():
        value = getattr(args, dest)
        if value is not None and args.task not in tasks:
            raise InvalidArgument(flag_of(dest), value, f"no value with --task {args.task} (it belongs "
                                  f"to --task {' or '.join(tasks)})")
    column = TASKS.index(args.task)
    common: dict[str, Any] = {k: (getattr(args, k) if getattr(args, k) is not None
                                  else v[column]) for k, v in _DEFAULTS.items()}
    if args.task == "lm-text":
        given = {k: getattr(args, k) for k in ("arch", "layers", "hidden", "heads", "length",
                                               "vocab", "max_documents",
                                               "boundary_samples")
                 if getattr(args, k) is not None}
        if args.corpus is not None:
            given["source"] = args.corpus
        return lx.LMTextConfig(**given, **common, influence_samples=args.record_influence)
    if lm:
        shape = {k: getattr(args, k) for k in ("arch", "layers", "hidden", "heads", "length")
                 if getattr(args, k) is not None}
        return lt.LMTrainConfig(**{"arch": "llama", **shape}, **common,
                             influence_samples=args.record_influence)
    residual = "on" if args.residual is None else args.residual
    if residual not in ("on", "off"):
        raise InvalidArgument("--residual", residual, "on or off")
    return tr.TrainConfig(mask=args.mask or "causal", pe=args.pe or "none",
                       residual=residual == "on", train_bias=args.train_bias or "none",
                       influence_samples=args.record_influence, **common)


def _final_table(doc: dict) -> str:
    cfg = doc["config"]
    lines = [f"{doc['name']}: mask {cfg['mask']}, PE {cfg['pe']}, residual "
             f"{'on' if cfg['residual'] else 'off'}, lr {cfg['lr']:g}, train bias "
             f"{cfg['train_bias']}, test sets of {cfg['test_size']}",
             "",
             "seed  iterations  wall s  in-context acc  first-middle  first-last  middle-last"]
    for r in doc["runs"]:
        e = r["history"][-1]
        d, se = e["difference"], e["difference_se"]
        cells = [f"{d[k]:+.4f}±{se[k]:.4f}" for k in ("first-middle", "first-last", "middle-last")]
        lines.append(f"{r['seed']:>4}  {r['iterations']:>10}  {r['wall_seconds']:>6.0f}  "
                     f"{e['ic_accuracy']:>14.4f}  {cells[0]:>12}  {cells[1]:>10}  {cells[2]:>11}")
    lines += ["", "Acc(X_Y) - Acc(Y_X) > 0: a preference for X (± one standard error of the "
              "paired difference). In-context accuracy of label copying at random: 0.516."]
    lines.append(_gate_line("in-context accuracy", ICL_GATE,
                            [(r["seed"], r["history"][-1]["ic_accuracy"]) for r in doc["runs"]],
                            "its differences are a preference in which context label the network "
                            "copies, not evidence for the trained claims of wu2025"))
    return "\n".join(lines)


def _gate_line(what: str, gate: float, values: Iterable[tuple[int, float]], below: str) -> str:
    """Whether every seed reached the gate of the trained claims, so that a short run's
    difference is never read as a finding."""
    low = [f"seed {s}: {v:.4f}" for s, v in values if v < gate]
    if not low:
        return f"Gate of the trained claims ({what} >= {gate}): reached in every seed."
    return (f"Gate of the trained claims ({what} >= {gate}): NOT reached ({', '.join(low)}); "
            f"{below}.")


def _lm_table(doc: dict) -> str:
    cfg = doc["config"]
    head = (f"{doc['name']}: {cfg['arch']}, {cfg['layers']} layers, hidden {cfg['hidden']}, "
            f"{cfg['heads']} heads, L = {cfg['length']}, {cfg['tokens']} tokens, lr "
            f"{cfg['lr']:g}, batch {cfg['batch']}, test sets of {cfg['test_size']}")
    lines = [head,
             "",
             "seed  iterations  wall s  final loss  Bayes loss  learned (final)  learned (all)"]
    for r in doc["runs"]:
        e = r["history"][-1]
        lines.append(f"{r['seed']:>4}  {r['iterations']:>10}  {r['wall_seconds']:>6.0f}  "
                     f"{e['final_loss']:>10.4f}  {e['final_bayes_loss']:>10.4f}  "
                     f"{e['final_learned']:>15.4f}  {e['learned']:>13.4f}")
    lines += ["", ("learned = (ln V - loss) / (ln V - Bayes loss): 0 ignores the context, 1 is "
                   "the Bayes optimum.")]
    lines.append(_gate_line("learned fraction", LM_GATE,
                            [(r["seed"], r["history"][-1]["learned"]) for r in doc["runs"]],
                            "its influence profiles are not evidence for the trained-LM proxies"))
    return "\n".join(lines)


def _text_table(doc: dict) -> str:
    cfg, base, corpus = doc["config"], doc["baselines"], doc["corpus"]
    lines = [f"{doc['name']}: {cfg['arch']}, {cfg['layers']} layers, hidden {cfg['hidden']}, "
             f"{cfg['heads']} heads, L = {cfg['length']}, vocabulary {doc['tokenizer']['vocab']}, "
             f"lr {cfg['lr']:g}, batch {cfg['batch']}, {doc['tokenizer']['validation_windows']} "
             "validation windows",
             f"corpus: {corpus['documents']} documents, {corpus['characters']} characters "
             f"({corpus['package']} {corpus['package_version']}, sha256 "
             f"{corpus['sha256'][:12]}), {doc['tokenizer']['train_tokens']} training tokens",
             "",
             "seed  iterations  wall s  tokens/s  val loss  final loss  below bigram"]
    for r in doc["runs"]:
        e = r["history"][-1]
        tps = "" if r.get("tokens_per_second") is None else str(r["tokens_per_second"])
        lines.append(f"{r['seed']:>4}  {r['iterations']:>10}  {r['wall_seconds']:>6.0f}  "
                     f"{tps:>8}  {e['val_loss']:>8.4f}  {e['final_loss']:>10.4f}  "
                     f"{e['below_bigram']:>+12.4f}")
    lines += ["", (f"Baselines on the same targets: unigram {base['unigram_loss']:.4f}, bigram "
                   f"{base['bigram_loss']:.4f} nats (prior {base['bigram_prior']:g}); final "
                   f"position: unigram {base['unigram_final_loss']:.4f}, bigram "
                   f"{base['bigram_final_loss']:.4f}.")]
    lines.append(_gate_line("nats below the bigram baseline", lx.GATE_NATS,
                            [(r["seed"], r["history"][-1]["below_bigram"]) for r in doc["runs"]],
                            "the model has learned little beyond which token follows which; its "
                            "influence profiles are not evidence about an LM trained on text"))
    return "\n".join(lines)


def _output_dir(args: argparse.Namespace, config: Any) -> str:
    """The output directory --output names (default posbias-train-<configuration>), refused
    in one line when it is a file or cannot be created."""
    out = args.output or f"posbias-train-{config.name}"
    if os.path.exists(out) and not os.path.isdir(out):
        raise InvalidArgument("--output", out, "a directory")
    parent = os.path.dirname(os.path.abspath(out))
    while parent and not os.path.exists(parent):  # missing parents are created, later
        parent = os.path.dirname(parent)
    if not os.path.isdir(parent) or not os.access(parent, os.W_OK):
        raise InvalidArgument("--output", out, "a directory that can be created")
    return out


def _finished_seeds(out: str) -> tuple[set[int], float]:
    """The seeds of the results.json in ``out`` and its modification time (none and 0 when
    there is no readable one)."""
    path = os.path.join(out, "results.json")
    try:
        doc = read_json_bounded(path, _MAX_RESULTS_BYTES, "--output")
        when = os.stat(path).st_mtime
    except (InvalidArgument, OSError):
        return set(), 0.0
    runs = doc.get("runs") if isinstance(doc, dict) else None
    seeds = {r.get("seed") for r in runs if isinstance(r, dict)} if isinstance(runs, list) else set()
    return {s for s in seeds if type(s) is int}, when


def _check_fresh(out: str, checkpoints: dict[int, str]) -> None:
    """Refuse a fresh training whose checkpoints would overwrite those of an unfinished one
    in ``out`` (a checkpoint newer than the results.json that lists its seed): the iterations
    it holds would be lost.  ``--resume`` continues it; another ``--output`` starts apart."""
    present = {s: c for s, c in checkpoints.items() if os.path.exists(c)}
    if not present:
        return
    seeds, written = _finished_seeds(out)
    for seed, path in present.items():
        if seed not in seeds or os.stat(path).st_mtime > written:
            raise InvalidArgument("--output", out, "no unfinished training in the way of a fresh "
                                  f"one (the checkpoint of seed {seed} is not in results.json: "
                                  "continue it with --resume, or choose another --output)")


def _log_text(e: dict) -> None:
    print(f"[train] it {e['iteration']}: val loss {e['val_loss']:.4f}, "
          f"{e['below_bigram']:+.4f} below the bigram baseline", file=sys.stderr, flush=True)


def _log_lm(e: dict) -> None:
    print(f"[train] it {e['iteration']}: final loss {e['final_loss']:.4f} (Bayes "
          f"{e['final_bayes_loss']:.4f}), learned {e['final_learned']:.4f}",
          file=sys.stderr, flush=True)


def _log_icl(e: dict) -> None:
    d = e["difference"]
    seed = f"seed {e['seed']} " if "seed" in e else ""
    print(f"[train] {seed}it {e['iteration']}: in-context {e['ic_accuracy']:.4f}, "
          f"first-middle {d['first-middle']:+.4f}, first-last {d['first-last']:+.4f}, "
          f"middle-last {d['middle-last']:+.4f}", file=sys.stderr, flush=True)


#: per task: the planner, where a seed's checkpoint is, the log line of -v (one each for the
#: configuration classes :func:`_config` builds)
_TASK_PARTS: dict[type, tuple[Callable, Callable, Callable[[dict], None]]] = {
    tr.TrainConfig: (tr.plan_training, tr.checkpoint_path, _log_icl),
    lt.LMTrainConfig: (lt.plan_lm_training, lt.lm_checkpoint_path, _log_lm),
    lx.LMTextConfig: (lx.plan_lm_text, lx.lm_text_checkpoint_path, _log_text),
}


#: a training estimated beyond this is announced, and on a terminal needs --yes
_CONFIRM_SECONDS = 600
#: a training estimated beyond this needs --yes everywhere (a script's typo of --iterations)
_ALWAYS_CONFIRM_SECONDS = 86400


def _announce(plan: Plan, args: argparse.Namespace) -> str | None:
    """Before a long training: a refusal without --yes (on a terminal beyond 10 minutes,
    everywhere beyond a day), else the line that announces its estimated wall time on stderr
    once every input is read (None for a short one, or with -q; -v prints the whole plan)."""
    seconds = plan.seconds
    if seconds <= _CONFIRM_SECONDS:
        return None
    if not args.yes and (seconds > _ALWAYS_CONFIRM_SECONDS or sys.stdin.isatty()):
        raise InvalidArgument("--iterations", f"{args.iterations or 'default'} (about "
                              f"{duration(seconds)} of training)",
                              "--yes to start it (or fewer --iterations or --seeds)")
    if args.quiet or args.verbose:
        return None
    return f"posbias train: about {duration(seconds)} of training (estimated on this machine)"


def _device(args: argparse.Namespace) -> str:
    """The device --device names, after the seeds, jobs and threads are checked against it
    (one line naming the flag); -v says which device was chosen and why."""
    seeds, jobs = loop.check_seeds(args.seeds, args.jobs)
    check_device("device", args.device)
    loop.check_jobs_device(jobs, args.device)
    loop.check_threads(args.threads, jobs, len(seeds))
    device, why = resolve_device(args.device)
    if args.verbose:
        print(f"[train] device {args.device}: {device} ({why})", file=sys.stderr, flush=True)
    return device


def _prepare_text(args: argparse.Namespace, config: lx.LMTextConfig, out: str) -> lx.TextData:
    """The lm-text corpus, tokenizer and baselines (the tokenizer of --resume's directory)."""
    tok_path = os.path.join(out, lx.TOKENIZER_FILE)
    data = lx.prepare_text(config, tok_path if args.resume else None)
    if args.verbose:
        print(f"[train] corpus {data.recipe['documents']} documents, tokenizer "
              f"{data.tokenizer_record['vocab']} tokens, "
              f"{data.tokenizer_record['train_tokens']} training tokens",
              file=sys.stderr, flush=True)
    return data


def _train(args: argparse.Namespace, config: Any, ckpt: str, device: str,
           data: lx.TextData | None) -> list[dict]:
    """The runs of every seed, trained by the task's library function (which plans them
    again and refuses what does not fit)."""
    log = _TASK_PARTS[type(config)][2] if args.verbose else None
    common: dict[str, Any] = dict(jobs=args.jobs, checkpoint_dir=ckpt, resume=args.resume,
                                  log=log, max_memory=args.max_memory, device=device,
                                  progress=False if args.quiet else None, threads=args.threads)
    if isinstance(config, tr.TrainConfig):
        return tr.train_seeds(config, args.seeds, **common)
    if isinstance(config, lx.LMTextConfig):
        return lx.lm_text_seeds(config, args.seeds, data=data, **common)
    return lt.lm_train_seeds(config, args.seeds, **common)


def _document(args: argparse.Namespace, config: Any, runs: list[dict], data: Any,
              device: str) -> dict:
    """The results document of the task, with the command line that produced it."""
    command = "posbias train " + " ".join(shlex.quote(a) for a in sys.argv[2:]) \
        if len(sys.argv) > 1 and sys.argv[1] == "train" else None
    if isinstance(config, tr.TrainConfig):
        return tr.results_document(config, runs, command=command, jobs=args.jobs, device=device)
    if isinstance(config, lx.LMTextConfig):
        return lx.lm_text_results_document(config, runs, data, command=command, jobs=args.jobs,
                                           device=device)
    return lt.lm_results_document(config, runs, command=command, jobs=args.jobs, device=device)


def run(args: argparse.Namespace) -> int:
    if args.merge is not None:
        return _merge(args)
    data: Any = None  # the lm-text corpus, tokenizer and baselines (a TextData)
    try:
        require_torch()
        if args.task in _LM:
            require_models_extra()
        config = _config(args)
        out = _output_dir(args, config)
        ckpt = os.path.join(out, "checkpoints")
        if args.resume and not os.path.isdir(ckpt):
            raise InvalidArgument("--resume", out, "an output directory with checkpoints/")
        device = _device(args)
        planner, where, _ = _TASK_PARTS[type(config)]
        if not args.resume:
            _check_fresh(out, {s: where(ckpt, config, s) for s in args.seeds})
        # a resumed run is planned for what is left (the checkpoints say how far each seed is)
        plan = loop.plan_seeds(planner, where, config, args.seeds, jobs=args.jobs,
                               checkpoint_dir=ckpt, resume=args.resume, device=device)
        if args.verbose:
            print(plan.describe(), file=sys.stderr, flush=True)
        plan.check(args.max_memory)  # before any directory is made or any work starts
        long_run = _announce(plan, args)
        if isinstance(config, lx.LMTextConfig):  # the corpus and tokenizer first
            data = _prepare_text(args, config, out)
        if long_run:
            print(long_run, file=sys.stderr, flush=True)
        os.makedirs(ckpt, exist_ok=True)
        if data is not None:
            lx.save_tokenizer(data, os.path.join(out, lx.TOKENIZER_FILE))
        runs = _train(args, config, ckpt, device, data)
    except InvalidArgument as exc:
        # the one table; a single training seed is one of --seeds
        raise flag_error(exc, {"seed": "--seeds"}) from None
    return _write(_document(args, config, runs, data, device), out, args)


def _write(doc: dict, out: str, args: argparse.Namespace) -> int:
    """results.json, history.csv and the plots of ``doc`` in ``out``; the table or the
    document on stdout.

    Every file is first written complete into a staging directory inside ``out`` and only then
    renamed over its target, so that a failure while rendering (a merged document missing a
    field, a plot that cannot be drawn) leaves every existing file of ``out`` as it was."""
    lm = doc.get("task") == "lm-synthetic"
    text = doc.get("task") == "lm-text"
    made = not os.path.exists(out)
    os.makedirs(out, exist_ok=True)
    stage = tempfile.mkdtemp(prefix=".posbias-stage-", dir=out)
    try:
        write_output(json.dumps(doc, indent=1),
                     os.path.join(stage, "results.json"))
        csv = lx.lm_text_history_csv if text else lt.lm_history_csv if lm else tr.history_csv
        write_output(csv(doc), os.path.join(stage, "history.csv"))
        try:
            if not (lm or text):
                tp.plot_differences(doc, os.path.join(stage, "differences.png"))
            if doc["config"].get("influence_samples"):
                tp.plot_influence_heatmap(doc, os.path.join(stage, "influence.png"))
            if text and doc["config"].get("boundary_samples"):
                tp.plot_boundary_windows(doc, os.path.join(stage, "boundaries.png"))
        except NeedsExtra as exc:
            print(f"posbias: {exc}; plots skipped", file=sys.stderr)
        if args.format == "json":
            shown = json.dumps(doc, indent=1)
        else:
            extra_file = ", tokenizer.json" if text and args.merge is None else ""
            rest = "" if args.merge is not None else ", checkpoints/"
            shown = ((_text_table(doc) if text else _lm_table(doc) if lm else _final_table(doc))
                     + f"\n\nwritten: {out}/results.json, history.csv{extra_file}, plots{rest}")
        # every file is complete: only now do they replace the ones of an earlier run
        for name in sorted(os.listdir(stage)):
            os.replace(os.path.join(stage, name), os.path.join(out, name))
    except BaseException:
        shutil.rmtree(stage, ignore_errors=True)
        if made and not os.listdir(out):  # a directory made for this output only
            os.rmdir(out)
        raise
    shutil.rmtree(stage, ignore_errors=True)
    print(shown)
    return 0


def _merge(args: argparse.Namespace) -> int:
    """``--merge``: read every results document, merge them (all checks before anything is
    written) and write the merged one like a training's."""
    if args.resume:
        raise InvalidArgument("--resume", "with --merge", "--merge alone (it trains nothing)")
    docs = []
    for path in args.merge:
        file = os.path.join(path, "results.json") if os.path.isdir(path) else path
        # regular files of bounded size only (a FIFO would block, a device never end)
        doc = read_json_bounded(file, _MAX_RESULTS_BYTES, "--merge")
        if not isinstance(doc, dict) or not isinstance(doc.get("runs"), list) \
                or not isinstance(doc.get("config"), dict):
            raise InvalidArgument("--merge", path, "a results.json of posbias train")
        docs.append(doc)
    try:
        merged = tr.merge_results(docs)
    except InvalidArgument as exc:
        raise InvalidArgument("--merge", exc.value, exc.allowed) from None
    out = args.output or f"posbias-train-{merged.get('name')}"
    if os.path.exists(out) and not os.path.isdir(out):
        raise InvalidArgument("--output", out, "a directory")
    if any(os.path.abspath(os.path.join(p, "results.json") if os.path.isdir(p) else p)
           == os.path.abspath(os.path.join(out, "results.json")) for p in args.merge):
        raise InvalidArgument("--output", out, "a directory other than the merged ones' "
                              "(their results.json stays as it is)")
    try:
        return _write(merged, out, args)
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
        # the merged runs come from the files: one that lacks a field or holds one of the
        # wrong type is refused, and no file of the output has been replaced
        field = f" (field {exc.args[0]!r})" if isinstance(exc, KeyError) and exc.args else ""
        raise InvalidArgument("--merge", " ".join(args.merge), "results.json files of posbias "
                              f"train with every field of their runs{field}") from None
