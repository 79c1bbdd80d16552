"""`posbias profile` and `posbias sweep` with the attention-sink kernels: sink:ALPHA and
streaming:S,W on the exact, precise and fast paths (the three agree), the log-safe fast route at
long contexts, and bad kernel text as one line with exit status 2."""

from __future__ import annotations

import json
import math
from fractions import Fraction

import mpmath
import pytest

from posbias.cli import main
from posbias.numerics.rollout import kernel_profile_exact


def _run(capsys, *argv):
    code = main(["profile", *argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("kernel", ["sink:1/3", "sink:0", "sink:1", "streaming:2,3", "streaming:0,2"])
def test_three_paths_agree(capsys, kernel):
    base = ["--length", "9", "--depth", "3", "--alpha", "1/2", "--kernel", kernel, "-f", "json"]
    exact = json.loads(_run(capsys, *base, "--exact")[1])
    precise = json.loads(_run(capsys, *base, "--dps", "30")[1])
    fast = json.loads(_run(capsys, *base)[1])
    expected = kernel_profile_exact(9, kernel, [Fraction(1, 2)] * 3)
    assert [Fraction(x) for x in exact["profile"]] == expected
    with mpmath.workdps(30):
        assert all(abs(mpmath.mpf(p) - mpmath.mpmathify(q)) < mpmath.mpf(10) ** -27
                   for p, q in zip(precise["profile"], expected))
    assert all(abs(p - float(q)) <= 1e-15 for p, q in zip(fast["profile"], expected))
    assert exact["kernel"] == precise["kernel"] == fast["kernel"] == kernel


def test_fast_path_is_log_safe_far_below_float64(capsys):
    # streaming:1,2 attention only: the last token keeps 3^-700 ~ 1e-334 of its own influence
    code, out, _ = _run(capsys, "--length", "40", "--depth", "700", "--alpha", "1",
                        "--kernel", "streaming:1,2", "-f", "json")
    doc = json.loads(out)
    assert code == 0 and doc["profile"][-1] == 0.0  # below 2^-1074 as a float
    assert doc["log_profile"][-1] == pytest.approx(-700 * math.log(3), rel=1e-12)
    code, out, _ = _run(capsys, "--length", "5", "--depth", "800", "--alpha", "1",
                        "--kernel", "sink:0", "--summary")
    last = dict(line.split("  ") for line in out.splitlines()[2:])["last"]
    with mpmath.workdps(30):  # p(5) = 5^-800 ~ 6.668e-560, printed from the block exponents
        assert abs(mpmath.mpf(last) / mpmath.power(5, -800) - 1) < 1e-12


@pytest.mark.parametrize("kernel", ["sink:1.5", "streaming:0,0", "sink:nan", "sink:", "streaming:3",
                                    "sink:1/0", "streaming:1,-2", "sink:inf"])
def test_bad_kernel_text_is_one_line_exit_2(capsys, kernel):
    code, out, err = _run(capsys, "--length", "4", "--depth", "2", "--alpha", "1/2", "--kernel", kernel)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "--kernel" in err and kernel in err


def test_a_million_positions_on_the_fast_path(capsys):
    for kernel in ("sink:1/2", "streaming:4,1020"):
        code, out, _err = _run(capsys, "--length", "1000000", "--depth", "2", "--alpha", "0.1",
                              "--kernel", kernel, "--summary", "-f", "json")
        s = json.loads(out)["summary"]
        assert code == 0 and s["sum"] == pytest.approx(1.0, abs=1e-12), kernel
        assert s["last"] == pytest.approx((0.9 + 0.1 * (0.5 if kernel.startswith("sink") else 1)
                                           / (10**6 if kernel.startswith("sink") else 1024)) ** 2)


def test_sweep_takes_the_kernel(tmp_path, capsys):
    spec = tmp_path / "spec.yaml"
    spec.write_text("command: profile\ngrid:\n  kernel: [cesaro, 'sink:1/2', 'streaming:2,4']\n"
                    "  depth: [2, 4]\nfixed:\n  length: 64\n  alpha: 0.5\n")
    out = tmp_path / "t.json"
    assert main(["sweep", str(spec), "-f", "json", "-o", str(out), "-q"]) == 0
    rows = json.loads(out.read_text())["rows"]
    assert [r["kernel"] for r in rows] == ["cesaro"] * 2 + ["sink:1/2"] * 2 + ["streaming:2,4"] * 2
    sink = rows[2]
    p = kernel_profile_exact(64, "sink:1/2", [Fraction(1, 2)] * 2)
    assert sink["first"] == pytest.approx(float(p[0]), rel=1e-13)
    assert rows[4]["min"] == 0.0 and rows[4]["first_over_min"] == "inf"  # outside the support
    spec.write_text("command: profile\ngrid:\n  kernel: ['sink:1.5']\nfixed: {length: 8, depth: 2, "
                    "alpha: 0.5}\n")
    assert main(["sweep", str(spec), "-q"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "sink:1.5" in err
