"""Tests of ``posbias train``: a tiny run writes results, CSV, plots and checkpoints and can be
resumed further; bad input is one line naming the option, exit status 2, nothing written."""

import json
import os

import pytest

from posbias.cli import main
from posbias.errors import InvalidArgument


def _run(capsys, *argv):
    rc = main(["train", *argv])
    out, err = capsys.readouterr()
    return rc, out, err


def test_tiny_run_writes_everything_and_resumes(capsys, tmp_path):
    torch = pytest.importorskip("torch")
    pytest.importorskip("matplotlib")
    old = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        out = tmp_path / "run"
        rc, text, err = _run(capsys, "--iterations", "6", "--eval-every", "3", "--test-size", "60",
                             "--seeds", "0", "1", "--record-influence", "2", "-o", str(out), "-v")
        assert rc == 0, err
        assert "in-context acc" in text and "first-middle" in text
        assert "[train] it 6:" in err
        assert {"results.json", "history.csv", "differences.png", "influence.png",
                "checkpoints"} <= set(os.listdir(out))
        doc = json.loads((out / "results.json").read_text())
        assert doc["provenance"]["seeds"] == [0, 1]
        assert doc["provenance"]["command"] is None or "train" in doc["provenance"]["command"]
        assert [e["iteration"] for e in doc["runs"][0]["history"]] == [0, 3, 6]
        rc, text, err = _run(capsys, "--iterations", "9", "--eval-every", "3", "--test-size", "60",
                             "--seeds", "0", "1", "--record-influence", "2", "-o", str(out),
                             "--resume", "--format", "json")
        assert rc == 0, err
        doc2 = json.loads(text)
        hist = doc2["runs"][1]["history"]
        assert [e["iteration"] for e in hist] == [0, 3, 6, 9]
        strip = lambda h: [{k: v for k, v in e.items() if k != "seconds"} for e in h]  # noqa: E731
        assert strip(hist[:3]) == strip(doc["runs"][1]["history"])
    finally:
        torch.set_num_threads(old)


def test_a_resumed_training_continues_the_uninterrupted_one_exactly(capsys, tmp_path):
    """A run stopped at a checkpoint and continued with --resume evaluates, after the resume,
    exactly what the uninterrupted run evaluates: the checkpoint carries the weights, the
    optimizer and the data generator's state (the stored attention-only full-mask control run
    was continued this way)."""
    torch = pytest.importorskip("torch")
    old = torch.get_num_threads()
    torch.set_num_threads(1)
    common = ["--mask", "full", "--residual", "off", "--eval-every", "3", "--test-size", "60",
              "--seeds", "0", "--record-influence", "2", "--format", "json"]
    try:
        rc, text, err = _run(capsys, "--iterations", "9", *common, "-o", str(tmp_path / "whole"))
        assert rc == 0, err
        whole = json.loads(text)["runs"][0]["history"]
        rc, _, err = _run(capsys, "--iterations", "3", *common, "-o", str(tmp_path / "cut"))
        assert rc == 0, err
        rc, text, err = _run(capsys, "--iterations", "9", *common, "-o", str(tmp_path / "cut"),
                             "--resume")
        assert rc == 0, err
        resumed = json.loads(text)["runs"][0]["history"]
    finally:
        torch.set_num_threads(old)
    strip = lambda h: [{k: v for k, v in e.items() if k != "seconds"} for e in h]  # noqa: E731
    assert [e["iteration"] for e in resumed] == [0, 3, 6, 9]
    assert strip(resumed) == strip(whole)


@pytest.mark.parametrize("argv, option", [
    (["--mask", "window:0"], "--mask"), (["--mask", "decay:-1"], "--mask"),
    (["--pe", "alibi"], "--pe"), (["--residual", "yes"], "--residual"),
    (["--iterations", "-5"], "--iterations"), (["--lr", "0"], "--lr"),
    (["--train-bias", "centre"], "--train-bias"), (["--seeds", "2", "2"], "--seeds"),
    (["--seeds", "-1"], "--seeds"), (["--jobs", "0"], "--jobs"),
    (["--eval-every", "0"], "--eval-every"), (["--test-size", "1"], "--test-size"),
    (["--record-influence", "-1"], "--record-influence"),
])
def test_bad_input_is_one_line_exit_2(capsys, tmp_path, argv, option):
    pytest.importorskip("torch")
    out = tmp_path / "never"
    rc, _, err = _run(capsys, *argv, "-o", str(out))
    assert rc == 2
    assert err.startswith(f"posbias: error: {option} = ") and err.count("\n") == 1
    assert not out.exists()


