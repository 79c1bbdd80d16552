"""Writing results: atomically, so that a failed run never leaves a half-written file."""

from __future__ import annotations

import os
import sys
import tempfile

from posbias.errors import InvalidArgument

__all__ = ["write_output", "check_writable"]


def check_writable(path: str, parameter: str = "--output") -> None:
    """Fail early (before any work) when ``path`` cannot be written."""
    directory = os.path.dirname(os.path.abspath(path)) or "."
    if os.path.isdir(path):
        raise InvalidArgument(parameter, path, "a file path, not a directory")
    if not os.path.isdir(directory):
        raise InvalidArgument(parameter, path, "a path in an existing directory")
    if not os.access(directory, os.W_OK) or (os.path.exists(path) and not os.access(path, os.W_OK)):
        raise InvalidArgument(parameter, path, "a writable path")


def write_output(data: str | bytes, path: str | None, parameter: str = "--output") -> None:
    """Write ``data`` to ``path`` atomically (temp file + rename), or to stdout when ``path`` is
    None or ``-``."""
    if path is None or path == "-":
        if isinstance(data, bytes):
            sys.stdout.buffer.write(data)
        else:
            sys.stdout.write(data)
            if data and not data.endswith("\n"):
                sys.stdout.write("\n")
        sys.stdout.flush()
        return
    check_writable(path, parameter)
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".posbias-", dir=directory)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data if isinstance(data, bytes) else data.encode("utf-8"))
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
