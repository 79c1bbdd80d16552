"""Loading a pretrained causal language model and its tokenizer, and per-block gradient
checkpointing for the influence measurement.

:func:`load_checkpoint` loads ``transformers.AutoModelForCausalLM`` and ``AutoTokenizer`` from a
local directory or from the local Hugging Face cache (``local_files_only=True`` unless
``allow_download``), on the CPU (then moved to ``device``: ``cpu`` by default, or an accelerator),
in ``float32`` or ``bfloat16``, in evaluation mode with every
parameter frozen (``requires_grad = False``: the measurement differentiates with respect to the
input embeddings only, so no weight gradient is ever formed).

:func:`block_checkpointing` wraps the ``forward`` of every decoder block in
``torch.utils.checkpoint.checkpoint`` (non-reentrant): the backward pass keeps only the input of
each block and recomputes the block, so the activation memory of a gradient pass is that of
one block plus ``T`` block inputs (``T x L x d`` numbers) instead of ``T`` whole blocks.  The
model's own ``gradient_checkpointing_enable`` acts only in training mode, which would switch
dropout on; wrapping the blocks keeps evaluation mode.

torch and transformers are the ``models`` extra, imported inside the functions.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING, Any

from posbias.errors import InvalidArgument
from posbias.measurements.devices import resolve_device
from posbias.measurements.hooks import locate_blocks, quiet_transformers, require_models_extra
from posbias.measurements.sharding import (
    DEVICE_MAPS,
    check_devices_present,
    plan_device_map,
    require_accelerate,
)

if TYPE_CHECKING:  # torch is the optional ``models`` extra, imported where it is used
    from torch.nn import Module
    from transformers import PreTrainedModel

__all__ = [
    "CHECKPOINT_DTYPES",
    "LoadedCheckpoint",
    "block_checkpointing",
    "hf_cache_dir",
    "load_checkpoint",
]

CHECKPOINT_DTYPES = ("float32", "bfloat16")


@dataclass
class LoadedCheckpoint:
    """A loaded model: ``model``, ``tokenizer``, the ``source`` string the user gave, the
    ``location`` it was read from (a directory, or ``"<cache dir> (model NAME)"``), ``dtype``
    and the attention implementation transformers chose."""

    model: PreTrainedModel
    tokenizer: object
    source: str
    location: str
    dtype: str
    attn_implementation: str
    #: module name -> device (``int`` GPU, ``"cpu"``, ``"disk"``) when loaded with a device map
    device_map: dict | None = None
    #: the weights' bytes on each device of the map
    device_bytes: dict | None = None


def hf_cache_dir() -> str:
    """The Hugging Face hub cache directory transformers reads (``HF_HUB_CACHE``/``HF_HOME``
    aware), as ``huggingface_hub`` resolves it."""
    try:
        from huggingface_hub import constants  # the models extra

        return str(constants.HF_HUB_CACHE)
    except Exception:  # pragma: no cover - huggingface_hub comes with transformers
        return os.path.join(os.path.expanduser("~"), ".cache", "huggingface", "hub")


def _looks_like_path(name: str) -> bool:
    """A hub name is ``name`` or ``org/name``; anything else is meant as a path."""
    return name.startswith((".", "/", "~")) or name.count("/") > 1 or (os.sep != "/" and os.sep in name)


def load_checkpoint(model: str, *, dtype: str = "float32", allow_download: bool = False,
                    attn_implementation: str | None = None, random_init: bool = False,
                    seed: int = 0, device: str = "cpu", device_map: str | None = None,
                    max_memory: dict | None = None,
                    offload_folder: str | None = None) -> LoadedCheckpoint:
    """Load the causal LM ``model`` (a local directory, or a hub name found in the local cache)
    and its tokenizer (on the CPU unless ``device`` says otherwise).

    Parameters
    ----------
    model : str
        a directory written by ``save_pretrained`` (config, weights, tokenizer files), or a
        model name such as ``bigscience/bloom-560m`` present in the local cache
        (:func:`hf_cache_dir`).
    dtype : str
        ``"float32"`` (default) or ``"bfloat16"``.
    allow_download : bool
        fetch a name that is not in the cache (``local_files_only=False``).
    attn_implementation : str, optional
        passed to transformers when given (default: transformers' choice, ``sdpa`` where the
        architecture has it, else ``eager``).
    random_init : bool
        build the checkpoint's architecture from its config with freshly initialized weights
        (``torch.manual_seed(seed)`` first) instead of loading the trained weights: the Step-0
        model of the same architecture (chowdhury2026).
    seed : int
        the seed of ``random_init``.
    device : str
        ``"cpu"`` (default), ``"cuda"``, ``"cuda:N"``, ``"mps"`` or ``"auto"``
        (:func:`posbias.measurements.devices.resolve_device`): the model is loaded (or
        initialized, seeded) on the CPU and moved there.
    device_map : str, optional
        shard and offload through accelerate (:mod:`posbias.measurements.sharding`): one of
        ``auto``, ``balanced``, ``balanced_low_0``, ``sequential``; the map is computed on the
        ``meta`` device before any weight is read, and ``device`` must then be ``cpu`` or
        ``auto`` (the map places every block).
    max_memory : dict, optional
        with ``device_map``: bytes per device (GPU index, ``"cpu"``, ``"mps"``).
    offload_folder : str, optional
        with ``device_map``: where blocks that fit on no device are kept (on disk); without it
        such a map is refused.

    Raises
    ------
    InvalidArgument
        for a model that cannot be found, naming ``model`` and where it was looked for; nothing
        is downloaded unless ``allow_download``.
    """
    torch, transformers = require_models_extra()
    device = _check_load(model, dtype, allow_download, random_init, seed, device, device_map,
                         max_memory, offload_folder)
    where, location = _where(model)
    local = not allow_download
    kwargs: dict[str, Any] = {"local_files_only": local}
    if attn_implementation is not None:
        kwargs["attn_implementation"] = attn_implementation
    with _quiet_loading(transformers):
        tokenizer = _tokenizer(transformers, model, where, location, local)
        try:
            if tokenizer is None:
                raise OSError(f"no tokenizer of {model} in the local cache")
            net, placed, per_device = _network(torch, transformers, where, dtype, kwargs,
                                               random_init, seed, device_map, max_memory,
                                               offload_folder)
        except InvalidArgument:  # the device map's own refusal, as it stands
            raise
        except RuntimeError as exc:  # the config contradicts the weights (size mismatch)
            reason = " ".join(str(exc).split())[:200]
            raise InvalidArgument("model", model, "a checkpoint whose weights fit its config.json "
                                  f"({reason})") from None
        except pickle.UnpicklingError:
            # a pickled .bin with more than tensors: torch's weights-only loader refuses it,
            # and posbias never loads weights any other way
            raise InvalidArgument("model", model, "a checkpoint whose weights load without "
                                  "running code (safetensors, or a .bin of tensors only; "
                                  f"weights-only loading refused the .bin in {location})"
                                  ) from None
        except (OSError, ValueError, KeyError, TypeError) as exc:
            # TypeError: a config.json field of the wrong type (rope_theta "x") meets the
            # model's construction
            raise _not_loadable(model, location, allow_download, exc) from None
        except Exception as exc:
            # huggingface_hub's field checks of config.json, and a weight file whose
            # safetensors header is malformed (its own exception types, named here so that
            # neither package is imported for them)
            if type(exc).__name__.startswith(("StrictDataclass", "SafetensorError")):
                raise _not_loadable(model, location, allow_download, exc) from None
            raise
    net.eval()
    net.requires_grad_(False)
    if placed is None:
        net.to(device)
    impl = getattr(net.config, "_attn_implementation", None) or "eager"
    return LoadedCheckpoint(net, tokenizer, model, location, dtype, str(impl), placed, per_device)


def _check_load(model: str, dtype: str, allow_download: bool, random_init: bool, seed: int,
                device: str, device_map: str | None, max_memory: dict | None,
                offload_folder: str | None) -> str:
    """The arguments of :func:`load_checkpoint` checked (one line naming the first bad one);
    returns the device the model is loaded on (the CPU under a device map)."""
    if not isinstance(model, str) or not model:
        raise InvalidArgument("model", model, "a checkpoint directory or a model name")
    if dtype not in CHECKPOINT_DTYPES:
        raise InvalidArgument("dtype", dtype, "one of " + ", ".join(CHECKPOINT_DTYPES))
    for key, value in (("allow_download", allow_download), ("random_init", random_init)):
        if not isinstance(value, bool):
            raise InvalidArgument(key, value, "True or False")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise InvalidArgument("seed", seed, "an integer >= 0")
    if device_map is not None:
        if device_map not in DEVICE_MAPS:
            raise InvalidArgument("device_map", device_map, "one of " + ", ".join(DEVICE_MAPS))
        if device not in ("cpu", "auto"):
            raise InvalidArgument("device", device, "cpu or auto with a device map (the map "
                                  "places every block)")
        require_accelerate(device_map)
        if max_memory:
            check_devices_present(max_memory)
    elif max_memory is not None or offload_folder is not None:
        raise InvalidArgument("max_memory" if max_memory is not None else "offload_folder",
                              max_memory if max_memory is not None else offload_folder,
                              "no value without device_map")
    return resolve_device("cpu" if device_map is not None else device)[0]


def _where(model: str) -> tuple[str, str]:
    """``(what transformers loads from, where posbias looked)``: a checkpoint directory (with a
    config.json), or a hub name in the local cache; a path that is not such a directory is
    refused."""
    expanded = os.path.expanduser(model)
    if os.path.isdir(expanded):
        location = os.path.abspath(expanded)
        if not os.path.isfile(os.path.join(expanded, "config.json")):
            raise InvalidArgument("model", model, f"a checkpoint directory with a config.json "
                                  f"(looked in {location})")
        return expanded, location
    if os.path.exists(expanded) or _looks_like_path(model):
        raise InvalidArgument("model", model, f"an existing checkpoint directory (looked at "
                              f"{os.path.abspath(expanded)})")
    return model, f"{hf_cache_dir()} (model {model})"


@contextlib.contextmanager
def _quiet_loading(transformers: ModuleType) -> Iterator[None]:
    """transformers' progress bars off and its logging at the error level while a checkpoint
    loads, both restored after."""
    bars = transformers.utils.logging.is_progress_bar_enabled()
    transformers.utils.logging.disable_progress_bar()
    try:
        with quiet_transformers(transformers), warnings.catch_warnings():
            # torch's note on a .bin's pickle protocol, before its refusal names the file
            warnings.filterwarnings("ignore", message="Detected pickle protocol",
                                    category=UserWarning)
            yield
    finally:
        if bars:
            transformers.utils.logging.enable_progress_bar()


def _tokenizer(transformers: ModuleType, model: str, where: str, location: str,
               local: bool) -> Any:
    """The checkpoint's tokenizer; None for a hub name without one (reported with the model);
    a directory without its tokenizer files is refused naming them."""
    try:
        tokenizer = transformers.AutoTokenizer.from_pretrained(where, local_files_only=local)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        if os.path.isdir(where):  # the model is there: name the missing tokenizer
            reason = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:160]
            raise InvalidArgument("model", model, "a checkpoint directory with its tokenizer "
                                  f"files (tokenizer.json or vocabulary files; {location}: "
                                  f"{reason})") from None
        return None
    if (getattr(tokenizer, "vocab_size", 0) or 0) < 2:
        # transformers builds an empty tokenizer for a folder without tokenizer files
        raise InvalidArgument("model", model, "a checkpoint directory with its tokenizer files "
                              f"(tokenizer.json or vocabulary files; {location} has none: the "
                              "tokenizer found there is empty)")
    return tokenizer


def _network(torch: ModuleType, transformers: ModuleType, where: str, dtype: str,
             kwargs: dict[str, Any], random_init: bool, seed: int, device_map: str | None,
             max_memory: dict | None, offload_folder: str | None
             ) -> tuple[Any, dict[str, Any] | None, dict[str, int] | None]:
    """``(model, device map placement, bytes per device)``: the trained weights, or the
    architecture freshly initialized (``random_init``, seeded), placed by the device map when
    there is one (computed on the meta device before any weight is read)."""
    local = kwargs["local_files_only"]
    placed = per_device = None
    if device_map is not None:
        config = transformers.AutoConfig.from_pretrained(where, local_files_only=local)
        placed, _, per_device = plan_device_map(config, dtype=dtype, device_map=device_map,
                                                max_memory=max_memory,
                                                offload_folder=offload_folder)
    if random_init:
        config = transformers.AutoConfig.from_pretrained(where, local_files_only=local)
        torch.manual_seed(seed)
        net = transformers.AutoModelForCausalLM.from_config(
            config, dtype=getattr(torch, dtype),
            **{k: v for k, v in kwargs.items() if k != "local_files_only"})
        if placed is not None:
            import accelerate  # the models extra (device maps)

            net.eval()
            net = accelerate.dispatch_model(net, device_map=placed, offload_dir=offload_folder)
    elif placed is not None:
        net = transformers.AutoModelForCausalLM.from_pretrained(
            where, dtype=getattr(torch, dtype), device_map=placed,
            offload_folder=offload_folder, **kwargs)
    else:
        net = transformers.AutoModelForCausalLM.from_pretrained(
            where, dtype=getattr(torch, dtype), **kwargs)
    return net, placed, per_device


def _not_loadable(model: str, location: str, allow_download: bool,
                  exc: BaseException) -> InvalidArgument:
    """The one-line refusal of a model transformers could not load, saying where posbias looked
    (and that nothing is downloaded without ``allow_download``)."""
    expanded = os.path.expanduser(model)
    looked = location if os.path.isdir(expanded) else (
        f"the local Hugging Face cache {hf_cache_dir()} (no directory "
        f"{os.path.abspath(expanded)} either)"
        + ("" if allow_download else "; pass --allow-download to fetch it"))
    reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    if len(reason) > 160:
        reason = reason[:157] + "..."
    return InvalidArgument("model", model, f"a loadable causal LM with its tokenizer "
                           f"(looked in {looked}: {reason})")


@contextlib.contextmanager
def block_checkpointing(model: Module) -> Iterator[int]:
    """Within the context, every decoder block of ``model`` runs under non-reentrant
    ``torch.utils.checkpoint.checkpoint``: its activations are recomputed in the backward pass
    instead of being kept.  Values and gradients are unchanged (same operations, same order);
    hooks on the modules inside a block fire again when the backward pass recomputes it, so
    recorders that read the forward pass pause before the backward pass (``after_forward`` of
    :func:`~posbias.measurements.measure.influence_profile`)."""
    import torch.utils.checkpoint as cp  # the models extra

    blocks, _, _ = locate_blocks(model)
    saved = []
    for block in blocks:
        original = block.forward

        def forward(*args, _original=original, **kwargs):
            return cp.checkpoint(_original, *args, use_reentrant=False,
                                 preserve_rng_state=False, **kwargs)

        saved.append((block, "forward" in vars(block), original))
        block.forward = forward
    try:
        yield len(blocks)
    finally:
        for block, had_own, original in saved:
            if had_own:
                block.forward = original
            else:
                del block.forward