def test_resume_without_checkpoints_is_an_error(capsys, tmp_path):
    pytest.importorskip("torch")
    rc, _, err = _run(capsys, "--resume", "-o", str(tmp_path / "none"))
    assert rc == 2 and "--resume" in err


def test_task_choice(capsys):
    rc, _, err = _run(capsys, "--task", "reddy2024")
    assert rc == 2 and "--task" in err


def test_lm_synthetic_tiny_run_writes_everything_and_resumes(capsys, tmp_path):
    torch = pytest.importorskip("torch")
    pytest.importorskip("transformers")
    pytest.importorskip("matplotlib")
    old = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        out = tmp_path / "lm"
        common = ["--task", "lm-synthetic", "--layers", "1", "--hidden", "16", "--heads", "2",
                  "--length", "16", "--eval-every", "2", "--test-size", "20", "--batch", "4",
                  "--record-influence", "2", "-o", str(out)]
        rc, text, err = _run(capsys, *common, "--iterations", "2", "-v")
        assert rc == 0, err
        assert "learned (final)" in text and "[train] it 2:" in err
        assert {"results.json", "history.csv", "influence.png", "checkpoints"} <= set(os.listdir(out))
        doc = json.loads((out / "results.json").read_text())
        assert doc["task"] == "lm-synthetic" and doc["config"]["arch"] == "llama"
        assert len(doc["runs"][0]["history"][0]["influence"]) == 16
        rc, text, err = _run(capsys, *common, "--iterations", "4", "--resume", "-f", "json")
        assert rc == 0, err
        hist = json.loads(text)["runs"][0]["history"]
        assert [e["iteration"] for e in hist] == [0, 2, 4]
    finally:
        torch.set_num_threads(old)


@pytest.mark.parametrize("argv, option", [
    (["--task", "lm-synthetic", "--mask", "causal"], "--mask"),
    (["--task", "lm-synthetic", "--pe", "rope"], "--pe"),
    (["--task", "lm-synthetic", "--train-bias", "first"], "--train-bias"),
    (["--arch", "llama"], "--arch"), (["--length", "32"], "--length"),
    (["--task", "lm-synthetic", "--arch", "bert"], "--arch"),
    (["--task", "lm-synthetic", "--hidden", "30"], "--hidden"),
    (["--task", "lm-synthetic", "--length", "1"], "--length"),
    (["--task", "lm-synthetic", "--layers", "0"], "--layers"),
    (["--task", "lm-synthetic", "--record-influence", "50", "--test-size", "10"],
     "--record-influence"),
])
def test_lm_synthetic_bad_input_is_one_line_exit_2(capsys, tmp_path, argv, option):
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    out = tmp_path / "never"
    rc, _, err = _run(capsys, *argv, "-o", str(out))
    assert rc == 2
    assert err.startswith(f"posbias: error: {option} = ") and err.count("\n") == 1
    assert not out.exists()


def _fake_docs(root):
    import random

    rng = random.Random(0)
    words = ["the", "a", "python", "function", "returns", "value", "list", "of", "module", "class",
             "object", "and", "is", "to"]
    for k in range(6):
        section = root / ("tutorial" if k < 3 else "library")
        section.mkdir(parents=True, exist_ok=True)
        body = "\n\n".join(" ".join(rng.choice(words) for _ in range(60)) for _ in range(10))
        (section / f"doc{k}.rst.txt").write_text(f"Doc {k}\n=====\n\n{body}\n")
    return str(root)


