"""``posbias rollout CONFIG``: the influence profile of a real model's rollout config.

Reads a herasimchyk2026-format YAML config (or a shipped one by name, e.g.
``no_content/bloom-7b1``; see ``--list``), computes the residual-aware ALiBi rollout on the fast
path (``O(T H L)`` time, ``O(L)`` memory) and its attention-only (``lambda = 1``) counterpart, and
prints the summary: first, last, argmin (1-indexed), min, ``sum_t lambda_t``,
``sum_t lambda_t delta_t`` (``delta_t = max_i (1 - A(t)[i,i])`` from the kernel), first/min,
last/min, and the normalised Wasserstein-1 distance between the two profiles.  ``--compare``
puts the ``reference`` and ``corrected`` conventions side by side with their W1 distance.

What is known of the λ schedule is printed with it: a shipped config whose λ list was not
measured for its own length (the L = 2048 configs of a later commit of herasimchyk2026's code,
whose lists are copied from L = 256; see ``--list``) carries a note in every format (a ``note:``
line in the table, ``notes`` in JSON, standard error beside CSV), and so does any config run at a
``--length`` other than the one its λ list was given for.

Formats: ``text`` (``table``; about 6 significant digits), ``json`` and ``csv`` (floats as
``repr``, at most 17 significant digits; csv positions are 1-indexed).  No report holds a NaN or
an infinity: a ratio to a minimum that underflowed to 0 is ``null`` in JSON and shown as
``min underflow`` in the table (the fast path cannot tell the ratio); a config whose fast
rollout is not finite is refused.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import re
import sys
import time
from typing import TYPE_CHECKING

import numpy as np

from posbias.cli._common import add_output, check_memory, flag_error, progress
from posbias.errors import InvalidArgument
from posbias.files import check_target, read_bounded, write_output
from posbias.numbers import byte_size, significant
from posbias.numerics.configs import CONVENTIONS, MAX_LENGTH, parse_config, rollout_summary
from posbias.numerics.costs import alibi_rollout_bytes
from posbias.proofs_checks.data import (
    builtin_config_name,
    builtin_config_path,
    builtin_configs,
    config_record,
    is_builtin_config,
)
from posbias.render.plots import check_plot_path, plot_profile

if TYPE_CHECKING:
    from posbias.numerics.configs import RolloutConfig

#: largest config file read (the shipped ones are a few KiB)
_MAX_CONFIG_BYTES = 16 * 2**20

__all__ = ["add_parser", "compute_rollout", "run"]


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "rollout",
        help="influence profile of a real model's rollout config (ALiBi, content, measured lambda)",
        description=(
            "Compute the residual-aware ALiBi rollout of a rollout config in the YAML format of "
            "herasimchyk2026's code (O(T*heads*L) time, O(L) memory), its summary and the "
            "attention-only (lambda = 1) comparison. CONFIG is a file or a shipped config name "
            "(posbias rollout --list). Needs the 'yaml' extra (ruamel.yaml)."),
    )
    p.add_argument("config", nargs="?", metavar="CONFIG", help="YAML file or shipped config name")
    p.add_argument("--list", action="store_true", help="list the shipped configs and exit")
    p.add_argument("--length", metavar="L", help="sequence length (overrides the config), 1..10^8")
    p.add_argument("--convention", default="reference", metavar="NAME",
                   help="reference (default: what the reference code does) or corrected "
                        "(model-faithful slopes, ALiBi and content scaling)")
    p.add_argument("--model", metavar="NAME",
                   help="model for the corrected convention (default: from the file name)")
    p.add_argument("--d-head", type=int, metavar="D", help="head dimension (overrides the model's)")
    p.add_argument("--compare", action="store_true",
                   help="reference and corrected side by side, with their W1 distance")
    add_output(p, ("text", "json", "csv"), "text", aliases={"table": "text"})
    p.add_argument("--plot", metavar="FILE", help="draw the profile to FILE (.png or .pdf)")
    p.set_defaults(func=run)
    return p


def _w1(p: np.ndarray, q: np.ndarray) -> float:
    d = np.cumsum(p[:-1]) - np.cumsum(q[:-1])
    return float(np.sum(np.abs(d)) / (p.size - 1)) if p.size > 1 else 0.0


def compute_rollout(cfg: RolloutConfig) -> dict:
    """Profile, attention-only profile and summaries of a :class:`RolloutConfig`."""
    deltas = cfg.deltas()
    prof = cfg.profile()
    att_cfg = cfg.attention_only()
    att = att_cfg.profile()
    return {
        "convention": cfg.conventions.name,
        "conventions": {
            "slope_rule": cfg.conventions.slope_rule,
            "alibi_scale": cfg.conventions.alibi_scale,
            "content_scale": cfg.conventions.content_scale,
            "d_head": cfg.conventions.d_head,
            "content_head0_only": cfg.conventions.content_head0_only,
        },
        "profile": prof,
        "attention_only_profile": att,
        "summary": rollout_summary(prof, cfg.lambdas, deltas),
        "attention_only_summary": rollout_summary(att, att_cfg.lambdas, deltas),
        "w1_attention_only": _w1(prof, att),
    }


def _resolve(config: str) -> str:
    if os.path.lexists(config):
        return config
    if is_builtin_config(config):
        return builtin_config_path(config)
    raise InvalidArgument("CONFIG", config, "a readable YAML file or a shipped config name "
                          "(see posbias rollout --list)")


_ROWS = (
    ("first", "p(1)"),
    ("last", "p(L)"),
    ("argmin", "argmin j"),
    ("min", "min p"),
    ("first_over_min", "p(1)/min"),
    ("last_over_min", "p(L)/min"),
    ("sum_lambda", "sum lambda_t"),
    ("sum_lambda_delta", "sum lambda_t delta_t"),
)


def lambda_notes(cfg: RolloutConfig, name: str | None) -> list[str]:
    """What a user must know of the λ schedule of ``cfg``: the shipped config's note (``name``
    of a shipped config, or None) and, for a custom schedule given for another sequence length
    than the one computed, that it is reused at this length (λ ≡ 1 has nothing to reuse)."""
    notes = []
    if name is not None:
        rec = config_record(name)
        if rec.note:
            notes.append(rec.note)
    given = cfg.raw.get("sequence_length")
    measured = cfg.schedule.startswith("custom") and not bool(np.all(cfg.lambdas == 1.0))
    if measured and isinstance(given, int) and given != cfg.length:
        notes.append(f"lambda_t of the config (given for L = {given}) used at L = {cfg.length} (--length)")
    return notes


def _content_fill(c: dict) -> str:
    return "single content score on head 0 only" if c["content_head0_only"] else "single content score on every head"


def _table(cfg: RolloutConfig, results: list, w1_pair: float | None, notes: list[str]) -> str:
    model = f"  model {cfg.model}" if cfg.model else ""  # a user's config names no model
    head = (f"config {cfg.source}{model}  L = {cfg.length}  T = {cfg.num_layers}  "
            f"H = {cfg.num_heads}  lambda: {cfg.schedule}")
    cols = []
    for r in results:
        c = r["conventions"]
        cols.append((f"{r['convention']}", r["summary"]))
        cols.append((f"{r['convention']}, lambda=1", r["attention_only_summary"]))
    width = max(len(n) for n, _ in cols) + 2
    lines = [head] + [f"note: {n}" for n in notes]
    for r in results:
        c = r["conventions"]
        lines.append(f"convention {r['convention']}: slopes {c['slope_rule']}, ALiBi scale {c['alibi_scale']}, "
                     f"content scale {c['content_scale']}" + (f", d_head {c['d_head']}" if c["d_head"] else "")
                     + f", {_content_fill(c)}")
    lines.append("")
    lines.append("quantity".ljust(22) + "".join(n.rjust(max(width, 14)) for n, _ in cols))
    for key, label in _ROWS:
        row = label.ljust(22)
        for _, s in cols:
            v = s[key]
            shown = str(v) if isinstance(v, int) else ("min underflow" if v is None else significant(v, 6))
            row += shown.rjust(max(width, 14))
        lines.append(row)
    lines.append("")
    for r in results:
        lines.append(f"W1(profile, attention only) [{r['convention']}] = {significant(r['w1_attention_only'], 6)}")
    if w1_pair is not None:
        lines.append(f"W1(reference, corrected) = {significant(w1_pair, 6)}")
    return "\n".join(lines)


def _json(cfg: RolloutConfig, results: list, w1_pair: float | None, notes: list[str],
          record: dict | None) -> str:
    out = {
        "config": cfg.source,
        "model": cfg.model,
        "length": cfg.length,
        "num_layers": cfg.num_layers,
        "num_heads": cfg.num_heads,
        "lambda_schedule": cfg.schedule,
        "lambdas": cfg.lambdas.tolist(),
        "notes": notes,
        "record": record,
        "path": "fast",
        "results": [
            {
                "convention": r["convention"],
                "conventions": r["conventions"],
                "summary": r["summary"],
                "attention_only_summary": r["attention_only_summary"],
                "w1_attention_only": r["w1_attention_only"],
                "profile": r["profile"].tolist(),
                "attention_only_profile": r["attention_only_profile"].tolist(),
            }
            for r in results
        ],
    }
    if w1_pair is not None:
        out["w1_reference_corrected"] = w1_pair
    return json.dumps(out, indent=1, allow_nan=False)


def _finite_summary(summary: dict) -> dict:
    """The summary with a ratio to a minimum that underflowed to 0 (an infinite float) as None;
    the profiles themselves were checked to be finite."""
    return {k: (None if isinstance(v, float) and not np.isfinite(v) else v) for k, v in summary.items()}


def _csv(results: list) -> str:
    names = []
    cols = []
    for r in results:
        names += [r["convention"], r["convention"] + "_attention_only"]
        cols += [r["profile"], r["attention_only_profile"]]
    lines = ["position," + ",".join(names)]
    for j in range(cols[0].size):
        lines.append(f"{j + 1}," + ",".join(repr(float(c[j])) for c in cols))
    return "\n".join(lines)


def _length(text: object) -> int:
    """``--length`` as plain decimal digits, between 1 and the loader's maximum."""
    digits = str(text).strip()
    if not re.fullmatch(r"[0-9]{1,30}", digits) or not 1 <= int(digits) <= MAX_LENGTH:
        raise InvalidArgument("--length", text, f"an integer between 1 and {MAX_LENGTH}")
    return int(digits)


