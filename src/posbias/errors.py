"""Errors raised by posbias at its boundaries (CLI and public functions)."""

from __future__ import annotations

from posbias.numbers import byte_size

__all__ = ["InvalidArgument", "NeedsExtra", "ResourceLimit", "one_line"]

#: the longest explanation an error message carries (a library's message quoted in it is cut)
MESSAGE_CHARS = 400


def one_line(text: object, limit: int = MESSAGE_CHARS) -> str:
    r"""``text`` as one line of printable characters, at most ``limit`` long: line breaks and
    tabs become spaces, every other character that is not printable (a terminal escape, a
    bidirectional override) its escape, and a longer text is cut with ``...``.  Text quoted
    from a library's exception or from a refused file can then neither break the one-line
    contract of an error nor drive the terminal.

    >>> one_line("expected 1\nfound \x1b[31mred")
    'expected 1 found \\x1b[31mred'
    >>> len(one_line("x" * 1000, 20))
    20
    """
    out = []
    for c in str(text):
        if c.isprintable():
            out.append(c)
        elif c in "\n\r\t\v\f":
            out.append(" ")
        else:
            out.append(repr(c)[1:-1])
    line = "".join(out)
    return line if len(line) <= limit else line[: limit - 3] + "..."


class InvalidArgument(ValueError):
    """A parameter has a value outside its domain.

    The message names the parameter, shows the value and says what is allowed, in one line:

    >>> str(InvalidArgument("length", 0, "an integer >= 1"))
    'length = 0 is invalid: expected an integer >= 1'
    """

    def __init__(self, parameter: str, value: object, allowed: str) -> None:
        self.parameter = parameter
        self.value = value
        self.allowed = allowed
        # a string is shown as typed unless it holds control characters or line breaks (then
        # escaped, so that the message stays one line)
        shown = value if isinstance(value, str) and value.isprintable() else repr(value)
        if isinstance(shown, str) and len(shown) > 80:  # keep both ends: a path's file name
            shown = shown[:38] + "..." + shown[-39:]
        super().__init__(f"{parameter} = {shown} is invalid: expected {one_line(allowed)}")


class NeedsExtra(ImportError):
    """An optional dependency is missing; the message names the extra to install.

    >>> str(NeedsExtra("plot", "matplotlib"))
    "matplotlib is not installed: install the 'plot' extra (pip install 'posbias[plot]')"
    """

    def __init__(self, extra: str, module: str) -> None:
        self.extra = extra
        self.module = module
        super().__init__(
            f"{module} is not installed: install the '{extra}' extra "
            f"(pip install 'posbias[{extra}]')"
        )


class ResourceLimit(ValueError):
    """A requested computation would need more memory than the run may use; raised before any
    work starts, from an estimate of the run's size.

    >>> str(ResourceLimit(35 * 2**30, 24 * 2**30, "this machine has", "use --summary or a smaller L"))
    'needs about 35 GiB; this machine has 24 GiB; use --summary or a smaller L'
    >>> str(ResourceLimit(3 * 2**30, 2**30, "--max-memory 0 allows", "use a smaller L",
    ...                   device="cuda:0"))
    'needs about 3 GiB on cuda:0; --max-memory 0 allows 1 GiB; use a smaller L'
    """

    def __init__(self, needed: float, limit: float, source: str, advice: str, *,
                 device: str | None = None) -> None:
        self.needed = needed
        self.limit = limit
        self.device = device
        where = f" on {device}" if device else ""
        super().__init__(f"needs about {byte_size(needed)}{where}; {source} {byte_size(limit)}; "
                         f"{advice}")

