"""What every subcommand shares: the one table from library parameter names to flags, the
common options (``-o/--output``, ``-f/--format``, ``-q/--quiet``, ``-v/--verbose``, ``--seed``,
``--dps``, ``--max-memory``, ``--debug``, ``--version``), the resource estimate that refuses a
run which cannot fit before any work starts, and progress with an ETA on a terminal.
"""

from __future__ import annotations

import argparse
import re
import sys
import textwrap
from collections.abc import Iterable
from typing import Any, Literal, Protocol

from tqdm import tqdm

from posbias import __version__
from posbias.errors import InvalidArgument
from posbias.measurements.sharding import parse_device_memory

# memory_limit and check_memory live in posbias.resources (the bottom layer), so that the Python
# entry points refuse what cannot fit exactly as the command line does; the subcommands take
# them from here
from posbias.resources import LineProgress, check_memory, memory_limit
from posbias.validation import MAX_DPS, MIN_DPS, parse_size

__all__ = [
    "OPTION",
    "SEED_MAX",
    "ProgressBar",
    "add_common",
    "add_output",
    "check_memory",
    "dps_type",
    "flag_error",
    "flag_of",
    "memory_limit",
    "progress",
    "seed_type",
]

#: library (Python) parameter names -> the flag a user types: the one table of the command line.
#: The library names its parameters (``length``, ``dps``, ``schedule``); the command line shows
#: its own flags.  Every error that reaches :func:`posbias.cli.main` is shown through it
#: (:func:`flag_error`); a subcommand whose flag differs for a name passes ``rename``.
OPTION = {
    # shared
    "output": "--output", "format": "--format", "seed": "--seed", "dps": "--dps",
    "max_dps": "--max-dps", "max_memory": "--max-memory", "plot": "--plot",
    "threads": "--threads", "device": "--device", "resume": "--resume", "ablate": "--ablate",
    "scheduler": "--scheduler",
    # profile
    "length": "--length", "depth": "--depth", "alpha": "--alpha", "schedule": "--schedule",
    "digits": "--digits", "fractions": "--fractions",
    # rollout
    "convention": "--convention", "model": "--model", "d_head": "--d-head",
    # check / list
    "paper": "--paper", "data_dir": "--data-dir", "import": "--import",
    # latex
    "only": "--only",
    # measure --arch
    "arch": "--arch", "layers": "--layers", "hidden": "--hidden", "heads": "--heads",
    "kv_heads": "--kv-heads", "vocab": "--vocab", "probes": "--probes", "samples": "--samples",
    "metric": "--metric", "rope": "--rope", "dtype": "--dtype", "probe_dist": "--probe-dist",
    "exact": "--exact", "kernel_inputs": "--kernel-inputs", "attention": "--attention",
    # measure --model
    "text": "--text", "windows": "--text", "device_map": "--device-map",
    "offload_folder": "--offload-folder", "batch_size": "--batch-size", "route": "--route",
    # train
    "mask": "--mask", "pe": "--pe", "residual": "--residual", "iterations": "--iterations",
    "lr": "--lr", "weight_decay": "--weight-decay", "batch": "--batch",
    "train_bias": "--train-bias", "eval_every": "--eval-every", "test_size": "--test-size",
    "influence_samples": "--record-influence", "seeds": "--seeds", "jobs": "--jobs",
    "source": "--corpus", "corpus": "--corpus", "max_documents": "--max-documents",
    "boundary_samples": "--boundary-windows",
}


def flag_error(exc: InvalidArgument, rename: dict | None = None) -> InvalidArgument:
    """``exc`` with its parameter shown as the command-line flag (one table: :data:`OPTION`)."""
    table = dict(OPTION, **(rename or {}))
    flag = table.get(exc.parameter)
    if flag is None or exc.parameter.startswith("-"):
        return exc
    return InvalidArgument(flag, exc.value, exc.allowed)


def flag_of(dest: str) -> str:
    """The flag of a parsed option: its :data:`OPTION` entry, else argparse's own spelling of
    the destination (``no_checkpointing`` is ``--no-checkpointing``)."""
    return OPTION.get(dest) or "--" + dest.replace("_", "-")


# ---------------------------------------------------------------------------------------------
# argument types (argparse calls them; an error is one line with exit status 2)

def _plain_int(text: object, name: str, lo: int, hi: int) -> int:
    digits = str(text).strip()
    if not re.fullmatch(r"[0-9]{1,30}", digits) or not lo <= int(digits) <= hi:
        raise argparse.ArgumentTypeError(f"{text!r} is invalid: expected an integer between {lo} and {hi}")
    return int(digits)


def dps_type(text: object) -> int:
    """``--dps``: an integer in ``MIN_DPS..MAX_DPS`` (the package's one range)."""
    return _plain_int(text, "--dps", MIN_DPS, MAX_DPS)


#: seeds are 32-bit unsigned integers (numpy and torch accept them all)
SEED_MAX = 2**32 - 1


