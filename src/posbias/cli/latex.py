"""``posbias latex``: every derivation as a labeled LaTeX equation, or as JSON for tools.

::

    posbias latex [-o FILE] [--only NAME ...] [--standalone | --fragment] [-f latex|json]

The LaTeX itself comes from :mod:`posbias.render.latex` (a subclass of sympy's
``LatexPrinter``); this module is the command line only.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from posbias.cli._common import add_output
from posbias.errors import InvalidArgument
from posbias.files import check_target, write_output

__all__ = ["add_parser", "run"]

_RENDER = ("render_tex", "render_json", "escape_text", "equation_block")


def __getattr__(name: str) -> Any:
    # posbias.render.latex's renderers, still reachable here, load on first use (with sympy): every other subcommand's
    # start-up would otherwise pay about 0.3 s for sympy
    if name in _RENDER:
        from posbias.render import latex  # sympy: loaded on first use, as above

        return getattr(latex, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "latex",
        help="write the symbolic derivations as LaTeX (or JSON)",
        description="Write every derivation (or those named with --only) as a labeled LaTeX "
        "equation \\label{posbias:<name>} with a one-line description: a standalone document "
        "(amsmath, amssymb) or a fragment to \\input; --format json lists them for tools.",
    )
    add_output(p, ("latex", "json"), "latex", aliases={"tex": "latex"})
    p.add_argument("--only", metavar="NAME", nargs="+", action="extend", default=None,
                   help="only these derivations (see --format json for the names)")
    mode = p.add_mutually_exclusive_group()
    # one destination for the two flags: neither shows a default of its own, the help says which
    mode.add_argument("--standalone", dest="standalone", action="store_true",
                      default=argparse.SUPPRESS,
                      help="a complete document that compiles with pdflatex (the default)")
    mode.add_argument("--fragment", dest="standalone", action="store_false",
                      default=argparse.SUPPRESS,
                      help="no preamble, for \\input in a paper (default: off)")
    p.set_defaults(func=run, standalone=True)


def run(args: argparse.Namespace) -> int:
    check_target(args.output, args.format)
    # the derivations and their printer load sympy (about 0.3 s): imported when the sheet is
    # built, not at the start-up of every command
    from posbias.derivations import all_derivations, derivation_names

    valid = derivation_names()
    names = valid
    if args.only:
        for name in args.only:
            if name not in valid:
                raise InvalidArgument("--only", name, "one of " + ", ".join(valid))
        names = list(dict.fromkeys(args.only))
    if not args.quiet:
        print(f"posbias latex: building {len(names)} derivation(s)", file=sys.stderr)
    derivations = list(all_derivations(names).values())
    from posbias.render.latex import render_json, render_tex  # sympy, as above

    if args.format == "json":
        text = render_json(derivations)
    else:
        text = render_tex(derivations, standalone=args.standalone)
    write_output(text, args.output, fmt=args.format)
    return 0
