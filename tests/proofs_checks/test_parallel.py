"""Claims and tasks in worker processes and on Dask (proofs_checks.parallel): the same results as
a serial run, in the same order, with each claim's seed unchanged; bad worker counts and
scheduler addresses rejected with the parameter named."""

import json
import sys
import textwrap
import time

import pytest

from posbias.cli import main
from posbias.errors import InvalidArgument
from posbias.proofs_checks import parallel, registry

QUICK = ["posbias:content-as-residual", "posbias:hausdorff", "herasimchyk2026:stochastic"]

USER_CLAIMS = '''
import random
from posbias.proofs_checks import Evidence, claim

@claim("parlab:seeded", statement="a seeded draw", latex="x", expected="verified")
def _seeded(ctx):
    draw = random.Random(ctx.seed).random()
    return Evidence("verified", method="seeded draw", discrepancy=repr(draw),
                    parameters={"seed": ctx.seed, "dps": ctx.dps})

@claim("parlab:differs", statement="a verdict that differs", latex="y", expected="verified")
def _differs(ctx):
    return Evidence("refuted", method="always refuted", counterexample="by design")
'''


def _strip(x):
    """A report without its timings (the only part a parallel run may change)."""
    if isinstance(x, dict):
        return {k: _strip(v) for k, v in x.items() if "seconds" not in k}
    if isinstance(x, list):
        return [_strip(v) for v in x]
    return x


@pytest.fixture
def user_module(tmp_path, monkeypatch):
    (tmp_path / "parlab_claims.py").write_text(textwrap.dedent(USER_CLAIMS))
    monkeypatch.syspath_prepend(str(tmp_path))
    yield "parlab_claims"
    registry.unregister("parlab:seeded")
    registry.unregister("parlab:differs")
    sys.modules.pop("parlab_claims", None)


@pytest.mark.parametrize("bad", ["0", "-1", "two", "", 0, True, 2.0, "1e3"])
def test_resolve_workers_rejects(bad):
    with pytest.raises(InvalidArgument) as e:
        parallel.resolve_workers(bad)
    assert e.value.parameter == "workers"


def test_resolve_workers_auto_is_the_usable_cpu_count():
    assert parallel.resolve_workers("auto") >= 1
    assert parallel.resolve_workers(None) == 1


def test_map_tasks_keeps_order_in_processes():
    seen = []
    out = parallel.map_tasks(abs, [-3, 1, -4, 1, -5], workers=2, progress=lambda i, r: seen.append(i))
    assert out == [3, 1, 4, 1, 5]
    assert sorted(seen) == [0, 1, 2, 3, 4]


def test_check_in_workers_equals_serial_with_user_claims_and_seeds(user_module, capsys):
    argv = ["check", "--import", user_module, "--format", "json", "--quiet", "--seed", "777",
            "parlab:seeded", "parlab:differs", *QUICK]
    code_serial = main(argv)
    serial = json.loads(capsys.readouterr().out)
    code_par = main([*argv, "-n", "2"])
    par = json.loads(capsys.readouterr().out)
    assert code_serial == code_par == 1  # parlab:differs differs from its expected verdict
    assert _strip(serial) == _strip(par)
    seeded = par["claims"][0]
    assert seeded["id"] == "parlab:seeded"
    import random

    assert seeded["evidence"]["discrepancy"] == repr(random.Random(777).random())
    assert [c["id"] for c in par["claims"]] == ["parlab:seeded", "parlab:differs", *QUICK]


@pytest.mark.parametrize("argv, parameter", [
    (["-n", "0"], "-n"),
    (["-n", "many"], "-n"),
    (["--scheduler", "nonsense"], "--scheduler"),
    # malformed addresses reached Dask's parser and ended as internal errors (exit 3)
    (["--scheduler", "tcp://"], "--scheduler"),
    (["--scheduler", "tcp://localhost:99999"], "--scheduler"),
    (["--scheduler", "tcp://256.1.1.1:8786"], "--scheduler"),
    (["--scheduler", "tcp://a\nb:1"], "--scheduler"),
    (["--scheduler", "tcp://[::1"], "--scheduler"),
    (["--scheduler", "inproc://x"], "--scheduler"),
    (["--scheduler", "ucx://h:1"], "--scheduler"),
    (["--scheduler", "tls://127.0.0.1:1"], "--scheduler"),
    (["--scheduler", "tcp://host:0"], "--scheduler"),
    (["--scheduler", "tcp://-bad-.example:8786"], "--scheduler"),
])
def test_check_parallel_bad_usage_is_one_line_exit_2(argv, parameter, capsys):
    code = main(["check", "--quiet", "posbias:hausdorff", *argv])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith(f"posbias: error: {parameter} = ")