def seed_type(text: object) -> int:
    """``--seed``: an integer in ``0..2^32-1``."""
    return _plain_int(text, "--seed", 0, SEED_MAX)


def memory_type(text: object) -> Any:
    """``--max-memory``: bytes, with an optional unit (``512M``, ``8G``, ``1.5GiB``); or bytes per
    device, ``DEVICE=SIZE,...`` (``0=20G,cpu=64G``), for ``measure --model --device-map``
    (a :class:`~posbias.measurements.sharding.DeviceMemory`)."""
    if "=" in str(text):
        try:
            return parse_device_memory(str(text))
        except InvalidArgument as exc:
            raise argparse.ArgumentTypeError(f"{text!r} is invalid: expected {exc.allowed}") from None
    value = parse_size(text)
    if value is None:
        raise argparse.ArgumentTypeError(f"{text!r} is invalid: expected a size such as 512M or 8G")
    if value < 2**20:
        raise argparse.ArgumentTypeError(f"{text!r} is invalid: expected at least 1M")
    return value


# ---------------------------------------------------------------------------------------------
# the common options

class _Formatter(argparse.RawDescriptionHelpFormatter):
    """Help with the description (wrapped by :func:`add_common`) and the example as written."""


def add_output(p: argparse.ArgumentParser, formats: Iterable[str], default: str | None, *,
               help_output: str = "write the result here (atomically) instead of standard "
               "output; - is standard output", aliases: dict[str, str] | None = None) -> None:
    """``-o/--output`` and ``-f/--format`` with the package's format names."""
    aliases = aliases or {}
    names = tuple(formats)
    choices = names + tuple(aliases)

    def fmt(text: object) -> str:
        text = str(text).strip().lower()
        if text not in choices:
            raise argparse.ArgumentTypeError(
                f"{text!r} is invalid: expected one of {', '.join(names)}")
        return aliases.get(text, text)

    p.add_argument("-f", "--format", type=fmt, default=default, metavar="FORMAT",
                   help="one of " + ", ".join(names))
    p.add_argument("-o", "--output", metavar="FILE", default=None, help=help_output)


def add_common(p: argparse.ArgumentParser, name: str, example: str) -> None:
    """``-q``, ``-v``, ``--max-memory``, ``--debug``, ``--version`` (those not defined yet), the
    help formatter showing defaults, and the example."""
    p.formatter_class = _Formatter
    p.epilog = f"example:\n  {example}"
    if p.description:
        p.description = textwrap.fill(" ".join(p.description.split()), 90)
    present: set[str] = set()
    for action in p._actions:
        present.update(action.option_strings)
        # show a default that means something (not None, not off) where the help omits it
        if (action.help and action.help != argparse.SUPPRESS and action.default not in (None, False)
                and action.default != argparse.SUPPRESS and "default" not in action.help):
            action.help += " (default: %(default)s)"

    def add(*flags: str, **kwargs: Any) -> None:
        """Add the option unless a subcommand defines it (or its short form) itself."""
        if not present.intersection(flags):
            p.add_argument(*flags, **kwargs)

    add("-q", "--quiet", action="store_true", help="no progress on standard error")
    add("-v", "--verbose", action="store_true", help="full evidence in text reports (no truncation)")
    add("--max-memory", type=memory_type, metavar="SIZE", default=None,
        help="memory the run may use (e.g. 8G); default: what this machine has")
    add("--debug", action="store_true", help="show the traceback of an internal error")
    add("--version", action="version", version=f"posbias {__version__} ({name})")


# ---------------------------------------------------------------------------------------------
# progress

class ProgressBar(Protocol):
    """What :func:`progress` returns: a context manager counting finished items."""

    def __enter__(self) -> ProgressBar: ...

    def __exit__(self, *exc: object) -> bool | None: ...

    def update(self, n: int = 1) -> bool | None: ...

    def set_postfix_str(self, s: str = "") -> None: ...

    def close(self) -> None: ...


def progress(total: int, desc: str, quiet: bool = False) -> ProgressBar:
    """A progress bar with an ETA on standard error when it is a terminal (``tqdm``); without a
    terminal (a log, a batch job) a line with the count, the time so far and the ETA once a
    minute, so that a run longer than a minute is not silent there; nothing with ``quiet``.  Use
    as ``with progress(n, "claims") as bar: bar.update(1)``."""
    if quiet:
        return _Silent()
    if not sys.stderr.isatty():
        return LineProgress(total, desc)
    bar: ProgressBar = tqdm(total=total, desc=desc, file=sys.stderr, leave=False,
                            dynamic_ncols=True)
    return bar


class _Silent:
    def __enter__(self) -> _Silent:
        return self

    def __exit__(self, *exc: object) -> Literal[False]:
        return False

    def update(self, n: int = 1) -> None:
        pass

    def set_postfix_str(self, s: str = "") -> None:
        pass

    def close(self) -> None:
        pass
