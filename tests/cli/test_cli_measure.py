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
    assert "Cesàro, measured lambda" in out and out.count("\n") > 15
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
    (["--arch", "tiny-gpt2", "--ablate", "no-attention"], "--ablate = no-attention"),
    (["--arch", "tiny-qwen2", "--ablate", "no-positions"], "--ablate = no-positions"),
    (["--arch", "tiny-bloom", "--ablate", "no-mlp"], "--ablate = no-mlp"),
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
    rc, _, err = _run(capsys, "--arch", "tiny-gpt2", "--plot", str(tmp_path / "no" / "x.png"))
    assert rc == 2 and "--plot" in err and "measuring" not in err


@pytest.mark.parametrize("missing", ["torch", "transformers"])
def test_without_models_extra(capsys, monkeypatch, missing):
    monkeypatch.setitem(sys.modules, missing, None)  # `import missing` now raises ImportError
    rc, out, err = _run(capsys, "--arch", "tiny-gpt2")
    assert rc == 2 and out == ""
    assert err.strip().splitlines() == [err.strip()]
    assert f"{missing} is not installed" in err and "'models' extra" in err


# ----------------------------------------------------------------------------------------------
# --model: a checkpoint from disk, real text, export, rollout, check (nothing downloaded)

WHOLE_PATH = ("bloom", "mpt", "falcon", "gpt2", "llama", "qwen2")


def _tiny_checkpoints():
    """The shared helper tests/measurements/tiny_checkpoints.py (loaded by tests/conftest.py)."""
    import posbias_tests_tiny_checkpoints

    return posbias_tests_tiny_checkpoints


@pytest.fixture(scope="module")
def checkpoints(tmp_path_factory):
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    pytest.importorskip("tokenizers")
    tiny = _tiny_checkpoints()
    root = tmp_path_factory.mktemp("checkpoints")
    return {fam: tiny.save_tiny(fam, root) for fam in WHOLE_PATH}, tiny.write_text(root / "text")


def _yaml(path):
    from ruamel.yaml import YAML

    with open(path, encoding="utf-8") as fh:
        return YAML(typ="safe", pure=True).load(fh)


def _key_tree(d):
    return {k: _key_tree(v) if isinstance(v, dict) else None for k, v in d.items()}


@pytest.mark.parametrize("family", WHOLE_PATH)
def test_checkpoint_whole_path(capsys, tmp_path, checkpoints, family):
    """load, tokenize, measure, export, roll out, check: the three commands of the README."""
    pytest.importorskip("ruamel.yaml")
    from posbias.proofs_checks.data import builtin_config_path

    dirs, text = checkpoints
    cfg, data = tmp_path / "exported.yaml", tmp_path / "data"
    data.mkdir()
    rc, out, err = _run(capsys, "--model", dirs[family], "--text", text, "--length", "32",
                        "--samples", "2", "--export-config", str(cfg), "--save-influence",
                        str(data), "--format", "json")
    assert rc == 0, err
    m = json.loads(out)["measurement"]
    T, H = m["num_layers"], m["num_heads"]
    assert (T, H, m["length"], m["metric"]) == (2, 4, 32, "top1-grad")
    assert "2 window(s) of 32 tokens" in m["inputs"]
    # the exported config has the keys and shapes of the shipped reference configs
    shipped, mine = _yaml(builtin_config_path("all_content/bloom-7b1")), _yaml(cfg)
    assert _key_tree(mine) == _key_tree(shipped)
    att, cc = mine["attention_config"], mine["content_config"]
    assert len(att["alibi_slopes"]) == T and all(len(r) == H for r in att["alibi_slopes"])
    for key in ("diagonal_scores", "base_scores"):
        assert len(cc[key]) == T and all(len(r) == H for r in cc[key])
    assert len(mine["lambda_schedule_config"]["lambdas_custom"]) == T
    assert mine["lambda_schedule_config"]["lambdas_custom"] == m["lambdas"]
    # content scores are stated in logits: score_scale * (raw diagonal - raw lower); both raw
    # means are printed to 7 significant digits, so their difference is known to within
    # 1e-6 (|d| + |b|) (half a unit of the 7th digit each, with margin), however much cancels
    for t in range(T):
        scale = m["score_scale"][t]
        for got, d, b in zip(cc["diagonal_scores"][t], m["qk_diagonal"][t], m["qk_lower"][t]):
            assert got == pytest.approx(scale * (d - b), rel=1e-5,
                                        abs=1e-6 * scale * (abs(d) + abs(b)))
    if family in ("bloom", "mpt", "falcon"):
        assert all(s > 0 for s in att["alibi_slopes"][0])
    else:
        assert all(s == 0 for r in att["alibi_slopes"] for s in r)
    assert (data / "measured-influence" / (family + ".yaml")).read_text() == cfg.read_text()
    # roll it out
    rc = main(["rollout", str(cfg), "--format", "json"])
    out, err = capsys.readouterr()
    assert rc == 0, err
    assert len(json.loads(out)["results"][0]["profile"]) == 32
    # and the claim gives a computed verdict on it
    rc = main(["check", "--data-dir", str(data), "empirical-match", "--format", "json"])
    out, err = capsys.readouterr()
    ev = json.loads(out)["claims"][0]["evidence"]
    assert ev["verdict"] in ("verified", "refuted"), ev
    assert ev["details"]["models"][0]["name"] == family and ev["details"]["models"][0]["L"] == 32


