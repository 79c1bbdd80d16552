"""Reading inputs with a byte cap and writing results through ONE atomic writer.

Every output of the command line (reports, LaTeX, CSV, JSON, plots) goes through
:func:`write_output`, and every target is checked up front with :func:`check_target` before the
expensive work starts.  The rules:

- ``None`` or ``-`` is standard output (text or bytes);
- the target must be a regular file or not exist yet; a symbolic link is *followed* (its target
  is written, the link stays), a directory, device, FIFO or socket is refused;
- the name's extension must match the format (``report.json`` for ``json``, ``plot.png`` for a
  PNG picture): a PNG is never written under a ``.txt`` name;
- the file is written to a temporary file in the same directory and renamed over the target, so
  a failed run never leaves a half-written file; its permissions follow the umask (an existing
  file keeps its mode);
- every failure is an :class:`~posbias.errors.InvalidArgument` naming the parameter (one line,
  exit status 2 on the command line).

Reading: :func:`read_bounded` reads a regular file of at most ``max_bytes`` bytes (special files
such as ``/dev/zero`` are refused; the cap is enforced on the bytes read, not on the size the
file system reports).
"""

from __future__ import annotations

import os
import stat
import sys
import tempfile
from collections.abc import Iterable
from typing import TypeAlias

from posbias.errors import InvalidArgument

# the bounded readers live in the bottom layer (posbias.validation) so that every route can use
# them; they are re-exported here for the front door
from posbias.validation import check_readable, read_bounded, read_json_bounded

__all__ = [
    "SUFFIXES",
    "check_readable",
    "check_target",
    "check_writable",
    "format_of_suffix",
    "read_bounded",
    "read_json_bounded",
    "write_output",
]

#: the file name extensions each output format may be written under
SUFFIXES = {
    "text": (".txt", ".text", ".log", ".out", ""),
    "table": (".txt", ".text", ".log", ".out", ""),
    "json": (".json",),
    "csv": (".csv",),
    "md": (".md", ".markdown"),
    "latex": (".tex",),
    "tex": (".tex",),
    "junit": (".xml",),
    "png": (".png",),
    "pdf": (".pdf",),
    "svg": (".svg",),
}

#: what an output parameter accepts: a path, or None / ``-`` for standard output
PathArg: TypeAlias = "str | os.PathLike[str] | None"


def format_of_suffix(path: str, choices: Iterable[str]) -> str | None:
    """The first format of ``choices`` whose extensions include ``path``'s, else None."""
    ext = os.path.splitext(path)[1].lower()
    for fmt in choices:
        if ext in SUFFIXES.get(fmt, ()):
            return fmt
    return None


def _is_stdout(path: object) -> bool:
    return path is None or path == "-"


def _resolve(path: object, parameter: str) -> str:
    """The file that writing ``path`` replaces: the final target of a chain of links."""
    if isinstance(path, os.PathLike):
        path = os.fspath(path)
    if not isinstance(path, str) or not path or "\x00" in path:
        raise InvalidArgument(parameter, path, "a non-empty file path (or - for standard output)")
    try:
        return os.path.realpath(path)
    except (OSError, ValueError) as exc:  # e.g. a loop of links
        raise InvalidArgument(parameter, path, f"a resolvable file path ({exc})") from None


def check_target(path: PathArg, fmt: str | None = None, parameter: str = "output") -> str | None:
    """Fail early, before any work, when ``path`` cannot receive output in format ``fmt``.

    Returns the real path that will be written (None for standard output).

    >>> check_target("-", "json") is None
    True
    >>> check_target("plot.txt", "png")
    Traceback (most recent call last):
    ...
    posbias.errors.InvalidArgument: output = plot.txt is invalid: expected a file name ending in .png for png output
    """
    if path is None or _is_stdout(path):
        return None
    real = _resolve(path, parameter)
    if fmt is not None:
        allowed = SUFFIXES.get(fmt)
        if allowed is not None and os.path.splitext(os.fspath(path))[1].lower() not in allowed:
            shown = " or ".join(s for s in allowed if s) + (" (or no extension)" if "" in allowed else "")
            raise InvalidArgument(parameter, path, f"a file name ending in {shown} for {fmt} output")
    try:
        st = os.stat(real)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise InvalidArgument(parameter, path, f"an accessible path ({exc.strerror})") from None
    if st is not None:
        if stat.S_ISDIR(st.st_mode):
            raise InvalidArgument(parameter, path, "a file path, not a directory")
        if not stat.S_ISREG(st.st_mode):
            raise InvalidArgument(parameter, path, "a regular file (not a device, FIFO or socket); "
                                  "use - for standard output")
        if not os.access(real, os.W_OK):
            raise InvalidArgument(parameter, path, "a writable path")
    directory = os.path.dirname(real) or "."
    if not os.path.isdir(directory):
        raise InvalidArgument(parameter, path, "a path in an existing directory")
    if not os.access(directory, os.W_OK | os.X_OK):
        raise InvalidArgument(parameter, path, "a writable path (its directory is not writable)")
    return real


def check_writable(path: PathArg, parameter: str = "output", fmt: str | None = None) -> None:
    """:func:`check_target` without a format (kept for callers that check only the place)."""
    check_target(path, fmt, parameter)


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def write_output(data: str | bytes, path: PathArg, parameter: str = "output", *,
                 fmt: str | None = None) -> None:
    """Write ``data`` to ``path`` atomically (temporary file + rename), or to standard output
    when ``path`` is None or ``-``.  Text gets a final newline on standard output.

    The target is checked as in :func:`check_target`; a write error (disk full, a directory that
    became unwritable) is reported as :class:`InvalidArgument` and leaves nothing behind.
    """
    if _is_stdout(path):
        try:
            if isinstance(data, bytes):
                sys.stdout.buffer.write(data)
            else:
                sys.stdout.write(data)
                if data and not data.endswith("\n"):
                    sys.stdout.write("\n")
            sys.stdout.flush()
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise InvalidArgument(parameter, "-", f"a writable standard output ({exc.strerror})") from None
        return
    real = check_target(path, fmt, parameter)
    assert real is not None  # standard output was written above
    directory = os.path.dirname(real) or "."
    payload = data if isinstance(data, bytes) else data.encode("utf-8")
    try:
        mode = stat.S_IMODE(os.stat(real).st_mode)
    except OSError:
        mode = 0o666 & ~_umask()
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=".posbias-", dir=directory)
        with os.fdopen(fd, "wb") as fh:
            fh.write(payload)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, real)
        tmp = None
    except OSError as exc:
        raise InvalidArgument(parameter, path, f"a writable path ({exc.strerror or exc})") from None
    finally:
        if tmp is not None and os.path.lexists(tmp):
            os.unlink(tmp)