def _listing() -> str:
    """The shipped configs, one a line; a config whose λ list is not its own says so."""

    lines = []
    for name in builtin_configs(include_later=True):
        rec = config_record(name)
        lines.append(name if rec.lambda_measured_for_length else
                     f"{name}  [L = {rec.sequence_length}; lambda_t copied from {rec.lambda_copied_from} "
                     f"(L = {rec.lambda_length}), not measured at L = {rec.sequence_length}]")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    if args.list:
        write_output(_listing(), None)
        return 0
    if not args.config:
        raise InvalidArgument("CONFIG", "<missing>", "a YAML file or a shipped config name")
    if args.convention not in CONVENTIONS:
        raise InvalidArgument("--convention", args.convention, "one of " + ", ".join(CONVENTIONS))
    if args.length is not None:
        args.length = _length(args.length)
    if args.d_head is not None and args.d_head < 1:
        raise InvalidArgument("--d-head", args.d_head, "an integer >= 1")
    check_target(args.output, args.format)
    if args.plot:
        check_plot_path(args.plot, "--plot")
    path = _resolve(args.config)
    raw = read_bounded(path, _MAX_CONFIG_BYTES, "CONFIG")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidArgument("CONFIG", path, "a UTF-8 YAML text file") from None

    conventions = ["reference", "corrected"] if args.compare else [args.convention]
    try:
        cfgs = [parse_config(text, source=path, convention=c, model=args.model,
                             length=args.length, d_head=args.d_head)
                for c in conventions]
    except InvalidArgument as exc:  # the library's "config" is the positional CONFIG here
        raise flag_error(exc, {"config": "CONFIG"}) from None
    L, T, H = cfgs[0].length, cfgs[0].num_layers, cfgs[0].num_heads
    needed = alibi_rollout_bytes(L, H, len(cfgs))
    check_memory(needed, args.max_memory, "use a smaller --length")
    big = L * T * H > 5e7
    start = time.perf_counter()
    results = []
    if big and not args.quiet:
        # about 15 ns per (layer, head, position) on the fast path, twice per convention
        eta = 2 * len(cfgs) * L * T * H * 15e-9
        print(f"posbias rollout: L = {L}, T = {T}, H = {H} (fast path): about {eta:.0f} s and "
              f"{byte_size(needed)} ...", file=sys.stderr)
    with progress(len(cfgs), "posbias rollout", args.quiet or not big) as bar:
        for cfg in cfgs:
            r = compute_rollout(cfg)
            for key in ("profile", "attention_only_profile"):
                if not np.isfinite(r[key]).all():
                    raise InvalidArgument("CONFIG", path, "a config whose fast rollout stays finite "
                                          f"({cfg.conventions.name} convention: the {key.replace('_', ' ')} "
                                          "is not; extreme slopes or temperatures)")
            r["summary"] = _finite_summary(r["summary"])
            r["attention_only_summary"] = _finite_summary(r["attention_only_summary"])
            results.append(r)
            bar.update(1)
    if big and not args.quiet:
        print(f"posbias rollout: done in {time.perf_counter() - start:.1f} s", file=sys.stderr)
    w1_pair = _w1(results[0]["profile"], results[1]["profile"]) if args.compare else None
    name = builtin_config_name(path)
    notes = lambda_notes(cfgs[0], name)
    record = dataclasses.asdict(config_record(name)) if name is not None else None
    if args.format == "json":
        text = _json(cfgs[0], results, w1_pair, notes, record)
    elif args.format == "csv":
        text = _csv(results)
        if not args.quiet:
            for n in notes:
                print(f"posbias rollout: note: {n}", file=sys.stderr)
    else:
        text = _table(cfgs[0], results, w1_pair, notes)
    if args.plot:
        r = results[-1]
        title = f"{cfgs[0].model or os.path.basename(path)}: {r['convention']} convention, L = {cfgs[0].length}"
        plot_profile(r["profile"], args.plot, title=title, attention_only=r["attention_only_profile"],
                     parameter="--plot")
    write_output(text, args.output, fmt=args.format)
    return 0