def test_checkpoint_table_plot_and_bfloat16(capsys, tmp_path, checkpoints):
    pytest.importorskip("matplotlib")
    dirs, text = checkpoints
    plot = tmp_path / "measured.png"
    rc, out, err = _run(capsys, "--model", dirs["llama"], "--text", text, "--length", "24",
                        "--dtype", "bfloat16", "--plot", str(plot))
    assert rc == 0, err
    assert "rollout (measured lambda)" in out and "attention only (lambda = 1)" in out
    assert "bfloat16" in out and "positions: rope" in out
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_checkpoint_step0_and_pretrained_claims(capsys, tmp_path, checkpoints):
    """A Step-0 (random ids, --random-init) and a pretrained measurement of the same checkpoint
    in one data folder: the chowdhury2026 C10 claims pair them and compute a verdict."""
    dirs, text = checkpoints
    rc, out, err = _run(capsys, "--model", dirs["gpt2"], "--length", "32", "--samples", "2",
                        "--random-init", "--save-influence", str(tmp_path), "--format", "json")
    assert rc == 0, err
    assert "random token ids" in json.loads(out)["measurement"]["inputs"]
    record = json.loads((tmp_path / "measured-influence" / "gpt2-step0.measurement.json").read_text())
    assert record["stage"] == "step-0" and record["architecture"]["num_layers"] == 2
    rc, out, err = _run(capsys, "--model", dirs["gpt2"], "--text", text, "--length", "32",
                        "--samples", "2", "--save-influence", str(tmp_path))
    assert rc == 0, err
    main(["check", "--data-dir", str(tmp_path), "u-persists-pretrained",
          "peak-valley-pretrained", "--format", "json"])
    claims = json.loads(capsys.readouterr().out)["claims"]
    for c in claims:
        ev = c["evidence"]
        assert ev["verdict"] in ("verified", "qualified", "refuted"), ev
        pairs = ev["figures"]["pairs"]
        assert len(pairs) == 1 and pairs[0]["name"] == "gpt2" and pairs[0]["step0_name"] == "gpt2-step0"


CHECKPOINT_BAD = [
    (["--model", "{missing}"], "--model = "),
    (["--model", "posbias-test-org/absent"], "--allow-download"),
    (["--model", "{gpt2}", "--arch", "gpt2"], "--arch = gpt2"),
    (["--model", "{gpt2}", "--dtype", "float64"], "--dtype = float64"),
    (["--model", "{gpt2}", "--text", "{missing}"], "--text = "),
    (["--model", "{gpt2}", "--save-influence", "{text}"], "--save-influence = "),  # a file
    (["--model", "{gpt2}", "--export-config", "{missing}/x.yaml"], "--export-config = "),
    (["--model", "{gpt2}", "--length", "1"], "--length = 1"),
    (["--model", "{gpt2}", "--length", "4096"], "--length = 4096"),
    (["--model", "{gpt2}", "--text", "{text}", "--samples", "100000"], "--samples = 100000"),
    (["--model", "{gpt2}", "--layers", "3"], "--layers = 3"),
    (["--model", "{gpt2}", "--name", "../x"], "--name = ../x"),
    (["--arch", "tiny-gpt2", "--text", "{text}"], "--text = "),
    (["--arch", "tiny-gpt2", "--dtype", "bfloat16"], "--dtype = bfloat16"),
    (["--model", "{gpt2}", "--ablate", "no-mlp"], "--ablate = no-mlp"),
]


