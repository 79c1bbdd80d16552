"""Models larger than one device: a device map computed before any weight is loaded, per-device
memory budgets, offload to the CPU and to disk (through ``accelerate``).

:func:`plan_device_map` builds the checkpoint's architecture on the ``meta`` device (no memory,
no weights read), sizes every module at the chosen dtype and places whole decoder blocks
(``_no_split_modules``) on the devices of ``max_memory`` in order with accelerate's
``infer_auto_device_map``: ``sequential`` fills the first device before the next, ``balanced``
(and ``auto``, as in transformers) spreads the blocks evenly over the accelerators
(``get_balanced_memory``), ``balanced_low_0`` keeps the first GPU light.  What does not fit on
any device goes to ``disk``, which needs an offload folder; a map that needs disk without one
is refused, naming the weights' size and what the devices given hold.  The model is then
loaded (or, for a Step-0 model, initialized and dispatched) with exactly that map.

During the measurement accelerate's hooks bring each offloaded block's weights to its execution
device for its forward pass (and for its recomputation in the backward pass under
:func:`~posbias.measurements.checkpoint.block_checkpointing`), so one block's weights and one
block's activations are resident at a time; the gradient with respect to the input embeddings
is the same function as without offload (tested on the CPU with a budget that sends blocks to
disk).  ``torch.autograd.graph.save_on_cpu`` additionally parks the block inputs the backward
pass keeps in host memory (``offload_activations``).
"""

from __future__ import annotations

import re
from typing import Any

from posbias.errors import InvalidArgument
from posbias.numbers import byte_size
from posbias.validation import parse_size

__all__ = ["DEVICE_MAPS", "DeviceMemory", "check_devices_present", "describe_device_map",
           "parse_device_memory", "plan_device_map"]

#: the placements of ``--device-map``
DEVICE_MAPS = ("auto", "balanced", "balanced_low_0", "sequential")

class DeviceMemory(dict):
    """Bytes per device, accelerate's ``max_memory`` keys: GPU index ``int``, ``"cpu"``,
    ``"mps"``; :attr:`text` keeps what the user wrote."""

    text: str = ""


def _size(text: str, whole: str) -> int:
    value = parse_size(text)
    if value is None:
        raise InvalidArgument("max_memory", whole, "DEVICE=SIZE,... with sizes such as 512M or "
                              "8G")
    return value


def parse_device_memory(text: str) -> DeviceMemory:
    """``"0=20GiB,1=20GiB,cpu=64GiB"`` as a :class:`DeviceMemory`.  Devices: ``N`` or
    ``cuda:N`` (a GPU), ``cpu``, ``mps``; each at most once.  Whether the devices exist is
    checked by :func:`check_devices_present`.

    >>> dict(parse_device_memory("0=2G, cpu=512M"))
    {0: 2147483648, 'cpu': 536870912}
    """
    out = DeviceMemory()
    out.text = str(text)
    for part in str(text).split(","):
        if "=" not in part:
            raise InvalidArgument("max_memory", text, "DEVICE=SIZE,... (e.g. 0=20G,cpu=64G)")
        dev, size = (x.strip() for x in part.split("=", 1))
        low = dev.lower()
        m = re.fullmatch(r"(?:cuda:)?([0-9]{1,3})", low)
        key: int | str
        if m:
            key = int(m.group(1))
        elif low in ("cpu", "mps"):
            key = low
        else:
            raise InvalidArgument("max_memory", text, f"devices N, cuda:N, cpu or mps (not "
                                  f"{dev!r})")
        if key in out:
            raise InvalidArgument("max_memory", text, f"each device once ({dev!r} twice)")
        out[key] = _size(size, str(text))
    return out


def check_devices_present(memory: dict) -> None:
    """Refuse a budget for a device this machine does not have (naming ``max-memory``)."""
    import torch  # the models extra

    gpus = torch.cuda.device_count() if torch.cuda.is_available() else 0
    for key in memory:
        if isinstance(key, int) and key >= gpus:
            raise InvalidArgument("max_memory", getattr(memory, "text", memory),
                                  f"devices that are there (GPU {key} is not; this machine has "
                                  f"{gpus} CUDA device(s))")
        if key == "mps" and not (getattr(torch.backends, "mps", None)
                                 and torch.backends.mps.is_available()):
            raise InvalidArgument("max_memory", getattr(memory, "text", memory),
                                  "devices that are there (no MPS device here)")


