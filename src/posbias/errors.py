"""Errors raised by posbias at its boundaries (CLI and public functions)."""

from __future__ import annotations

__all__ = ["InvalidArgument", "NeedsExtra"]


class InvalidArgument(ValueError):
    """A parameter has a value outside its domain.

    The message names the parameter, shows the value and says what is allowed, in one line:

    >>> str(InvalidArgument("length", 0, "an integer >= 1"))
    'length = 0 is invalid: expected an integer >= 1'
    """

    def __init__(self, parameter: str, value: object, allowed: str):
        self.parameter = parameter
        self.value = value
        self.allowed = allowed
        shown = value if isinstance(value, str) else repr(value)
        if isinstance(shown, str) and len(shown) > 80:
            shown = shown[:77] + "..."
        super().__init__(f"{parameter} = {shown} is invalid: expected {allowed}")


class NeedsExtra(ImportError):
    """An optional dependency is missing; the message names the extra to install.

    >>> str(NeedsExtra("plot", "matplotlib"))
    "matplotlib is not installed: install the 'plot' extra (pip install 'posbias[plot]')"
    """

    def __init__(self, extra: str, module: str):
        self.extra = extra
        self.module = module
        super().__init__(
            f"{module} is not installed: install the '{extra}' extra "
            f"(pip install 'posbias[{extra}]')"
        )