@pytest.mark.parametrize("argv,fragment", CHECKPOINT_BAD)
def test_checkpoint_bad_input_is_one_line_exit_2(capsys, tmp_path, checkpoints, argv, fragment):
    dirs, text = checkpoints
    subst = {"missing": str(tmp_path / "missing"), "gpt2": dirs["gpt2"], "text": text}
    argv = [a.format(**subst) for a in argv]
    rc, out, err = _run(capsys, *argv)
    lines = [line for line in err.splitlines() if not line.startswith("[measure] ")]
    assert rc == 2 and out == ""
    assert len(lines) == 1 and lines[0].startswith("posbias"), err
    assert fragment in lines[0]
    assert not list(tmp_path.glob("**/*.yaml"))   # nothing written


def test_checkpoint_resume_from_the_journal(capsys, tmp_path, checkpoints):
    """-o FILE keeps FILE.windows.jsonl; a journal cut back to its first window (as a kill
    after window 1 leaves it) and continued with --resume gives the uninterrupted profile."""
    dirs, text = checkpoints
    out = tmp_path / "m.json"
    argv = ["--model", dirs["llama"], "--text", text, "--length", "24", "--samples", "3",
            "--format", "json", "-o", str(out)]
    rc, _, err = _run(capsys, *argv)
    assert rc == 0, err
    whole = json.loads(out.read_text())["measurement"]
    journal = tmp_path / "m.json.windows.jsonl"
    lines = journal.read_text().splitlines()
    assert len(lines) == 5 and json.loads(lines[-1]) == {"complete": True}
    journal.write_text("\n".join(lines[:2]) + "\n")
    rc, _, err = _run(capsys, *argv)              # a fresh run would lose window 1
    assert rc == 2 and err.startswith("posbias: error: --resume = ") and err.count("\n") == 1
    rc, _, err = _run(capsys, *argv, "--resume")
    assert rc == 0, err
    assert "resumed from" in err and "1/3 window(s) done" in err and "window 3/3" in err
    resumed = json.loads(out.read_text())["measurement"]
    for key in ("profile", "lambdas", "qk_diagonal", "qk_lower", "score_scale"):
        assert resumed[key] == whole[key], key
    rc, _, err = _run(capsys, *argv[:-2], "--resume")
    assert rc == 2 and err.startswith("posbias: error: --resume") and "-o FILE" in err
    rc, _, err = _run(capsys, "--arch", "tiny-gpt2", "--resume")
    assert rc == 2 and "--resume" in err and "without --model" in err


def test_checkpoint_batch_size(capsys, tmp_path, checkpoints):
    """--batch-size 2 and auto give the window-by-window profile to float32 rounding (7 printed
    digits, up to a unit in the last); bad values and jacobian with batches are one line."""
    dirs, text = checkpoints
    argv = ["--model", dirs["bloom"], "--text", text, "--length", "24", "--samples", "3",
            "--format", "json"]
    rc, out, err = _run(capsys, *argv)
    assert rc == 0, err
    one = json.loads(out)["measurement"]["profile"]
    for size in ("2", "auto"):
        rc, out, err = _run(capsys, *argv, "--batch-size", size)
        assert rc == 0, err
        got = json.loads(out)["measurement"]["profile"]
        assert got == pytest.approx(one, rel=2e-6), size
    rc, out, err = _run(capsys, *argv, "--batch-size", "2", "--no-checkpointing")
    assert rc == 0, err
    m = json.loads(out)["measurement"]
    assert m["profile"] == pytest.approx(one, rel=2e-6) and m["details"]["checkpointing"] is False
    for bad in ("0", "two", "-3"):
        rc, _, err = _run(capsys, *argv, "--batch-size", bad)
        assert rc == 2 and "--batch-size" in err and err.count("\n") == 1
    rc, _, err = _run(capsys, *argv, "--batch-size", "2", "--metric", "jacobian")
    assert rc == 2 and "--batch-size = 2" in err and "jacobian" in err.splitlines()[-1]


