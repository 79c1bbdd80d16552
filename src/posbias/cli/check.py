"""``posbias list`` and ``posbias check``: the registry on the command line.

``posbias check`` runs the checks of the registered claims and exits 0 only when every verdict
equals its expected verdict (needs-data does not fail), 1 when any differs, 2 on bad usage: a
verification tool that is also a regression test for the theory.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys

from posbias.errors import InvalidArgument
from posbias.proofs_checks import registry
from posbias.files import check_writable, write_output
from posbias.render.reports import FORMATS, render

__all__ = ["add_parser", "run_list", "run_check", "select_claims"]


def _import_user_modules(names):
    for name in names or ():
        if not all(part.isidentifier() for part in name.split(".")):
            raise InvalidArgument("--import", name, "a dotted Python module name")
        try:
            importlib.import_module(name)
        except ImportError as exc:
            raise InvalidArgument("--import", name, f"an importable module ({exc})") from None


def select_claims(ids, paper=None):
    """The claims named by ``ids`` (full ids or unique slugs), else all (of ``paper``)."""
    claims = registry.all_claims(paper)
    if not ids:
        return claims
    chosen = []
    for cid in ids:
        c = registry.get_claim(cid)
        if paper is not None and c.paper != paper:
            raise InvalidArgument("claim id", cid, f"a claim of paper {paper}")
        if c not in chosen:
            chosen.append(c)
    return chosen


def run_list(args) -> int:
    _import_user_modules(args.import_)
    claims = registry.all_claims(args.paper)
    if args.format == "json":
        data = [
            {
                "id": c.id,
                "paper": c.paper,
                "statement": c.statement,
                "expected": c.expected,
                "expected_thorough": c.expected_for(True),
                "section": c.section,
                "assumptions": list(c.assumptions),
                "needs": list(c.needs),
            }
            for c in claims
        ]
        write_output(json.dumps(data, indent=2, ensure_ascii=False), None)
        return 0
    width = max(len(c.id) for c in claims) if claims else 2
    lines = [f"{'id'.ljust(width)}  {'expected'.ljust(12)}  statement"]
    for c in claims:
        lines.append(f"{c.id.ljust(width)}  {c.expected.ljust(12)}  {c.statement}")
    write_output("\n".join(lines), None)
    return 0


def run_check(args) -> int:
    if args.output and args.output != "-":
        check_writable(args.output)
    _import_user_modules(args.import_)
    if args.data_dir is not None and not os.path.isdir(args.data_dir):
        raise InvalidArgument("--data-dir", args.data_dir, "an existing directory")
    ctx = registry.CheckContext(
        dps=args.dps, max_dps=max(args.max_dps, args.dps), thorough=args.thorough,
        seed=args.seed, data_dir=args.data_dir,
    )
    claims = select_claims(args.ids, args.paper)
    results = []
    tty = sys.stderr.isatty()
    if args.workers is not None or args.scheduler is not None:
        return _run_check_parallel(args, ctx, claims)
    for n, c in enumerate(claims, 1):
        if not args.quiet:
            msg = f"[{n}/{len(claims)}] {c.id} ..."
            print(msg, end="\r" if tty else "\n", file=sys.stderr, flush=True)
        r = registry.run_claim(c, ctx)
        results.append(r)
        if not args.quiet:
            mark = "" if r.ok else "  <-- differs from expected " + r.expected
            end = "\n"
            print(f"[{n}/{len(claims)}] {c.id}: {r.evidence.verdict} ({r.seconds:.2f} s){mark}"
                  + (" " * 10 if tty else ""), end=end, file=sys.stderr, flush=True)
    write_output(render(results, args.format), args.output)
    return 0 if all(r.ok for r in results) else 1


def _run_check_parallel(args, ctx, claims) -> int:
    """``posbias check -n N|auto [--scheduler ADDRESS]``: the claims in worker processes or on a
    Dask cluster (posbias.proofs_checks.parallel); the same verdicts and report as a serial run."""
    from posbias.proofs_checks import parallel

    workers = args.workers
    try:
        parallel.resolve_workers(workers)
    except InvalidArgument:
        raise InvalidArgument("-n", workers, "an integer >= 1 or 'auto'") from None
    finished = [0]

    def progress(i, r):
        finished[0] += 1
        if not args.quiet:
            mark = "" if r.ok else "  <-- differs from expected " + r.expected
            print(f"[{finished[0]}/{len(claims)}] {r.claim.id}: {r.evidence.verdict} "
                  f"({r.seconds:.2f} s){mark}", file=sys.stderr, flush=True)

    try:
        results = parallel.run_claims(claims, ctx, workers=workers or 1, scheduler=args.scheduler,
                                      imports=args.import_ or (), progress=progress)
    except InvalidArgument as exc:
        if exc.parameter == "scheduler":
            raise InvalidArgument("--scheduler", exc.value, exc.allowed) from None
        raise
    write_output(render(results, args.format), args.output)
    return 0 if all(r.ok for r in results) else 1


def _dps(text):
    """argparse type of --dps/--max-dps: an integer in [15, 10000]."""
    try:
        value = int(text)
    except ValueError:
        value = None
    if value is None or not 15 <= value <= 10000:
        raise argparse.ArgumentTypeError(f"{text!r} is invalid: expected an integer between 15 and 10000")
    return value


def add_parser(sub) -> None:
    p = sub.add_parser(
        "list", help="list the registered claims",
        description="List the registered claims: id, expected verdict, statement.",
    )
    p.add_argument("--paper", help="only the claims of this paper key (e.g. chowdhury2026)")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument("--import", dest="import_", action="append", metavar="MODULE",
                   help="import MODULE first (it registers its own claims); repeatable")
    p.set_defaults(func=run_list)

    p = sub.add_parser(
        "check", help="verify the papers' claims and report verdicts",
        description="Run the checks of the registered claims (all, of one paper, or the given "
        "ids). Exit 0 when every verdict equals its expected verdict, 1 when any differs, "
        "2 on bad usage. Claims needing missing data report needs-data and do not fail.",
    )
    p.add_argument("ids", nargs="*", metavar="ID", help="claim ids (or unique slugs)")
    p.add_argument("--paper", help="only the claims of this paper key")
    p.add_argument("--dps", type=_dps, default=30,
                   help="working decimal precision of the mpmath routes (default 30)")
    p.add_argument("--max-dps", type=_dps, default=240,
                   help="precision cap for escalation when routes disagree (default 240)")
    p.add_argument("--thorough", action="store_true",
                   help="larger grids and more generated cases (slower)")
    p.add_argument("--seed", type=int, default=20260, help="seed of generated cases")
    p.add_argument("--data-dir", help="directory with measured data for data-dependent claims")
    p.add_argument("--format", choices=FORMATS, default="text")
    p.add_argument("--output", help="write the report here (atomically) instead of stdout")
    p.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    p.add_argument("--import", dest="import_", action="append", metavar="MODULE",
                   help="import MODULE first (it registers its own claims); repeatable")
    p.add_argument("-n", "--workers", metavar="N|auto",
                   help="run the claims in N worker processes (auto: one per CPU); same verdicts")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="run the claims on the Dask cluster at ADDRESS (tcp://host:8786), or "
                        "'local' for a LocalCluster of -n workers (the 'scale' extra)")
    p.set_defaults(func=run_check)
