"""The ``posbias`` command line: ``list``, ``check``, ``profile``, ``latex``, ``rollout``,
``measure``.

Conventions (STYLE.md 15): ``main(argv) -> int``; results on stdout, progress on stderr; exit 0
on success, 1 when a check fails, 2 on bad usage, with one clear line naming the parameter.
Each subcommand lives in its own module ``posbias/cli/<name>.py`` exposing ``add_parser(subparsers)``
(which sets ``func``) and is imported only when the command line is built.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from posbias import __version__
from posbias.errors import InvalidArgument, NeedsExtra

__all__ = ["main", "UsageError", "build_parser"]

_SUBCOMMANDS = ("check", "profile", "latex", "rollout", "measure", "train")


class UsageError(Exception):
    """Bad command-line usage; reported as one line with exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, no usage dump, exit 2 (handled in main)
        raise UsageError(f"{self.prog}: {message}")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="posbias",
        description="Derive, compute and check the theory of position bias in causal transformers.",
    )
    parser.add_argument("--version", action="version", version=f"posbias {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name in _SUBCOMMANDS:
        importlib.import_module(f"posbias.cli.{name}").add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        if not getattr(args, "func", None):
            parser.print_help(sys.stderr)
            return 2
        return int(args.func(args) or 0)
    except UsageError as exc:
        print(f"error: {exc}".replace("error: posbias", "posbias", 1), file=sys.stderr)
        return 2
    except (InvalidArgument, NeedsExtra) as exc:
        print(f"posbias: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 1
    except KeyboardInterrupt:
        print("posbias: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
