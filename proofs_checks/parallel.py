"""Running independent tasks in worker processes or on a Dask cluster: claim checks and sweeps.

Grid work in posbias is embarrassingly parallel (a claim check, one point of a parameter grid),
so one small runner serves both ``posbias check -n N`` and ``posbias sweep``:

- ``workers=1`` and no scheduler: in this process, in order (the serial reference);
- ``workers=N > 1`` (or ``"auto"``: the CPUs this process may use): a pool of ``N`` fresh
  processes (``spawn``: nothing of the parent's threads or BLAS state is inherited);
- ``scheduler="tcp://host:8786"``: tasks go to an existing ``dask.distributed`` cluster (the
  ``scale`` extra); ``scheduler="local"`` starts a ``LocalCluster`` of ``N`` worker processes.

Every task is a module-level function of plain, picklable arguments, so that it runs the same
wherever it lands; results come back in the order of the tasks whatever order they finish in.
A claim task carries the claim id, the :class:`~posbias.proofs_checks.registry.CheckContext` (its
seed unchanged: each claim sees the seed of a serial run) and the user modules to import, and
returns the evidence, so that a parallel run reports what the serial run reports (the seconds
aside).  Worker processes run one BLAS/OpenMP thread each (``threadpoolctl``), so that ``N``
workers use ``N`` cores.
"""

from __future__ import annotations

import importlib
import ipaddress
import multiprocessing
import re
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import TYPE_CHECKING, Any

from threadpoolctl import threadpool_limits

from posbias.errors import InvalidArgument, NeedsExtra
from posbias.proofs_checks import registry
from posbias.resources import end_workers, usable_cores

if TYPE_CHECKING:
    from posbias.proofs_checks.registry import CheckContext, Claim

__all__ = ["claim_task", "map_tasks", "resolve_workers", "run_claims", "scheduler_address"]


def resolve_workers(value: int | str | None) -> int:
    """``workers`` as a positive integer: an integer ``>= 1`` or ``"auto"`` (the CPUs available
    to this process, ``os.sched_getaffinity`` where the platform has it).

    >>> resolve_workers(3), resolve_workers("2")
    (3, 2)
    >>> resolve_workers("0")
    Traceback (most recent call last):
    ...
    posbias.errors.InvalidArgument: workers = 0 is invalid: expected an integer >= 1 or 'auto'
    """
    if value is None:
        return 1
    if isinstance(value, str):
        text = value.strip()
        if text == "auto":
            return usable_cores()
        if text.isascii() and text.isdigit() and 1 <= int(text) <= 4096:
            return int(text)
        raise InvalidArgument("workers", value, "an integer >= 1 or 'auto'")
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 4096:
        raise InvalidArgument("workers", value, "an integer >= 1 or 'auto'")
    return value


def _single_threaded() -> None:
    """Worker start-up: one BLAS/OpenMP thread (threadpoolctl), so N workers use N cores."""
    threadpool_limits(limits=1)


#: one label of a host name (RFC 1123): letters, digits and inner hyphens, at most 63
_HOST_LABEL = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?")
_ADDRESS = "a Dask scheduler address tcp://HOST:PORT (PORT 1 to 65535) or 'local'"


def _host(host: str) -> bool:
    """Whether ``host`` is a bracketed IPv6 address, a dotted IPv4 address or a host name."""
    if host.startswith("[") and host.endswith("]"):
        try:
            ipaddress.IPv6Address(host[1:-1])
        except ValueError:
            return False
        return True
    if host and all(c.isdigit() or c == "." for c in host):  # digits only: an IPv4 address
        try:
            ipaddress.IPv4Address(host)
        except ValueError:
            return False
        return True
    return (0 < len(host) <= 253 and host.isascii()
            and all(_HOST_LABEL.fullmatch(label) for label in host.split(".")))


def scheduler_address(value: object) -> str:
    """The Dask scheduler address ``value`` in the form ``tcp://HOST:PORT`` (``HOST:PORT`` is
    read as TCP, as Dask reads it), or ``"local"``; anything else is refused naming
    ``scheduler`` before a connection is tried.  Only TCP is taken: ``tls://`` needs a
    security configuration and ``ucx://``, ``inproc://`` a transport that posbias does not
    set up.

    >>> scheduler_address("tcp://10.0.0.5:8786"), scheduler_address("node7:8786")
    ('tcp://10.0.0.5:8786', 'tcp://node7:8786')
    >>> scheduler_address("tcp://[::1]:8786")
    'tcp://[::1]:8786'
    >>> scheduler_address("tcp://256.1.1.1:8786")
    Traceback (most recent call last):
    ...
    posbias.errors.InvalidArgument: scheduler = tcp://256.1.1.1:8786 is invalid: expected a Dask scheduler address tcp://HOST:PORT (PORT 1 to 65535) or 'local'
    """
    if not isinstance(value, str):
        raise InvalidArgument("scheduler", value, _ADDRESS)
    text = value.strip()
    if text == "local":
        return text
    protocol, sep, rest = text.partition("://")
    if not sep:
        protocol, rest = "tcp", text
    if protocol != "tcp":
        raise InvalidArgument("scheduler", value, "a tcp:// address or 'local' (tls://, ucx:// "
                              "and inproc:// need a security or transport set-up that posbias "
                              "does not make)")
    host, sep, port = rest.rpartition(":")
    if (not sep or not port.isascii() or not port.isdigit() or len(port) > 5
            or not 1 <= int(port) <= 65535 or not _host(host)):
        raise InvalidArgument("scheduler", value, _ADDRESS)
    return f"tcp://{host}:{int(port)}"


