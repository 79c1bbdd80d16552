"""Where the measurements and trainings compute: ``"cpu"``, ``"cuda"``, ``"cuda:N"``, ``"mps"``
or ``"auto"`` (CUDA when torch sees a CUDA device, else Apple's MPS when available, else the CPU).

Every random draw (weights, token ids, probes, training batches, test sets) is made on the CPU
by the seeded ``torch.Generator`` objects of the routes, exactly as in a CPU run, and only then
moved to the device: a run on an accelerator computes the same function of the same numbers,
and differs from the CPU run only by the rounding of its kernels.  Readings that need float64
(norms of the mixing coefficients, probability gradients, accuracies) are taken after a move
back to the CPU, so that devices without float64 (MPS) give them too.  Checkpoints are written
with every tensor on the CPU: a run saved on a GPU resumes on the CPU and the other way round.

Tolerances of an accelerator against the CPU (the tests marked ``gpu`` hold them): float32
influence profiles and mixing coefficients agree to 5 significant digits (relative 1e-5 of
each entry, absolute 1e-7 of a profile summing to 1), float32 training losses of a few steps to
1e-4 relative (AdamW amplifies rounding differences step by step), bfloat16 checkpoint
profiles to 2e-2 relative (bfloat16 holds 3 significant digits; accumulation order differs
between kernels).

:func:`check_device` validates the spelling without importing torch; :func:`resolve_device`
checks that the device is there and returns its canonical name.
"""

from __future__ import annotations

import re
import types

from posbias.errors import InvalidArgument

__all__ = ["DEVICES", "DEVICE_TOLERANCES", "check_device", "resolve_device"]

#: the spellings :func:`check_device` accepts
DEVICES = ("auto", "cpu", "cuda", "cuda:N", "mps")

#: (relative, absolute) agreement of an accelerator with the CPU, per quantity and dtype
DEVICE_TOLERANCES = {
    ("profile", "float32"): (1e-5, 1e-7),
    ("lambda", "float32"): (1e-5, 1e-7),
    ("loss", "float32"): (1e-4, 1e-6),
    ("profile", "bfloat16"): (2e-2, 1e-4),
}

_ALLOWED = "auto, cpu, cuda, cuda:N (N a GPU index) or mps"


def check_device(name: str, value: object) -> str:
    """``value`` as a canonical device spelling (lower case, no spaces), or
    :class:`~posbias.errors.InvalidArgument` naming ``name``; availability is not checked
    (see :func:`resolve_device`).

    >>> check_device("device", " CUDA:1 ")
    'cuda:1'
    >>> check_device("device", "tpu")
    Traceback (most recent call last):
    ...
    posbias.errors.InvalidArgument: device = tpu is invalid: expected auto, cpu, cuda, cuda:N (N a GPU index) or mps
    """
    if not isinstance(value, str):
        raise InvalidArgument(name, value, _ALLOWED)
    text = value.strip().lower()
    if text in ("auto", "cpu", "cuda", "mps") or re.fullmatch(r"cuda:(0|[1-9][0-9]{0,3})", text):
        return text
    raise InvalidArgument(name, value, _ALLOWED)


def _mps_available(torch: types.ModuleType) -> bool:
    backend = getattr(torch.backends, "mps", None)
    return bool(backend is not None and backend.is_available())


def resolve_device(value: object, name: str = "device") -> tuple[str, str]:
    """``(device, why)``: the canonical torch device name for ``value`` (``"cpu"``,
    ``"cuda:N"``, ``"mps"``) and a few words on how it was chosen; a device that is not there
    raises :class:`~posbias.errors.InvalidArgument` naming ``name``.  ``"cuda"`` means the
    current CUDA device (``cuda:0`` unless torch was told otherwise).

    >>> resolve_device("cpu")
    ('cpu', 'as asked')
    """
    text = check_device(name, value)
    if text == "cpu":
        return "cpu", "as asked"
    import torch  # the models extra

    cuda = torch.cuda.is_available()
    count = torch.cuda.device_count() if cuda else 0
    if text == "auto":
        if cuda:
            return f"cuda:{torch.cuda.current_device()}", f"CUDA available ({count} device(s))"
        if _mps_available(torch):
            return "mps", "MPS available, no CUDA"
        return "cpu", "no CUDA or MPS device found"
    if text == "mps":
        if not _mps_available(torch):
            raise InvalidArgument(name, value, "a device that is present (torch sees no MPS "
                                  "device here; use cpu or auto)")
        return "mps", "as asked"
    if not cuda:
        raise InvalidArgument(name, value, "a device that is present (torch sees no CUDA device "
                              "here; use cpu or auto)")
    index = torch.cuda.current_device() if text == "cuda" else int(text.split(":")[1])
    if index >= count:
        raise InvalidArgument(name, value, f"a CUDA index below {count} (the GPUs torch sees)")
    return f"cuda:{index}", "as asked"
