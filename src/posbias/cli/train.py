"""``posbias train``: train wu2025's in-context classification network and log its position
preference over training.

Writes into ``--output`` (a directory, created when missing): ``results.json`` (configuration,
every evaluation of every seed, provenance: seeds, versions, command, machine, threads,
iterations, wall time), ``history.csv`` (one row per seed and evaluation), ``differences.png``
(``Acc(X_Y) - Acc(Y_X)`` and the in-context accuracy against iterations; needs matplotlib),
``influence.png`` with ``--record-influence`` (the final position's Jacobian influence profile
against training step), and ``checkpoints/`` (one per seed, rewritten at every evaluation;
``--resume`` continues from them, also to more iterations).  A progress bar with ETA goes to
stderr when it is a terminal; ``-v`` prints one line per evaluation.  Needs the ``models``
extra (torch).
"""

from __future__ import annotations

import json
import os
import shlex
import sys

from posbias.errors import InvalidArgument, NeedsExtra

__all__ = ["add_parser", "run"]

#: library parameter names -> the option the user typed
_OPTION = {
    "mask": "--mask", "pe": "--pe", "residual": "--residual", "iterations": "--iterations",
    "lr": "--lr", "weight_decay": "--weight-decay", "batch": "--batch",
    "train_bias": "--train-bias", "eval_every": "--eval-every", "test_size": "--test-size",
    "influence_samples": "--record-influence", "seeds": "--seeds", "seed": "--seeds",
    "jobs": "--jobs", "resume": "--resume",
}


def add_parser(subparsers):
    p = subparsers.add_parser(
        "train",
        help="train wu2025's in-context classification network and log its position preference",
        description=(
            "Train the 2-layer self-attention network of wu2025 on its in-context "
            "classification task (K = 2048 classes, 32 labels, d = 64, 8 items in bursts of 4, "
            "gamma = 0.75) and evaluate, every --eval-every iterations, the in-context accuracy "
            "on novel classes and the accuracy differences Acc(X_Y) - Acc(Y_X) of the test sets "
            "IC_X_Y (X, Y in first, middle, last). Needs the 'models' extra (torch)."),
    )
    p.add_argument("--task", choices=("wu2025-icl",), default="wu2025-icl")
    p.add_argument("--mask", default="causal", metavar="MASK",
                   help="causal, full, window:W, prefix:K or decay:M (M > 0; wu2025: 0.2231 = "
                        "-ln 0.8) (default causal)")
    p.add_argument("--pe", default="none", metavar="PE",
                   help="positional encoding: none, sin or rope (default none)")
    p.add_argument("--residual", default="on", metavar="on|off",
                   help="residual connections around attention (default on)")
    p.add_argument("--iterations", type=int, default=20000, metavar="N",
                   help="training iterations (batches) (default 20000; wu2025: 100000)")
    p.add_argument("--lr", type=float, default=1e-3, help="AdamW learning rate (default 1e-3)")
    p.add_argument("--weight-decay", type=float, default=1e-6, help="AdamW weight decay (default 1e-6)")
    p.add_argument("--batch", type=int, default=128, help="batch size (default 128)")
    p.add_argument("--seeds", type=int, nargs="+", default=[0], metavar="S",
                   help="seeds, one run each (default 0)")
    p.add_argument("--train-bias", default="none", metavar="POS",
                   help="answer position of the training data: none (uniform), first, middle, last")
    p.add_argument("--eval-every", type=int, default=500, metavar="N",
                   help="evaluate (and checkpoint) every N iterations (default 500)")
    p.add_argument("--test-size", type=int, default=10000, metavar="N",
                   help="sequences per test set (default 10000)")
    p.add_argument("--record-influence", type=int, nargs="?", const=32, default=0, metavar="N",
                   help="record the final position's Jacobian influence profile at every "
                        "evaluation, averaged over N in-context test sequences (default 32)")
    p.add_argument("--jobs", type=int, default=1, metavar="J",
                   help="seeds trained at once in separate single-thread processes (default 1)")
    p.add_argument("-o", "--output", default=None, metavar="DIR",
                   help="output directory (default posbias-train-<configuration>)")
    p.add_argument("--resume", action="store_true",
                   help="continue from the checkpoints in the output directory")
    p.add_argument("-f", "--format", choices=("table", "json"), default="table",
                   help="what goes to stdout (default table)")
    p.add_argument("-v", "--verbose", action="store_true", help="one line per evaluation on stderr")
    p.set_defaults(func=run)
    return p


def _config(args):
    from posbias.measurements.training import TrainConfig

    if args.residual not in ("on", "off"):
        raise InvalidArgument("--residual", args.residual, "on or off")
    return TrainConfig(mask=args.mask, pe=args.pe, residual=args.residual == "on",
                       iterations=args.iterations, lr=args.lr, weight_decay=args.weight_decay,
                       batch=args.batch, train_bias=args.train_bias, eval_every=args.eval_every,
                       test_size=args.test_size, influence_samples=args.record_influence)


def _final_table(doc) -> str:
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
    return "\n".join(lines)


def run(args) -> int:
    from posbias.measurements import training as tr
    from posbias.render import training_plots as tp

    try:
        tr._torch()
        config = _config(args)
        out = args.output or f"posbias-train-{config.name}"
        if os.path.exists(out) and not os.path.isdir(out):
            raise InvalidArgument("--output", out, "a directory")
        parent = os.path.dirname(os.path.abspath(out))
        if not os.path.isdir(parent):
            raise InvalidArgument("--output", out, "a directory in an existing directory")
        ckpt = os.path.join(out, "checkpoints")
        if args.resume and not os.path.isdir(ckpt):
            raise InvalidArgument("--resume", out, "an output directory with checkpoints/")
        log = None
        if args.verbose:
            def log(e):
                d = e["difference"]
                print(f"[train] it {e['iteration']}: in-context {e['ic_accuracy']:.4f}, "
                      f"first-middle {d['first-middle']:+.4f}, first-last {d['first-last']:+.4f}, "
                      f"middle-last {d['middle-last']:+.4f}", file=sys.stderr, flush=True)
        tr.check_seeds(args.seeds, args.jobs)
        os.makedirs(ckpt, exist_ok=True)
        runs = tr.train_seeds(config, args.seeds, jobs=args.jobs, checkpoint_dir=ckpt,
                              resume=args.resume, log=log)
    except InvalidArgument as exc:
        if exc.parameter in _OPTION:
            raise InvalidArgument(_OPTION[exc.parameter], exc.value, exc.allowed) from None
        raise
    command = "posbias train " + " ".join(shlex.quote(a) for a in sys.argv[2:]) \
        if len(sys.argv) > 1 and sys.argv[1] == "train" else None
    doc = tr.results_document(config, runs, command=command, jobs=args.jobs)
    from posbias.files import write_output

    write_output(json.dumps(doc, indent=1), os.path.join(out, "results.json"))
    write_output(tr.history_csv(doc), os.path.join(out, "history.csv"))
    try:
        tp.plot_differences(doc, os.path.join(out, "differences.png"))
        if config.influence_samples:
            tp.plot_influence_heatmap(doc, os.path.join(out, "influence.png"))
    except NeedsExtra as exc:
        print(f"posbias: {exc}; plots skipped", file=sys.stderr)
    if args.format == "json":
        print(json.dumps(doc, indent=1))
    else:
        print(_final_table(doc))
        print(f"\nwritten: {out}/results.json, history.csv, plots, checkpoints/")
    return 0