def _dask_client(scheduler: str, workers: int) -> tuple[Any, Any]:
    address = scheduler_address(scheduler)  # refused before the optional import
    try:
        from distributed import Client, LocalCluster  # the scale extra
    except ImportError:
        raise NeedsExtra("scale", "dask.distributed") from None
    if address == "local":
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                               dashboard_address=None)
        return Client(cluster), cluster
    try:
        return Client(address, timeout="20s"), None
    except OSError:  # Dask retries until the timeout: refused, unreachable, not resolved
        raise InvalidArgument("scheduler", scheduler, "a reachable Dask scheduler (none "
                              f"answered at {address} within 20 s)") from None


def map_tasks(fn: Callable, items: Sequence, *, workers: int | str | None = 1, scheduler: str | None = None,
              progress: Callable[[int, Any], None] | None = None) -> list:
    """``[fn(x) for x in items]``, in worker processes or on a Dask cluster; results in order.

    ``fn`` must be a module-level function and ``items`` picklable.  ``progress(i, result)`` is
    called in this process as each task finishes (``i`` its index in ``items``).

    >>> map_tasks(abs, [-2, 3, -5])
    [2, 3, 5]
    """
    items = list(items)
    n = resolve_workers(workers)
    out: list = [None] * len(items)
    if scheduler is None and (n == 1 or len(items) <= 1):
        for i, x in enumerate(items):
            out[i] = fn(x)
            if progress:
                progress(i, out[i])
        return out
    if scheduler is not None:
        client, cluster = _dask_client(scheduler, n)
        try:
            client.run(_single_threaded)
            futures = client.map(fn, items, pure=False)
            index = {f.key: i for i, f in enumerate(futures)}
            from distributed import as_completed as dask_completed  # the scale extra

            for fut in dask_completed(futures):
                i = index[fut.key]
                out[i] = fut.result()
                if progress:
                    progress(i, out[i])
        finally:
            client.close()
            if cluster is not None:
                cluster.close()
        return out

    ctx = multiprocessing.get_context("spawn")

    pool = ProcessPoolExecutor(max_workers=min(n, len(items)), mp_context=ctx,
                               initializer=_single_threaded)
    try:
        futures = {pool.submit(fn, x): i for i, x in enumerate(items)}
        for fut in as_completed(futures):
            i = futures[fut]
            out[i] = fut.result()
            if progress:
                progress(i, out[i])
    except BaseException:  # Ctrl-C, SIGTERM, a failing task: the workers must not run on
        end_workers(pool)
        raise
    pool.shutdown(wait=True)
    return out


# ----------------------------------------------------------------------------- claims
def claim_task(task: tuple) -> tuple:
    """Run one claim in a worker: ``(claim_id, ctx, imports) -> (evidence, seconds)``.

    The worker imports the user modules (they register their claims), finds the claim by id and
    runs it through :func:`~posbias.proofs_checks.registry.run_claim` with the very context a
    serial run would pass (same seed, precision, thoroughness).
    """
    claim_id, ctx, imports = task

    for name in imports:
        importlib.import_module(name)
    try:
        c = registry.get_claim(claim_id)
    except InvalidArgument as exc:  # registered in the parent only (e.g. inside a function)
        ev = registry.Evidence(
            "inconclusive", method="the worker process could not find the claim",
            details={"error": f"{exc}; register it in a module importable by the workers and "
                              f"pass that module with --import"})
        return ev, 0.0
    r = registry.run_claim(c, ctx)
    return r.evidence, r.seconds


def run_claims(claims: Iterable[Claim], ctx: CheckContext, *, workers: int | str | None = 1, scheduler: str | None = None,
               imports: Sequence[str] = (), progress: Callable | None = None) -> list:
    """The :class:`~posbias.proofs_checks.registry.Result` of every claim, in the given order,
    computed in ``workers`` processes or on the Dask cluster at ``scheduler``.

    ``imports``: the user modules that register claims (workers import them before looking a
    claim up).  ``progress(i, result)`` is called as each claim finishes.
    """
    claims = list(claims)
    tasks = [(c.id, ctx, tuple(imports)) for c in claims]
    results: list = [None] * len(claims)

    def done(i: int, value: tuple) -> None:
        ev, seconds = value
        results[i] = registry.Result(claims[i], ev, seconds)
        if progress:
            progress(i, results[i])

    map_tasks(claim_task, tasks, workers=workers, scheduler=scheduler, progress=done)
    return results
