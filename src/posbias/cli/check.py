"""``posbias list`` and ``posbias check``: the registry on the command line.

``posbias check`` runs the checks of the registered claims and exits 0 only when every verdict
equals its expected verdict (needs-data does not fail, unless ``--strict``), 1 when any differs,
2 on bad usage: a verification tool that is also a regression test for the theory.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
from collections.abc import Iterable

from posbias.cli import InternalError
from posbias.cli._common import add_output, dps_type, progress, seed_type
from posbias.errors import InvalidArgument
from posbias.files import check_target, write_output
from posbias.numbers import duration
from posbias.proofs_checks import parallel, registry
from posbias.proofs_checks.registry import CheckContext, Claim, Result
from posbias.render.reports import FORMATS, render

__all__ = ["add_parser", "claim_source", "run_check", "run_list", "select_claims"]


def _import_user_modules(names: Iterable[str] | None) -> None:
    """Import the user's claim modules.  As pytest does for test modules, the working
    directory is searched first (``--import mylab.claims`` finds ``./mylab/claims.py`` without
    PYTHONPATH).  A module that raises, calls ``sys.exit`` or registers an id twice ends the
    check with exit status 3 and a report naming the module."""
    cwd = os.getcwd()
    if names and cwd not in sys.path and "" not in sys.path:
        sys.path.insert(0, cwd)
    for name in names or ():
        if not all(part.isidentifier() for part in name.split(".")):
            raise InvalidArgument("--import", name, "a dotted Python module name")
        try:
            importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name and (name == exc.name or name.startswith(exc.name + ".")):
                raise InvalidArgument("--import", name, f"an importable module ({exc})") from None
            raise _import_failed(name, exc) from exc
        except SystemExit as exc:  # sys.exit() in a module must not end the check silently
            raise _import_failed(name, RuntimeError(f"sys.exit({exc.code!r}) while importing")) from None
        except Exception as exc:  # the user's module raised: an error in it, exit status 3
            raise _import_failed(name, exc) from exc


class _InputError(InvalidArgument):
    """A check's refusal of its input, shown as the check said it (exit status 2)."""

    def __init__(self, message: str) -> None:
        ValueError.__init__(self, message)
        self.parameter, self.value, self.allowed = "--data-dir", None, message


def _import_failed(name: str, exc: BaseException) -> Exception:
    return InternalError(f"--import {name}: the module raised {type(exc).__name__}: "
                         + " ".join(str(exc).split())[:200])


#: the method registry.run_claim records for a check that raised
_CRASHED = "check raised an exception"

def select_claims(ids: Iterable[str] | None, paper: str | None = None) -> list[Claim]:
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


def claim_source(c: Claim) -> str:
    """Where the paper states claim ``c``: its card's paper source (section, figure, table),
    else the section it was registered with."""
    if c.card is not None and c.card.paper.source:
        return c.card.paper.source
    return c.section or "(not stated)"


def run_list(args: argparse.Namespace) -> int:
    check_target(args.output, args.format)
    _import_user_modules(args.import_)
    claims = registry.all_claims(args.paper)
    if args.format == "json":
        data = [
            {
                "id": c.id,
                "paper": c.paper,
                "statement": c.statement,
                "source": claim_source(c),
                "expected": c.expected,
                "section": c.section,
                "assumptions": list(c.assumptions),
                "needs": list(c.needs),
            }
            for c in claims
        ]
        write_output(json.dumps(data, indent=2, ensure_ascii=False), args.output, fmt="json")
        return 0
    width = max(len(c.id) for c in claims) if claims else 2
    lines = [f"{'id'.ljust(width)}  {'expected'.ljust(12)}  statement (next line: its source)"]
    for c in claims:
        lines.append(f"{c.id.ljust(width)}  {c.expected.ljust(12)}  {c.statement}")
        lines.append(f"{''.ljust(width)}  {''.ljust(12)}  source: {claim_source(c)}")
    write_output("\n".join(lines), args.output, fmt="text")
    return 0


def run_check(args: argparse.Namespace) -> int:
    check_target(args.output, args.format)
    if args.data_dir is not None:
        registry.check_data_dir(args.data_dir, "--data-dir")
    if args.scheduler is not None:  # refused before any claim runs
        parallel.scheduler_address(args.scheduler)
    _import_user_modules(args.import_)
    ctx = registry.CheckContext(
        dps=args.dps, max_dps=max(args.max_dps, args.dps), thorough=args.thorough,
        seed=args.seed, data_dir=args.data_dir,
    )
    claims = select_claims(args.ids, args.paper)
    if ctx.thorough:
        _announce_thorough(args, ctx, claims)
    results: list[Result] = []
    if args.workers is not None or args.scheduler is not None:
        results = _run_parallel(args, ctx, claims)
    else:
        with progress(len(claims), "posbias check", args.quiet) as bar:
            for n, c in enumerate(claims, 1):
                bar.set_postfix_str(c.id)
                r = registry.run_claim(c, ctx)
                results.append(r)
                bar.update(1)
                if not args.quiet:
                    mark = "" if r.ok else "  <-- differs from expected " + r.expected
                    print(f"[{n}/{len(claims)}] {c.id}: {r.evidence.verdict} ({r.seconds:.2f} s)"
                          f"{mark}", file=sys.stderr, flush=True)
    crashed = [r.claim.id for r in results if r.evidence.method == _CRASHED]
    for r in results:  # a data check refusing a file of --data-dir is a usage error (exit 2)
        error = str(r.evidence.details.get("error", "")) if r.claim.id in crashed else ""
        # with --data-dir, a check's refusal of its input is the user's data (exit 2, naming it)
        if args.data_dir is not None and error.startswith("InvalidArgument: "):
            raise _InputError(f"{r.claim.id}: {error[len('InvalidArgument: '):]}")
    write_output(render(results, args.format, verbose=args.verbose, strict=args.strict), args.output,
                 fmt=args.format)
    if crashed:  # a check that raises is an error in the check, not a verdict: exit status 3
        first = next(r for r in results if r.claim.id == crashed[0])
        raise InternalError(f"the check of {crashed[0]} raised "
                            f"{first.evidence.details.get('error', '')}"[:300]
                            + (f" (and {len(crashed) - 1} more)" if len(crashed) > 1 else ""))
    return registry.exit_status(results, strict=args.strict)


