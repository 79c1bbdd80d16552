"""What a run may use and what it will need: the memory limit of this process and the plan of
a run (its estimated peak memory and wall time) that refuses, before any work, what cannot fit.

The limit is the smallest of: ``--max-memory`` (or ``max_memory=`` in the Python API) when
given, else the machine's physical memory, the container's cgroup limit and what the
address-space limit (``ulimit -v``) leaves.  A :class:`Plan` lists the parts of a run with
their bytes and seconds; :meth:`Plan.check` raises
:class:`~posbias.errors.ResourceLimit` (exit status 2 on the command line, one line) when the
total exceeds the limit.

>>> p = Plan("example", [("inputs", 3 * 2**20, 0.5), ("output", 2**20, 0.1)])
>>> p.bytes, round(p.seconds, 2)
(4194304, 0.6)
>>> p.check(max_memory=2**20)
Traceback (most recent call last):
...
posbias.errors.ResourceLimit: needs about 4 MiB; --max-memory allows 1 MiB; example: use a smaller run (or raise --max-memory)
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import Executor, ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Literal, NoReturn, TypeVar

from posbias.errors import ResourceLimit
from posbias.numbers import byte_size, duration

#: the older name of :func:`posbias.numbers.byte_size`
human = byte_size

_T = TypeVar("_T")
_R = TypeVar("_R")

__all__ = [
    "PROGRESS_EVERY",
    "LineProgress",
    "Plan",
    "Terminated",
    "accelerator_memory",
    "check_memory",
    "duration",
    "end_workers",
    "human",
    "map_in_processes",
    "memory_limit",
    "terminate_on_sigterm",
    "usable_cores",
]


def _physical_memory() -> int | None:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):  # pragma: no cover - non-POSIX
        return None


def _cgroup_memory() -> int | None:
    for path in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        try:
            with open(path) as fh:
                text = fh.read(64).strip()
        except OSError:
            continue
        if text.isdigit() and int(text) < 2**60:
            return int(text)
    return None


def _address_space_limit(resident: int = 0) -> int | None:
    try:
        import resource  # POSIX only

        soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    except (ImportError, OSError, ValueError):  # pragma: no cover
        return None
    if soft == resource.RLIM_INFINITY or soft <= 0:
        return None
    # what is already mapped (the interpreter, numpy, ...) is not available to the run
    try:
        with open("/proc/self/statm") as fh:
            used = int(fh.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        used = 0
    return max(soft - used + resident, 0)


def memory_limit(max_memory: int | None = None, *, resident: int = 0) -> tuple[int | None, str]:
    """The bytes a run may use and where that figure comes from.  ``resident``: bytes of the
    run's plan that this process already holds (the weights of a model loaded before its
    measurement is planned); the address-space limit counts what is mapped, so they are
    given back to it, to compare with a plan that counts them."""
    if max_memory is not None:
        return max_memory, "--max-memory"
    found = [(v, what) for v, what in ((_physical_memory(), "this machine has"),
                                       (_cgroup_memory(), "this container may use"),
                                       (_address_space_limit(resident), "the address-space limit (ulimit -v) leaves"))
             if v is not None]
    if not found:
        return None, ""
    return min(found)



def check_memory(needed: float, max_memory: int | None, advice: str) -> None:
    """Refuse in one line (exit status 2) when ``needed`` bytes exceed what the run may use."""
    limit, source = memory_limit(max_memory)
    if limit is None or needed <= limit:
        return
    if max_memory is not None:
        source = "--max-memory allows"
    raise ResourceLimit(needed, limit, source, advice + " (or raise --max-memory)")




def accelerator_memory(device: str) -> tuple[int | None, str]:
    """The total memory of an accelerator as torch reports it, and where the figure comes from:
    ``(bytes, "cuda:N has")`` for a CUDA device that is there, ``(None, "")`` otherwise (a
    device that is not there is refused where it is named; MPS reports no total)."""
    if not device.startswith("cuda"):
        return None, ""
    import torch  # the models extra

    index = int(device.split(":")[1]) if ":" in device else 0
    if not torch.cuda.is_available() or index >= torch.cuda.device_count():
        return None, ""
    return int(torch.cuda.get_device_properties(index).total_memory), f"{device} has"


@dataclass
class Plan:
    """The plan of a run: named parts ``(name, bytes, seconds)``; memory adds up (the parts are
    alive together: a conservative peak), and so does time.  ``placement`` maps the name of a
    part that lives on an accelerator to that device (``"cuda:0"``); every other part is the
    host's.  :attr:`bytes` is the host's share, :meth:`per_device` every device's, and
    :meth:`check` holds each against its own limit."""

    what: str
    parts: list = field(default_factory=list)
    advice: str = "use a smaller run"
    placement: dict = field(default_factory=dict)

    def per_device(self) -> dict[str, int]:
        """Bytes per device, the host (``"cpu"``) first."""
        out = {"cpu": 0}
        for name, b, _ in self.parts:
            dev = self.placement.get(name, "cpu")
            out[dev] = out.get(dev, 0) + int(b)
        return out

    @property
    def bytes(self) -> int:
        """The host's bytes (all of them when nothing is placed on an accelerator)."""
        return self.per_device()["cpu"]

    @property
    def seconds(self) -> float:
        return float(sum(s for _, _, s in self.parts))

    def check(self, max_memory: int | None = None) -> Plan:
        """Refuse (ResourceLimit) when the plan does not fit on the host (``max_memory`` or
        the machine) or on an accelerator (its total memory); returns the plan."""
        check_memory(self.bytes, max_memory, f"{self.what}: {self.advice}")
        for dev, needed in self.per_device().items():
            limit, source = accelerator_memory(dev) if dev != "cpu" else (None, "")
            if limit is not None and needed > limit:
                raise ResourceLimit(needed, limit, source, f"{self.what}: {self.advice}",
                                    device=dev)
        return self

    def describe(self) -> str:
        """The plan in lines: each part (and where it lives, when not on the host), then the
        total (for ``-v``)."""
        lines = [f"plan of {self.what}:"]
        for name, b, s in self.parts:
            dev = self.placement.get(name)
            lines.append(f"  {name}{' on ' + dev if dev else ''}: {byte_size(b)}, {duration(s)}")
        limit, source = memory_limit()
        lim = f" (limit {byte_size(limit)}: {source})" if limit else ""
        lines.append(f"  total: about {byte_size(self.bytes)} on the host{lim}, about "
                     f"{duration(self.seconds)}")
        for dev, b in self.per_device().items():
            if dev != "cpu":
                acc, acc_source = accelerator_memory(dev)
                cap = f" ({acc_source} {byte_size(acc)})" if acc is not None else ""
                lines.append(f"  on {dev}: about {byte_size(b)}{cap}")
        return "\n".join(lines)

    def as_dict(self) -> dict:
        return {"what": self.what, "bytes": self.bytes, "seconds": round(self.seconds, 1),
                "per_device": self.per_device(),
                "parts": [{"name": n, "bytes": int(b), "seconds": round(float(s), 1),
                           "device": self.placement.get(n, "cpu")}
                          for n, b, s in self.parts]}