@pytest.mark.parametrize("field, value", [
    ("num_hidden_layers", 10**9), ("num_hidden_layers", 1e9), ("num_hidden_layers", "x"),
    ("num_hidden_layers", -1), ("hidden_size", 1.5), ("vocab_size", True),
])
def test_checkpoint_config_sizes_are_checked_before_anything_is_built(capsys, tmp_path, field,
                                                                      value):
    """A config.json whose sizes are not usable integers (10^9 layers would be built by the
    configuration class before any plan) is refused in one line naming the field and file."""
    pytest.importorskip("transformers")
    ck = tmp_path / "ck"
    ck.mkdir()
    cfg = {"model_type": "llama", "num_hidden_layers": 2, "hidden_size": 64,
           "intermediate_size": 128, "num_attention_heads": 4, "vocab_size": 100}
    cfg[field] = value
    (ck / "config.json").write_text(json.dumps(cfg))
    rc = main(["measure", "--model", str(ck), "--length", "16"])
    out, err = capsys.readouterr()
    assert rc == 2 and out == "" and len(err.strip().splitlines()) == 1, err
    assert "--model" in err and field in err and "config.json" in err


def test_a_config_json_nested_too_deeply_is_one_line_exit_2(capsys, tmp_path):
    """Nesting deeper than the JSON reader's stack ended as an internal RecursionError."""
    pytest.importorskip("transformers")
    ck = tmp_path / "ck"
    ck.mkdir()
    (ck / "config.json").write_text("[" * 100_000 + "]" * 100_000)
    rc = main(["measure", "--model", str(ck), "--length", "16"])
    out, err = capsys.readouterr()
    assert rc == 2 and out == "" and len(err.strip().splitlines()) == 1, err
    assert err.startswith("posbias: error: --model = ") and "config.json is JSON" in err


def _doctored_checkpoint(ck, **config):
    """A checkpoint directory with a small LLaMA config.json (``config`` added) and a
    word-level tokenizer, no weights."""
    pytest.importorskip("transformers")
    tokenizers = pytest.importorskip("tokenizers")
    ck.mkdir()
    (ck / "config.json").write_text(json.dumps(
        {"model_type": "llama", "num_hidden_layers": 2, "hidden_size": 64,
         "intermediate_size": 128, "num_attention_heads": 4, "vocab_size": 100, **config}))
    tok = tokenizers.Tokenizer(tokenizers.models.WordLevel({"a": 0, "b": 1, "[UNK]": 2},
                                                           unk_token="[UNK]"))
    tok.save(str(ck / "tokenizer.json"))
    (ck / "tokenizer_config.json").write_text(json.dumps(
        {"tokenizer_class": "PreTrainedTokenizerFast", "unk_token": "[UNK]"}))
    return ck


def test_checkpoint_config_of_the_wrong_type_is_refused(capsys, tmp_path):
    """A field of the wrong type that transformers meets only while building the model
    (rope_theta as text) is refused naming the checkpoint, not an internal error."""
    ck = _doctored_checkpoint(tmp_path / "ck", rope_theta="x")
    rc = main(["measure", "--model", str(ck), "--length", "16", "--random-init", "-q"])
    out, err = capsys.readouterr()
    assert rc == 2 and out == "" and len(err.strip().splitlines()) == 1, err
    assert "--model" in err and "loadable causal LM" in err


@pytest.mark.parametrize("header", [b'{"a": [1,2', 2**60,
                                    b'{"model.embed_tokens.weight": {"dtype": "F32", "shape": '
                                    b'[100, 64], "data_offsets": [0, 99999999999]}}'])
def test_checkpoint_with_a_malformed_safetensors_header_is_refused(capsys, tmp_path, header):
    """Weights whose safetensors header is not JSON, claims an absurd length, or places a
    tensor beyond the file: one line naming --model, not an internal error."""
    import struct

    ck = _doctored_checkpoint(tmp_path / "ck")
    with open(ck / "model.safetensors", "wb") as fh:
        if isinstance(header, int):
            fh.write(struct.pack("<Q", header))
        else:
            fh.write(struct.pack("<Q", len(header)) + header)
    rc = main(["measure", "--model", str(ck), "--length", "8", "-q"])
    out, err = capsys.readouterr()
    assert rc == 2 and out == "" and len(err.strip().splitlines()) == 1, err
    assert "--model" in err and "header" in err