@pytest.mark.parametrize("text, address", [
    ("tcp://10.0.0.5:8786", "tcp://10.0.0.5:8786"),
    ("node7:8786", "tcp://node7:8786"),
    (" tcp://node-7.cluster.example:08786 ", "tcp://node-7.cluster.example:8786"),
    ("tcp://[::1]:8786", "tcp://[::1]:8786"),
    ("tcp://[fe80::1]:1", "tcp://[fe80::1]:1"),
    ("local", "local"),
])
def test_scheduler_addresses_dask_takes_are_kept(text, address):
    assert parallel.scheduler_address(text) == address


@pytest.mark.parametrize("text", ["", "tcp://", ":8786", "tcp://host", "tcp://host:", "tcp://host:x",
                                  "tcp://host:65536", "tcp://host:123456", "tcp://ho st:1",
                                  "tcp://höst:1", "tcp://1.2.3:1", "tcp://[::g]:1", "tcp://::1:1",
                                  "tcp://" + "a" * 64 + ":1", "tls://h:1", "ws://h:1", None, 8786])
def test_scheduler_addresses_dask_cannot_take_are_refused_naming_the_parameter(text):
    with pytest.raises(InvalidArgument) as info:
        parallel.scheduler_address(text)
    assert info.value.parameter == "scheduler" and "\n" not in str(info.value)


def test_an_unreachable_scheduler_is_one_line_exit_2_with_posbias_own_words(monkeypatch, capsys):
    """Dask's connection error (its text, retries and address) is not echoed: the message says
    which address did not answer and for how long it was tried."""
    distributed = pytest.importorskip("distributed")

    def refuse(address, timeout=None):
        assert address == "tcp://127.0.0.1:9" and timeout == "20s"
        raise OSError("Timed out trying to connect to tcp://127.0.0.1:9 after 20 s\nline two")

    monkeypatch.setattr(distributed, "Client", refuse)
    code = main(["check", "--quiet", "-n", "2", "--scheduler", "tcp://127.0.0.1:9", "posbias:hausdorff"])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err == ("posbias: error: --scheduler = tcp://127.0.0.1:9 is invalid: expected a reachable "
                   "Dask scheduler (none answered at tcp://127.0.0.1:9 within 20 s)\n")


def test_claims_on_a_dask_local_cluster_of_two_workers(capsys):
    distributed = pytest.importorskip("distributed")
    t0 = time.perf_counter()
    ctx = registry.CheckContext()
    claims = [registry.get_claim(c) for c in QUICK]
    serial = [registry.run_claim(c, ctx) for c in claims]
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        assert len(cluster.workers) == 2
        results = parallel.run_claims(claims, ctx, scheduler=cluster.scheduler_address)
        # the command line sends the claims to the same cluster
        code = main(["check", "--quiet", "--format", "json", "--scheduler", cluster.scheduler_address, *QUICK])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and [c["status"] for c in out["claims"]] == ["verified"] * 3
    assert [r.claim.id for r in results] == QUICK
    assert [_strip(r.as_dict()) for r in results] == [_strip(r.as_dict()) for r in serial]
    assert time.perf_counter() - t0 < 120


def test_a_claim_the_workers_cannot_import_is_inconclusive_not_a_crash():
    @registry.claim("parlocal:inline", statement="registered inside a function", latex="z", expected="verified")
    def _inline(ctx):
        return registry.Evidence("verified", method="trivial")

    try:
        ctx = registry.CheckContext()
        r, q = parallel.run_claims([registry.get_claim("parlocal:inline"),
                                    registry.get_claim("posbias:content-as-residual")], ctx, workers=2)
        assert r.evidence.verdict == "inconclusive" and not r.ok and q.ok
        assert "--import" in r.evidence.details["error"]
        (r,) = parallel.run_claims([registry.get_claim("parlocal:inline")], ctx, workers=1)
        assert r.evidence.verdict == "verified"  # in process the claim is found
    finally:
        registry.unregister("parlocal:inline")