def usable_cores() -> int:
    """The CPUs this process may run on: its affinity (``os.sched_getaffinity``) where the
    platform has one, else the machine's count; at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not on Linux
        return max(1, os.cpu_count() or 1)



# ----------------------------------------------------------------------------- worker processes
class Terminated(KeyboardInterrupt):
    """The process received SIGTERM: raised in the main thread so that worker processes are
    ended and temporary files removed on the way out, as on Ctrl-C."""


def _on_sigterm(signum: int, frame: object) -> NoReturn:  # pragma: no cover - exercised through a subprocess in the tests
    raise Terminated()


def terminate_on_sigterm() -> Callable[[], object]:
    """Turn SIGTERM into :class:`Terminated` in this (main) thread; a handler the embedding
    program installed is left alone.  Returns a function that restores the previous handler."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    old = signal.getsignal(signal.SIGTERM)
    if old not in (signal.SIG_DFL, None):
        return lambda: None
    signal.signal(signal.SIGTERM, _on_sigterm)
    return lambda: signal.signal(signal.SIGTERM, old)


def end_workers(pool: Executor) -> None:
    """End the worker processes of a ``concurrent.futures.ProcessPoolExecutor`` now (SIGTERM,
    then SIGKILL after a second) and drop its queued tasks: what leaving a pool must do on an
    interruption, since the executor's own exit waits for every running task to finish."""
    procs = list(getattr(pool, "_processes", {}).values())
    for p in procs:
        if p.is_alive():
            p.terminate()
    for p in procs:
        p.join(1.0)
        if p.is_alive():
            p.kill()
            p.join(1.0)
    pool.shutdown(wait=False, cancel_futures=True)