#: a --thorough run longer than this asks for --yes on a terminal
_THOROUGH_CONFIRM_SECONDS = 600


def _announce_thorough(args: argparse.Namespace, ctx: CheckContext, claims: list[Claim]) -> None:
    """Before a --thorough run: print every re-measurement and re-training with its estimated
    wall time on this machine (the stored run's measured time), and on a terminal refuse a
    total beyond 10 minutes unless --yes."""
    work = registry.thorough_work(claims, ctx)
    if not work:
        return
    total = sum(w[2] for w in work)
    if not args.quiet:
        print("posbias check --thorough will re-run (estimated from the stored runs' wall times "
              "on this project's machine, 2 cores):", file=sys.stderr)
        for _key, what, seconds, ids in work:
            names = ", ".join(ids[:3]) + (f" and {len(ids) - 3} more" if len(ids) > 3 else "")
            print(f"  {what}: about {duration(seconds)} (for {names})", file=sys.stderr)
        print(f"  total: about {duration(total)}", file=sys.stderr, flush=True)
    if total > _THOROUGH_CONFIRM_SECONDS and sys.stdin.isatty() and not args.yes:
        raise InvalidArgument("--thorough", f"about {duration(total)} of re-measuring and "
                              "re-training", "--yes to start it (or select fewer claims)")


def _run_parallel(args: argparse.Namespace, ctx: CheckContext,
                  claims: list[Claim]) -> list[Result]:
    """``posbias check -n N|auto [--scheduler ADDRESS]``: the claims in worker processes or on a
    Dask cluster (posbias.proofs_checks.parallel); the same verdicts and report as a serial run."""
    workers = args.workers
    try:
        parallel.resolve_workers(workers)
    except InvalidArgument:
        raise InvalidArgument("-n", workers, "an integer >= 1 or 'auto'") from None
    finished = [0]

    def report(i: int, r: Result) -> None:
        finished[0] += 1
        if not args.quiet:
            mark = "" if r.ok else "  <-- differs from expected " + r.expected
            print(f"[{finished[0]}/{len(claims)}] {r.claim.id}: {r.evidence.verdict} "
                  f"({r.seconds:.2f} s){mark}", file=sys.stderr, flush=True)

    try:
        return parallel.run_claims(claims, ctx, workers=workers or 1, scheduler=args.scheduler,
                                   imports=args.import_ or (), progress=report)
    except InvalidArgument as exc:
        if exc.parameter == "scheduler":
            raise InvalidArgument("--scheduler", exc.value, exc.allowed) from None
        raise


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "list", help="list the registered claims",
        description="List the registered claims: id, expected verdict, statement, and where the "
        "paper states it (its source: section, figure or table).",
    )
    p.add_argument("--paper", help="only the claims of this paper key (e.g. chowdhury2026)")
    add_output(p, ("text", "json"), "text")
    p.add_argument("--import", dest="import_", action="append", metavar="MODULE",
                   help="import MODULE first (it registers its own claims); repeatable")
    p.set_defaults(func=run_list)

    p = sub.add_parser(
        "check", help="verify the papers' claims and report verdicts",
        description="Run the checks of the registered claims (all, of one paper, or the given "
        "ids). Exit 0 when every verdict equals its expected verdict, 1 when any differs, "
        "2 on bad usage. Claims needing missing data report needs-data and do not fail, "
        "unless --strict.",
    )
    p.add_argument("ids", nargs="*", metavar="ID", help="claim ids (or unique slugs)")
    p.add_argument("--paper", help="only the claims of this paper key")
    p.add_argument("--dps", type=dps_type, default=30,
                   help="working decimal precision of the mpmath routes (default 30)")
    p.add_argument("--max-dps", type=dps_type, default=240,
                   help="precision cap for escalation when routes disagree (default 240)")
    p.add_argument("--thorough", action="store_true",
                   help="larger grids, more generated cases, and live re-measurement and "
                        "re-training instead of the stored runs (the estimate is printed first)")
    p.add_argument("--yes", action="store_true",
                   help="start a --thorough run estimated at more than 10 minutes without asking")
    p.add_argument("--seed", type=seed_type, default=20260, help="seed of generated cases")
    p.add_argument("--data-dir", help="directory with measured data for data-dependent claims")
    p.add_argument("--strict", action="store_true",
                   help="a needs-data verdict (missing extra or data) fails the run (exit 1)")
    add_output(p, FORMATS, "text")
    p.add_argument("--import", dest="import_", action="append", metavar="MODULE",
                   help="import MODULE first (it registers its own claims); repeatable")
    p.add_argument("-n", "--workers", metavar="N|auto",
                   help="run the claims in N worker processes (auto: one per CPU); same verdicts")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="run the claims on the Dask cluster at ADDRESS (tcp://host:8786), or "
                        "'local' for a LocalCluster of -n workers (the 'scale' extra)")
    p.set_defaults(func=run_check)
