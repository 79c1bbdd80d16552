"""The ``posbias`` command line: ``list``, ``check``, ``profile``, ``latex``, ``rollout``,
``measure``, ``sweep``.

Conventions: ``main(argv) -> int``; results on stdout (or ``-o FILE``), progress on
stderr.  Exit status: 0 every verdict as expected, 1 a verdict differs, 2 bad usage or input
(one line naming the flag), 3 an internal error or a crashing check (one line; ``--debug``
shows the traceback).  Each subcommand lives in its own module ``posbias/cli/<name>.py``
exposing ``add_parser(subparsers)`` (which sets ``func``) and is imported only when the command
line is built; the options every subcommand shares come from :mod:`posbias.cli._common`.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import traceback
import warnings
from typing import NoReturn

from posbias import __version__
from posbias.cli._common import OPTION, add_common, flag_error
from posbias.errors import InvalidArgument, NeedsExtra, ResourceLimit, one_line
from posbias.resources import Terminated, terminate_on_sigterm

__all__ = [
    "EXIT_DIFFERS",
    "EXIT_INTERNAL",
    "EXIT_OK",
    "EXIT_USAGE",
    "OPTION",
    "UsageError",
    "build_parser",
    "main",
]

_SUBCOMMANDS = ("check", "profile", "latex", "rollout", "measure", "sweep", "train")

EXIT_OK, EXIT_DIFFERS, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3

#: one example per subcommand, shown at the end of its --help
EXAMPLES = {
    "list": "posbias list --paper chowdhury2026 -f json",
    "check": "posbias check --paper chowdhury2026 -f junit -o report.xml",
    "profile": "posbias profile --length 512 --depth 24 --alpha 1/2 --summary --plot profile.png",
    "latex": "posbias latex --standalone -o formulas.tex",
    "rollout": "posbias rollout no_content/bloom-7b1 --compare --plot bloom.png",
    "measure": "posbias measure --arch tiny-qwen2 --length 64 --rope both",
    "sweep": "posbias sweep docs/peak-valley-map.yaml -o peak-valley.csv --plot map.png",
    "train": "posbias train --mask causal --pe none --iterations 2000 --seeds 0 1 -o run/",
}


class InternalError(Exception):
    """An error inside posbias or inside a user's check; exit status 3."""


class UsageError(Exception):
    """Bad command-line usage; reported as one line with exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line, no usage dump, exit 2 (handled in main)
        raise UsageError(f"{self.prog}: {message}")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="posbias",
        description="Derive, compute and check the theory of position bias in causal transformers.",
    )
    parser.add_argument("--version", action="version", version=f"posbias {__version__}")
    parser.add_argument("--debug", action="store_true", help="show the traceback of an internal error")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name in _SUBCOMMANDS:
        importlib.import_module(f"posbias.cli.{name}").add_parser(sub)
    for name, p in sub.choices.items():
        add_common(p, name, EXAMPLES.get(name, f"posbias {name} --help"))
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status (0, 1, 2 or 3; 130 on Ctrl-C, 143 on
    SIGTERM, after worker processes are ended)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in argv

    restore = terminate_on_sigterm()  # SIGTERM ends workers and removes partial files, as Ctrl-C
    try:
        return _main(argv, debug)
    finally:
        restore()


def _main(argv: list, debug: bool) -> int:
    try:
        with warnings.catch_warnings():
            # numerical warnings never leak to the user (site-packages paths): results are
            # checked for finiteness where they are produced
            warnings.simplefilter("ignore", RuntimeWarning)
            parser = build_parser()
            args = parser.parse_args(argv)
            if not getattr(args, "func", None):
                parser.print_help(sys.stderr)
                return EXIT_USAGE
            budget = getattr(args, "max_memory", None)
            if isinstance(budget, dict) and not getattr(args, "device_map", None):
                raise InvalidArgument("--max-memory", getattr(budget, "text", budget),
                                      "a SIZE such as 8G (DEVICE=SIZE,... goes with measure "
                                      "--model --device-map)")
            return int(args.func(args) or 0)
    except UsageError as exc:
        print(f"error: {exc}".replace("error: posbias", "posbias", 1), file=sys.stderr)
        return EXIT_USAGE
    except InvalidArgument as exc:
        print(f"posbias: error: {flag_error(exc)}", file=sys.stderr)
        return EXIT_USAGE
    except (NeedsExtra, ResourceLimit) as exc:
        print(f"posbias: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        return EXIT_DIFFERS
    except Terminated:
        print("posbias: terminated", file=sys.stderr)
        return 143
    except KeyboardInterrupt:
        print("posbias: interrupted", file=sys.stderr)
        return 130
    except InternalError as exc:
        if debug:
            traceback.print_exc()
        print(f"posbias: error: {exc}", file=sys.stderr)
        return EXIT_INTERNAL
    except MemoryError:
        if debug:
            traceback.print_exc()
        print("posbias: error: out of memory (use a smaller run or raise --max-memory)", file=sys.stderr)
        return EXIT_INTERNAL
    except Exception as exc:  # an internal error: one line, the traceback only with --debug
        if debug:
            traceback.print_exc()
        text = one_line(" ".join(str(exc).split()), 300)
        where = "" if debug else " (run with --debug for the traceback)"
        print(f"posbias: internal error: {type(exc).__name__}: {text}{where}", file=sys.stderr)
        return EXIT_INTERNAL


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