def test_lm_text_tiny_run_writes_everything_and_resumes(capsys, tmp_path):
    torch = pytest.importorskip("torch")
    pytest.importorskip("transformers")
    pytest.importorskip("tokenizers")
    old = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        src = _fake_docs(tmp_path / "src")
        common = ["--task", "lm-text", "--corpus", src, "--layers", "1", "--hidden", "16",
                  "--heads", "2", "--length", "16", "--vocab", "300", "--eval-every", "2",
                  "--test-size", "8", "--batch", "4", "--record-influence", "2"]
        whole = tmp_path / "whole"
        rc, text, err = _run(capsys, *common, "--iterations", "4", "-o", str(whole), "-f", "json")
        assert rc == 0, err
        full = json.loads(text)["runs"][0]["history"]
        # one held-out document: no boundary inside the held-out stream, refused before training
        bounds = tmp_path / "bounds"
        rc, text, err = _run(capsys, *common, "--iterations", "2", "--boundary-windows", "3",
                             "-o", str(bounds))
        assert rc == 2 and "--boundary-windows" in err and err.count("\n") == 1
        assert not (bounds / "results.json").exists()
        out = tmp_path / "lm"
        rc, text, err = _run(capsys, *common, "--iterations", "2", "-o", str(out), "-v")
        assert rc == 0, err
        assert "below bigram" in text and "Gate of the trained claims" in text
        assert "[train] it 2: val loss" in err
        assert {"results.json", "history.csv", "tokenizer.json", "checkpoints"} <= set(
            os.listdir(out))
        doc = json.loads((out / "results.json").read_text())
        assert doc["task"] == "lm-text" and doc["config"]["arch"] == "llama"
        assert doc["corpus"]["documents"] == 6 and len(doc["corpus"]["sha256"]) == 64
        assert doc["baselines"]["bigram_loss"] < doc["baselines"]["unigram_loss"]
        assert doc["gate"]["reached"] is False
        rc, text, err = _run(capsys, *common, "--iterations", "4", "-o", str(out), "--resume",
                             "-f", "json")
        assert rc == 0, err
        hist = json.loads(text)["runs"][0]["history"]
        strip = [{k: v for k, v in e.items() if k != "seconds"} for e in hist]
        assert strip == [{k: v for k, v in e.items() if k != "seconds"} for e in full]
    finally:
        torch.set_num_threads(old)


@pytest.mark.parametrize("argv, option", [
    (["--task", "lm-text", "--vocab", "10"], "--vocab"),
    (["--task", "lm-text", "--max-documents", "-1"], "--max-documents"),
    (["--task", "lm-text", "--hidden", "30"], "--hidden"),
    (["--task", "lm-text", "--mask", "causal"], "--mask"),
    (["--task", "lm-synthetic", "--vocab", "300"], "--vocab"),
    (["--corpus", "x"], "--corpus"),
    (["--task", "lm-text", "--corpus", "/nonexistent/sources"], "--corpus"),
])
def test_lm_text_bad_input_is_one_line_exit_2(capsys, tmp_path, argv, option):
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    out = tmp_path / "never"
    rc, _, err = _run(capsys, *argv, "-o", str(out))
    assert rc == 2
    assert err.startswith(f"posbias: error: {option} = ") and err.count("\n") == 1
    assert not out.exists()


def test_threads_refused_with_parallel_seeds(capsys):
    rc = main(["train", "--task", "lm-synthetic", "--seeds", "0", "1", "--jobs", "2",
               "--threads", "2", "--iterations", "1"])
    err = capsys.readouterr().err
    assert rc == 2 and "--threads" in err and err.count("\n") == 1
    rc = main(["train", "--task", "lm-synthetic", "--threads", "0", "--iterations", "1"])
    assert rc == 2 and "--threads" in capsys.readouterr().err