def require_accelerate(value: object) -> Any:
    try:
        import accelerate  # the models extra (device maps)
    except ImportError:
        raise InvalidArgument("device_map", value, "the accelerate package installed (the "
                              "'models' extra brings it: pip install 'posbias[models]')") from None
    return accelerate


def plan_device_map(config: Any, *, dtype: str, device_map: str,
                    max_memory: dict | None = None, offload_folder: str | None = None
                    ) -> tuple[dict[str, Any], int, dict[str, int]]:
    """The device map of ``config``'s causal LM at ``dtype`` (see the module docstring), the
    weights' size in bytes and the bytes placed on each device (``"cpu"``, ``"cuda:N"``,
    ``"disk"``), computed on the ``meta`` device.  ``max_memory``: bytes per device
    (default: what accelerate finds free on every device); a device that is not there is
    refused (:func:`check_devices_present`).  Raises
    :class:`~posbias.errors.InvalidArgument` naming ``max_memory`` when blocks would need disk
    and ``offload_folder`` is None."""
    if device_map not in DEVICE_MAPS:
        raise InvalidArgument("device_map", device_map, "one of " + ", ".join(DEVICE_MAPS))
    accelerate = require_accelerate(device_map)
    if max_memory:
        check_devices_present(max_memory)
    # the models extra (accelerate for the device maps)
    import torch
    import transformers
    from accelerate.utils import compute_module_sizes, get_balanced_memory

    torch_dtype = getattr(torch, dtype)
    with accelerate.init_empty_weights():
        empty = transformers.AutoModelForCausalLM.from_config(config, dtype=torch_dtype)
    empty.tie_weights()  # tied embeddings and head are placed together
    no_split = list(getattr(empty, "_no_split_modules", None) or [])
    budget = dict(max_memory) if max_memory else None
    if device_map in ("auto", "balanced", "balanced_low_0"):
        budget = get_balanced_memory(empty, max_memory=budget, no_split_module_classes=no_split,
                                     dtype=torch_dtype, low_zero=device_map == "balanced_low_0")
    placed = accelerate.infer_auto_device_map(empty, max_memory=budget,
                                              no_split_module_classes=no_split,
                                              dtype=torch_dtype)
    sizes = compute_module_sizes(empty, dtype=torch_dtype)
    size = int(sizes[""])
    per_device: dict[str, int] = {}
    for name, dev in placed.items():
        key = _device_name(dev)
        per_device[key] = per_device.get(key, 0) + int(sizes.get(name, 0))
    if "disk" in placed.values() and offload_folder is None:

        held = sum(v for v in (max_memory or {}).values())
        raise InvalidArgument("max_memory", getattr(max_memory, "text", max_memory),
                              f"room for the weights (about {byte_size(size)} in {dtype}; "
                              + (f"the devices given hold {byte_size(held)}" if max_memory
                                 else "the devices here hold less")
                              + "), or --offload-folder DIR for the rest on disk")
    return dict(placed), size, per_device


def _device_name(dev: Any) -> str:
    return f"cuda:{dev}" if isinstance(dev, int) else str(dev)


def describe_device_map(placed: dict[str, Any], per_device: dict[str, int] | None = None) -> str:
    """``"cpu: 3 module(s) (60 KiB), disk: 2 module(s) (30 KiB)"`` in the order devices first
    appear (the sizes when ``per_device`` gives them)."""

    counts: dict[str, int] = {}
    for dev in placed.values():
        counts[_device_name(dev)] = counts.get(_device_name(dev), 0) + 1
    return ", ".join(f"{k}: {v} module(s)"
                     + (f" ({byte_size(per_device[k])})" if per_device and k in per_device else "")
                     for k, v in counts.items())