def map_in_processes(fn: Callable[[_T], _R], items: Iterable[_T], workers: int, *,
                     initializer: Callable[..., object] | None = None,
                     initargs: tuple[Any, ...] = ()) -> list[_R]:
    """``[fn(x) for x in items]`` in ``workers`` fresh (spawned) processes, in order; on any
    interruption (Ctrl-C, SIGTERM, a failing task) the workers are ended, not waited for.
    ``initializer(*initargs)`` runs once in each worker (a queue made by :func:`spawn_queue`
    may travel there this way)."""
    tasks = list(items)
    pool = ProcessPoolExecutor(max_workers=min(workers, len(tasks)),
                               mp_context=multiprocessing.get_context("spawn"),
                               initializer=initializer, initargs=initargs)
    try:
        out = list(pool.map(fn, tasks))
    except BaseException:
        end_workers(pool)
        raise
    pool.shutdown(wait=True)
    return out


def spawn_queue() -> Any:
    """A queue that the workers of :func:`map_in_processes` can write to (through its
    ``initializer``) and the parent read from."""
    return multiprocessing.get_context("spawn").Queue()


#: seconds between two progress lines when standard error is not a terminal (a log, a pipe)
PROGRESS_EVERY = 60.0


class LineProgress:
    """Progress of a long run where standard error is not a terminal (a log, a batch job):
    ``desc: n/total (p%), T elapsed, about E left [postfix]`` when :data:`PROGRESS_EVERY`
    seconds have passed since the last line, and a last line at the end of a run that printed
    any (a run shorter than that prints nothing).  The ETA comes from the rate since the start
    (items done before it, ``initial``, as a resumed run has, do not count).  It answers what
    the command line's and the trainings' progress bars are asked: ``update``, ``n``,
    ``set_postfix_str``, ``set_postfix`` and ``close``, and is a context manager."""

    def __init__(self, total: int, desc: str, initial: int = 0) -> None:
        self.total, self.desc = max(int(total), 0), desc
        self.n = self.initial = int(initial)
        self.start = self.last = time.monotonic()
        self.printed = False
        self.postfix = ""

    def __enter__(self) -> LineProgress:
        return self

    def __exit__(self, *exc: object) -> Literal[False]:
        self.close()
        return False

    def _line(self, now: float) -> None:
        elapsed = now - self.start
        share = f" ({100 * self.n / self.total:.0f}%)" if self.total else ""
        left = ""
        if self.initial < self.n < self.total:
            left = (f", about {duration(elapsed / (self.n - self.initial) * (self.total - self.n))}"
                    " left")
        extra = f" [{self.postfix}]" if self.postfix else ""
        print(f"{self.desc}: {self.n}/{self.total}{share}, {duration(elapsed)} elapsed{left}"
              f"{extra}", file=sys.stderr, flush=True)
        self.last, self.printed = now, True

    def update(self, n: int = 1) -> None:
        self.n += n
        now = time.monotonic()
        if now - self.last >= PROGRESS_EVERY and self.n < self.total:
            self._line(now)

    def set_postfix_str(self, s: str = "") -> None:
        self.postfix = s

    def set_postfix(self, ordered_dict: dict | None = None, **kwargs: object) -> None:
        items = {**(ordered_dict or {}), **kwargs}
        self.postfix = ", ".join(f"{k}={v}" for k, v in items.items())

    def close(self) -> None:
        if self.printed and self.n >= self.total:
            self._line(time.monotonic())
            self.printed = False