def test_checkpoint_with_a_pickled_bin_is_refused_not_loaded(capsys, tmp_path):
    """A pytorch_model.bin that is a pickle of more than tensors is refused by weights-only
    loading: one line naming --model, never unpickled, not an internal error."""
    import pickle

    ck = _doctored_checkpoint(tmp_path / "ck")
    (ck / "pytorch_model.bin").write_bytes(pickle.dumps({"not": "tensors"}))
    rc = main(["measure", "--model", str(ck), "--length", "8", "-q"])
    out, err = capsys.readouterr()
    assert rc == 2 and out == "" and len(err.strip().splitlines()) == 1, err
    assert "--model" in err and "without running code" in err


def _doctor(line: str, **changes) -> str:
    obj = json.loads(line)
    obj.update(changes)
    return json.dumps(obj)


@pytest.mark.parametrize("name, edit", [
    ("NaN in a profile", lambda ls: [ls[0], _doctor(ls[1], profile=[float("nan")] * 24)]),
    ("a profile of another length", lambda ls: [ls[0], _doctor(ls[1], profile=[0.5, 0.5])]),
    ("a negative profile", lambda ls: [ls[0], _doctor(ls[1], profile=[-1.0] + [0.1] * 23)]),
    ("lambda sums as text", lambda ls: [ls[0], _doctor(ls[1], lambda_sums="x")]),
    ("an infinite lambda sum", lambda ls: [ls[0], ls[1].replace('"lambda_sums": [', '"lambda_sums": [1e999, ', 1)]),
    ("a count of blocks that differs", lambda ls: [ls[0], _doctor(ls[1], calls=[1])]),
    ("window true", lambda ls: [ls[0], _doctor(ls[1], window=True)]),
    ("a generator state not in hex", lambda ls: [ls[0], _doctor(ls[1], rng="zz")]),
    ("seconds NaN", lambda ls: [ls[0], _doctor(ls[1], seconds=float("nan"))]),
    ("deeply nested JSON", lambda ls: [ls[0], "[" * 100_000 + "]" * 100_000]),
    ("an integer of 5000 digits", lambda ls: [ls[0], '{"window": ' + "9" * 5000 + "}"]),
    ("a line longer than a record", lambda ls: [ls[0], '{"window": 0, "pad": "' + "x" * (5 * 2**20) + '"}']),
    ("more lines than windows", lambda ls: ls[:2] + [_doctor(ls[1], window=w) for w in (1, 2, 3, 4)]),
])
def test_a_doctored_journal_is_one_line_exit_2_and_nothing_written(capsys, tmp_path, checkpoints, name, edit):
    """A journal is data: every doctored record is refused naming --resume, the file and the
    line, before a window is measured, and -o FILE is not written (it ended as NaN results, an
    internal error or a read of the whole file into memory)."""
    dirs, text = checkpoints
    out = tmp_path / "m.json"
    argv = ["--model", dirs["llama"], "--text", text, "--length", "24", "--samples", "3",
            "--format", "json", "-o", str(out)]
    rc, _, err = _run(capsys, *argv)
    assert rc == 0, err
    out.unlink()
    journal = tmp_path / "m.json.windows.jsonl"
    lines = journal.read_text().splitlines()
    journal.write_text("\n".join(edit(lines[:2])) + "\n")
    rc, stdout, err = _run(capsys, *argv, "--resume")
    lines = [line for line in err.splitlines() if not line.startswith("[measure] ")]
    assert rc == 2 and stdout == "", (name, err)
    assert len(lines) == 1 and lines[0].startswith("posbias: error: --resume = "), (name, err)
    assert "m.json.windows.jsonl is invalid: expected a journal" in lines[0], (name, lines[0])
    assert "line 2" in lines[0] or "at most 5 lines" in lines[0], (name, lines[0])
    print(name, "->", lines[0].split(" is invalid: ")[1])
    assert len(lines[0]) < 400 and not out.exists()