def test_lm_text_seeds_trained_apart_merge_into_the_joint_run(capsys, tmp_path):
    """Seeds 0 and 1 trained in two directories and merged with --merge give the runs, gate and
    history of the two seeds trained together (all but the wall-clock times); bad merges are
    one line, exit 2, and write nothing."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("transformers")
    pytest.importorskip("tokenizers")
    old = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        src = _fake_docs(tmp_path / "src")
        common = ["--task", "lm-text", "--corpus", src, "--layers", "1", "--hidden", "16",
                  "--heads", "2", "--length", "16", "--vocab", "300", "--eval-every", "2",
                  "--test-size", "8", "--batch", "4", "--record-influence", "2",
                  "--iterations", "2"]
        for name, seeds in (("both", ["0", "1"]), ("s0", ["0"]), ("s1", ["1"])):
            rc, _, err = _run(capsys, *common, "--seeds", *seeds, "-o", str(tmp_path / name))
            assert rc == 0, err
        merged = tmp_path / "merged"
        # the order of the parts does not matter: runs in the order of their seeds
        rc, text, err = _run(capsys, "--merge", str(tmp_path / "s1"),
                             str(tmp_path / "s0" / "results.json"), "-o", str(merged))
        assert rc == 0, err
        assert "below bigram" in text and "checkpoints" not in text
        assert {"results.json", "history.csv", "influence.png"} <= set(os.listdir(merged))
        doc = json.loads((merged / "results.json").read_text())
        joint = json.loads((tmp_path / "both" / "results.json").read_text())
        clock = {"seconds", "threads"}
        strip = lambda run: [{k: v for k, v in e.items() if k not in clock}  # noqa: E731
                             for e in run["history"]]
        assert [r["seed"] for r in doc["runs"]] == [0, 1]
        assert [strip(r) for r in doc["runs"]] == [strip(r) for r in joint["runs"]]
        assert doc["gate"] == joint["gate"]
        assert {k: v for k, v in doc.items() if k not in ("runs", "provenance")} == \
            {k: v for k, v in joint.items() if k not in ("runs", "provenance")}
        prov = doc["provenance"]
        assert prov["seeds"] == [0, 1] and len(prov["parts"]) == 2
        assert [p["seeds"] for p in prov["parts"]] == [[0], [1]]
        assert prov["versions"] == joint["provenance"]["versions"]
        assert (merged / "history.csv").read_text().count("\n") == 1 + 2 * 2
        # bad merges
        other = tmp_path / "other"
        rc, _, err = _run(capsys, *common[:-1], "3", "--seeds", "1", "-o", str(other))
        assert rc == 0, err
        never = tmp_path / "never"
        for argv, option, words in (
                ([str(tmp_path / "s0"), str(other)], "--merge", "'config'"),
                ([str(tmp_path / "s0"), str(tmp_path / "both")], "--merge", "seed 0"),
                ([str(tmp_path / "s0")], "--merge", "at least two"),
                ([str(tmp_path / "s0"), str(tmp_path / "nothing.json")], "--merge", "readable"),
                ([str(tmp_path / "s0"), str(src)], "--merge", "readable"),
        ):
            rc, _, err = _run(capsys, "--merge", *argv, "-o", str(never))
            assert rc == 2 and err.startswith(f"posbias: error: {option} = "), err
            assert words in err and err.count("\n") == 1
            assert not never.exists()
        before = (tmp_path / "s0" / "results.json").read_text()
        rc, _, err = _run(capsys, "--merge", str(tmp_path / "s0"), str(tmp_path / "s1"),
                          "-o", str(tmp_path / "s0"))
        assert rc == 2 and err.startswith("posbias: error: --output = ")
        assert (tmp_path / "s0" / "results.json").read_text() == before
        rc, _, err = _run(capsys, "--merge", str(tmp_path / "s0"), str(tmp_path / "s1"),
                          "--resume", "-o", str(never))
        assert rc == 2 and err.startswith("posbias: error: --resume = ") and not never.exists()
    finally:
        torch.set_num_threads(old)


def _part(path, seed, **run):
    doc = {"format": "posbias-train/1", "name": "n", "task": "wu2025-icl",
           "config": {"mask": "causal"},
           "runs": [{"seed": seed, "history": [{"iteration": 0}], **run}], "provenance": {}}
    path.write_text(json.dumps(doc))
    return str(path)


def test_merge_that_fails_leaves_the_existing_output_as_it_was(capsys, tmp_path):
    """A merge of documents whose evaluations lack their figures is refused in one line, and
    the results of an earlier run in --output stay byte for byte."""
    out = tmp_path / "out"
    out.mkdir()
    (out / "results.json").write_text("earlier results\n")
    (out / "history.csv").write_text("earlier history\n")
    a, b = _part(tmp_path / "a.json", 0), _part(tmp_path / "b.json", 1)
    rc, text, err = _run(capsys, "--merge", a, b, "-o", str(out))
    assert rc == 2 and text == "" and len(err.strip().splitlines()) == 1, err
    assert "--merge" in err and "every field" in err
    assert (out / "results.json").read_text() == "earlier results\n"
    assert (out / "history.csv").read_text() == "earlier history\n"
    assert sorted(os.listdir(out)) == ["history.csv", "results.json"]  # no staging left
    fresh = tmp_path / "fresh"
    rc, _, err = _run(capsys, "--merge", a, b, "-o", str(fresh))
    assert rc == 2 and not fresh.exists(), err


def test_merge_reads_regular_files_only(capsys, tmp_path):
    a = _part(tmp_path / "a.json", 0)
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    rc, text, err = _run(capsys, "--merge", a, str(fifo), "-o", str(tmp_path / "o"))
    assert rc == 2 and text == "" and "regular file" in err and "fifo.json" in err
    assert not (tmp_path / "o").exists()


def test_fresh_run_over_an_unfinished_one_is_refused(capsys, tmp_path):
    """The checkpoint of an unfinished training (none of its seeds in a results.json) is not
    overwritten by a fresh run into the same directory; --resume is the way on."""
    pytest.importorskip("torch")
    out = tmp_path / "run"
    (out / "checkpoints").mkdir(parents=True)
    ckpt = out / "checkpoints" / "causal_none_res_lr0.001_seed0.pt"
    ckpt.write_bytes(b"iterations of an unfinished run")
    rc, text, err = _run(capsys, "--iterations", "6", "--eval-every", "3", "--test-size", "60",
                         "-o", str(out))
    assert rc == 2 and text == "" and len(err.strip().splitlines()) == 1, err
    assert "--output" in err and "--resume" in err and "seed 0" in err
    assert ckpt.read_bytes() == b"iterations of an unfinished run"
    assert sorted(os.listdir(out)) == ["checkpoints"]
    # a finished training (its results.json lists the seed, written after the checkpoint) may
    # be replaced by a fresh one: the check passes and the run goes on to its plan
    (out / "results.json").write_text(json.dumps({"runs": [{"seed": 0}]}))
    os.utime(ckpt, (1, 1))
    rc, _, err = _run(capsys, "--iterations", "6", "--eval-every", "3", "--test-size", "60",
                      "-o", str(out), "--max-memory", "1M")
    assert rc == 2 and "--output" not in err and "--max-memory allows 1 MiB" in err, err


@pytest.mark.parametrize("run, shown", [
    ({"seed": 1.5}, "seed 1.5"), ({"seed": True}, "seed True"), ({"seed": -1}, "seed -1"),
    ({"history": []}, "history"), ({"history": [{"iteration": 0, "loss": float("inf")}]},
                                   "finite"),
])
def test_merge_refuses_bad_runs(capsys, tmp_path, run, shown):
    """Seeds that are not integers >= 0, empty histories and non-finite figures (written by a
    tool that emits Infinity; posbias's reader refuses NaN at the parse already) are refused
    naming the part and the seed, before anything is written."""
    a = _part(tmp_path / "a.json", 0)
    _part(tmp_path / "b.json", 3)
    doc = json.loads((tmp_path / "b.json").read_text())
    doc["runs"][0].update(run)
    from posbias.measurements.training import merge_results
    with pytest.raises(InvalidArgument) as exc:
        merge_results([json.loads((tmp_path / "a.json").read_text()), doc])
    assert shown in str(exc.value)
    if "finite" not in shown:  # through the command line (a file cannot hold inf strictly)
        (tmp_path / "b.json").write_text(json.dumps(doc))
        rc, text, err = _run(capsys, "--merge", a, str(tmp_path / "b.json"), "-o",
                             str(tmp_path / "o"))
        assert rc == 2 and text == "" and shown in err and "--merge" in err, err
        assert not (tmp_path / "o").exists()


def test_threads_beyond_the_cpus_are_refused(capsys):
    from posbias.resources import usable_cores

    n = usable_cores() + 1
    rc, text, err = _run(capsys, "--threads", str(n), "--iterations", "1")
    assert rc == 2 and text == "" and len(err.strip().splitlines()) == 1, err
    assert f"--threads = {n}" in err and f"between 1 and {n - 1}" in err


def test_a_training_of_years_needs_yes(capsys, tmp_path):
    """--iterations 10^12 is sized (years on this machine) and refused without --yes, before
    any directory is made; a long training with --yes is announced on stderr."""
    pytest.importorskip("torch")
    out = tmp_path / "run"
    rc, text, err = _run(capsys, "--iterations", str(10**12), "-o", str(out))
    assert rc == 2 and text == "" and len(err.strip().splitlines()) == 1, err
    assert "--iterations = 1000000000000" in err and "--yes" in err and " h of training" in err
    assert not out.exists()
    import argparse

    from posbias.cli import train
    from posbias.resources import Plan

    plan = Plan("training", [("batches", 1, 3 * 86400.0)])
    args = argparse.Namespace(yes=True, quiet=False, verbose=False, iterations=10**9)
    # accepted with --yes, and announced
    assert "about 72.0 h of training" in train._announce(plan, args)


@pytest.mark.parametrize("kind", ["fifo", "huge"])
def test_resume_reads_regular_checkpoints_of_a_size_this_machine_holds(capsys, tmp_path, kind):
    """A FIFO in place of a checkpoint would block torch.load forever, and a file beyond the
    memory this machine has would be read into it: both are refused naming --resume."""
    pytest.importorskip("torch")
    out = tmp_path / "run"
    (out / "checkpoints").mkdir(parents=True)
    ckpt = out / "checkpoints" / "causal_none_res_lr0.001_seed0.pt"
    if kind == "fifo":
        os.mkfifo(ckpt)
    else:
        with open(ckpt, "wb") as fh:  # occupies no disk: only its size is reported
            fh.truncate(2**42)
    rc, text, err = _run(capsys, "--iterations", "6", "--eval-every", "3", "--test-size", "60",
                         "-o", str(out), "--resume")
    assert rc == 2 and text == "" and len(err.strip().splitlines()) == 1, err
    assert "--resume" in err and ckpt.name in err
