"""Tests of ``posbias measure``: JSON and table output on tiny models, bad input as one line
with exit status 2, and the message naming the ``models`` extra when torch is missing."""

import json
import sys

import pytest

from posbias.cli import main


@pytest.fixture(autouse=True)
def _offline(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")


def _run(capsys, *argv):
    rc = main(["measure", *argv])
    out, err = capsys.readouterr()
    return rc, out, err


def test_json_output(capsys):
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    rc, out, err = _run(capsys, "--arch", "tiny-llama", "--length", "32", "--probes", "4",
                        "--samples", "2", "--format", "json")
    assert rc == 0, err
    data = json.loads(out)
    m, th = data["measurement"], data["theory"]
    assert m["length"] == 32 and len(m["profile"]) == 32
    assert abs(sum(m["profile"]) - 1) < 1e-5  # printed with 7 significant digits
    assert len(m["lambdas"]) == 3 and all(0 < x < 1 for x in m["lambdas"])
    assert m["settings"]["num_key_value_heads"] == 4 and m["estimator"] == "4 rademacher probes"
    assert 0 <= th["best_alpha"] <= 1 and -1 <= th["spearman_best_alpha"] <= 1
    assert th["w1_best_alpha"] <= th["w1_measured_lambda"] + 1e-12  # alpha minimizes W1
    assert len(th["profile_best_alpha"]) == 32
    assert "sample 2/2" in err  # progress on stderr


def test_table_output_rope_both_and_plot(capsys, tmp_path):
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    pytest.importorskip("matplotlib")
    plot = tmp_path / "profile.png"
    rc, out, err = _run(capsys, "--arch", "tiny-qwen2", "--length", "32", "--probes", "4",
                        "--rope", "both", "--plot", str(plot))
    assert rc == 0, err
    assert "RoPE on vs off: spearman" in out and "probe-noise floor" in out
    assert "Cesaro, measured lambda" in out and out.count("\n") > 15
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_top1_metric_and_exact(capsys):
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    rc, out, err = _run(capsys, "--arch", "tiny-gpt-neox", "--length", "16", "--metric",
                        "top1-grad", "--format", "json")
    assert rc == 0, err
    assert json.loads(out)["measurement"]["estimator"] == "exact gradient"
    rc, out, err = _run(capsys, "--arch", "tiny-bloom", "--length", "16", "--exact",
                        "--format", "json")
    assert rc == 0, err
    assert json.loads(out)["measurement"]["estimator"] == "exact"


BAD = [
    (["--arch", "unknown-arch"], "--arch = unknown-arch"),
    (["--arch", "tiny-gpt2", "--hidden", "30"], "--hidden = 30"),
    (["--arch", "tiny-gpt2", "--hidden", "30", "--heads", "4"], "--hidden = 30"),
    (["--arch", "tiny-gpt2", "--length", "0"], "--length = 0"),
    (["--arch", "tiny-gpt2", "--probes", "0"], "--probes = 0"),
    (["--arch", "tiny-gpt2", "--samples", "-1"], "--samples = -1"),
    (["--arch", "tiny-gpt2", "--threads", "0"], "--threads = 0"),
    (["--arch", "tiny-gpt2", "--rope", "off"], "--rope = off"),
    (["--arch", "tiny-bloom", "--rope", "both"], "--rope = both"),
    (["--arch", "tiny-qwen2", "--kv-heads", "3"], "--kv-heads = 3"),
    (["--arch", "tiny-gpt2", "--length", "ten"], "--length"),
    (["--arch", "tiny-gpt2", "--metric", "attention"], "--metric"),
    (["--length", "8"], "--arch"),
]


@pytest.mark.parametrize("argv,fragment", BAD)
def test_bad_input_is_one_line_exit_2(capsys, argv, fragment):
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    rc, out, err = _run(capsys, *argv)
    lines = [line for line in err.splitlines() if not line.startswith("[measure] ")]
    assert rc == 2 and out == ""
    assert len(lines) == 1 and lines[0].startswith("posbias"), err
    assert fragment in lines[0]


def test_unwritable_plot_fails_before_work(capsys, tmp_path):
    rc, out, err = _run(capsys, "--arch", "tiny-gpt2", "--plot", str(tmp_path / "no" / "x.png"))
    assert rc == 2 and "--plot" in err and "measuring" not in err


@pytest.mark.parametrize("missing", ["torch", "transformers"])
def test_without_models_extra(capsys, monkeypatch, missing):
    monkeypatch.setitem(sys.modules, missing, None)  # `import missing` now raises ImportError
    rc, out, err = _run(capsys, "--arch", "tiny-gpt2")
    assert rc == 2 and out == ""
    assert err.strip().splitlines() == [err.strip()]
    assert f"{missing} is not installed" in err and "'models' extra" in err
