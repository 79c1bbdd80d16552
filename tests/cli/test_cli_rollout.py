"""``posbias rollout``: formats, --compare, --plot, the summary, and bad usage (exit 2, one line)."""

import json

import numpy as np
import pytest

from posbias.cli import main
from posbias.numerics.configs import load_config
from posbias.proofs_checks.data import builtin_config_path


def run(capsys, *argv):
    rc = main(["rollout", *argv])
    out, err = capsys.readouterr()
    return rc, out, err


def test_table(capsys):
    rc, out, _ = run(capsys, "no_content/bloom-7b1")
    assert rc == 0
    assert "argmin j" in out and "62" in out
    assert "W1(profile, attention only)" in out
    assert "0.0181985" in out  # p(1), 6 significant digits


def test_json_matches_the_api(capsys):
    rc, out, _ = run(capsys, builtin_config_path("all_content/mpt-7b"), "--format", "json", "--length", "100")
    assert rc == 0
    data = json.loads(out)
    cfg = load_config(builtin_config_path("all_content/mpt-7b"), length=100)
    r = data["results"][0]
    assert r["profile"] == cfg.profile().tolist()  # repr round trip: exact float64 values
    s = r["summary"]
    assert s["argmin"] == int(np.argmin(cfg.profile())) + 1
    assert abs(s["sum_lambda_delta"] - float(np.sum(cfg.lambdas * cfg.deltas()))) < 1e-15
    assert r["attention_only_summary"]["sum_lambda"] == 32.0
    assert 0 < r["w1_attention_only"] < 1
    assert data["length"] == 100 and data["path"] == "fast"


def test_csv_and_compare(capsys):
    rc, out, _ = run(capsys, "all_content/bloom-7b1", "--compare", "--format", "csv")
    assert rc == 0
    lines = out.strip().split("\n")
    assert lines[0] == "position,reference,reference_attention_only,corrected,corrected_attention_only"
    assert len(lines) == 257 and lines[1].startswith("1,")
    rows = np.array([[float(x) for x in ln.split(",")[1:]] for ln in lines[1:]])
    assert np.allclose(rows.sum(axis=0), 1, atol=1e-13)
    assert np.max(np.abs(rows[:, 0] - rows[:, 2])) > 1e-3  # the conventions differ with content


def test_compare_table_reports_w1(capsys):
    rc, out, _ = run(capsys, "all_content/mpt-7b", "--compare")
    assert rc == 0 and "W1(reference, corrected) = 0.18" in out


def test_plot(tmp_path, capsys):
    f = tmp_path / "r.png"
    rc, _, _ = run(capsys, "no_content/mpt-7b", "--plot", str(f), "--convention", "corrected")
    assert rc == 0 and f.read_bytes()[:4] == b"\x89PNG"


def test_list(capsys):
    rc, out, _ = run(capsys, "--list")
    lines = out.strip().split("\n")
    assert rc == 0 and "no_content/bloom-7b1" in lines and len(lines) == 37
    later = [ln for ln in lines if ln.startswith("no_content_2048/")]
    assert len(later) == 5 and all("not measured at L = 2048" in ln for ln in later)
    assert "no_content_2048/mpt-7b  [L = 2048; lambda_t copied from no_content/mpt-7b (L = 256)" in out


def test_mean_content_reference_is_the_public_codes(capsys):
    # one content score per layer reaches head 0 only in the reference convention (the public
    # code's valley at j = 72, p(1)/min 9.09), every head in the corrected one
    rc, out, _ = run(capsys, "mean_content/mpt-7b", "--compare", "--format", "json")
    assert rc == 0
    ref, cor = json.loads(out)["results"]
    assert ref["conventions"]["content_head0_only"] is True and cor["conventions"]["content_head0_only"] is False
    assert ref["summary"]["argmin"] == 72 and abs(ref["summary"]["first_over_min"] - 9.0885299029) < 1e-9
    rc, out, _ = run(capsys, "mean_content/mpt-7b")
    assert "single content score on head 0 only" in out


def test_copied_lambda_is_noted_in_every_format(capsys):
    rc, out, _ = run(capsys, "no_content_2048/mpt-7b")
    assert rc == 0 and "L = 2048" in out.split("\n")[0]
    assert ("note: lambda_t not measured at L = 2048: the list is copied unchanged from no_content/mpt-7b "
            "(L = 256)") in out
    rc, out, _ = run(capsys, builtin_config_path("no_content_2048/mpt-7b"), "--format", "json")
    data = json.loads(out)
    assert data["record"]["lambda_copied_from"] == "no_content/mpt-7b" and data["record"]["sequence_length"] == 2048
    assert len(data["notes"]) == 1 and "not measured at L = 2048" in data["notes"][0]
    rc, out, err = run(capsys, "no_content_2048/mpt-7b", "--format", "csv")
    assert rc == 0 and "note: lambda_t not measured at L = 2048" in err and "note" not in out
    rc, out, err = run(capsys, "no_content_2048/mpt-7b", "--format", "csv", "--quiet")
    assert err == ""
    # a config's own measured lambda carries no note, unless it is run at another length
    rc, out, _ = run(capsys, "no_content/mpt-7b", "--format", "json")
    data = json.loads(out)
    assert data["notes"] == [] and data["record"]["lambda_copied_from"] is None
    rc, out, _ = run(capsys, "no_content/mpt-7b", "--length", "300")
    assert "note: lambda_t of the config (given for L = 256) used at L = 300 (--length)" in out
    rc, out, _ = run(capsys, "no_content/mpt-7b-noresidual", "--length", "300")
    assert "note:" not in out  # lambda = 1 is not a measurement


@pytest.mark.parametrize(
    "argv, fragment",
    [
        (["no-such-config"], "CONFIG"),
        ([], "CONFIG"),
        (["no_content/mpt-7b", "--length", "0"], "--length"),
        (["no_content/mpt-7b", "--length", "x"], "--length"),
        (["no_content/mpt-7b", "--length", "nan"], "--length"),
        (["no_content/mpt-7b", "--length", "1_0"], "--length"),
        (["no_content/mpt-7b", "--length", "99999999999999"], "--length"),
        (["no_content/mpt-7b", "--convention", "faithful"], "--convention"),
        (["no_content/mpt-7b", "--plot", "out.svg"], "--plot"),
        (["no_content/mpt-7b", "--format", "xml"], "--format"),
        (["no_content/mpt-7b", "--convention", "corrected", "--model", "gpt-9"], "model"),
    ],
)
def test_bad_usage_exits_2_with_one_line(capsys, argv, fragment):
    rc, _, err = run(capsys, *argv)
    assert rc == 2
    assert err.count("\n") == 1 and fragment in err and "Traceback" not in err


def test_bad_config_file_exits_2(tmp_path, capsys):
    f = tmp_path / "bad.yaml"
    f.write_text("sequence_length: 16\nnum_layers: 2\nattention_config: {num_heads: 2, alibi_slopes: [[1, 2, 3]]}\n"
                 "lambda_schedule_config: {schedule_type: constant, lambda_const: 0.5}\n")
    rc, _, err = run(capsys, str(f))
    assert rc == 2 and "attention_config.alibi_slopes[0]" in err and err.count("\n") == 1
    f.write_text("{{{ not yaml")
    rc, _, err = run(capsys, str(f))
    assert rc == 2 and "config" in err and err.count("\n") == 1


def test_json_with_an_underflowed_minimum(tmp_path, capsys):
    # steep slope, attention only: the first positions' influence is below 1e-308 (float64 0)
    f = tmp_path / "steep.yaml"
    f.write_text("sequence_length: 40\nnum_layers: 2\nattention_config: {num_heads: 1, alibi_slopes: [[50.0]]}\n"
                 "lambda_schedule_config: {schedule_type: constant, lambda_const: 1.0}\n")
    rc, out, _ = run(capsys, str(f), "--format", "json")
    assert rc == 0
    # strict RFC 8259: no Infinity/NaN tokens, and no "inf"/"nan" strings posing as numbers
    s = json.loads(out, parse_constant=lambda c: pytest.fail(f"non-JSON constant {c}"))["results"][0]["summary"]
    assert s["min"] == 0.0 and s["last_over_min"] is None and s["first_over_min"] is None
    rc, out, _ = run(capsys, str(f))
    assert rc == 0 and "min underflow" in out and "inf" not in out and "nan" not in out


def test_a_users_config_names_no_model(tmp_path, capsys):
    """A config of one's own names no model: the header leaves the model out rather than
    printing a placeholder, and a shipped config still names its model."""
    f = tmp_path / "mine.yaml"
    f.write_text("sequence_length: 32\nnum_layers: 2\nattention_config: {num_heads: 1, alibi_slopes: [[0.5]]}\n"
                 "lambda_schedule_config: {schedule_type: constant, lambda_const: 0.5}\n")
    rc, out, _ = run(capsys, str(f))
    first = out.splitlines()[0]
    assert rc == 0 and first.startswith(f"config {f}  L = 32") and "model" not in first
    rc, out, _ = run(capsys, "no_content/bloom-7b1")
    assert rc == 0 and "model bloom-7b1" in out.splitlines()[0]


def test_compare_json(capsys):
    rc, out, _ = run(capsys, "all_content/mpt-7b", "--compare", "--format", "json", "--length", "64")
    assert rc == 0
    data = json.loads(out)
    assert [r["convention"] for r in data["results"]] == ["reference", "corrected"]
    assert data["results"][1]["conventions"]["d_head"] == 128
    assert 0 < data["w1_reference_corrected"] < 1


def test_a_config_error_names_the_positional_argument(tmp_path, capsys):
    """The rollout config is the positional CONFIG: its errors name it as the usage line does,
    not as the library's parameter ``config``."""
    f = tmp_path / "bad.yaml"
    f.write_text("a: [1,\n")
    rc, out, err = run(capsys, str(f))
    assert rc == 2 and out == ""
    assert err.startswith(f"posbias: error: CONFIG = {f} is invalid: expected a YAML 1.2 rollout config")


@pytest.mark.parametrize("text, fragment", [
    ("sequence_length: 99999999999999\nnum_layers: 2\nattention_config: {num_heads: 1, alibi_slopes: [[0.5]]}\n"
     "lambda_schedule_config: {schedule_type: constant, lambda_const: 0.5}\n", "sequence_length"),
    ("sequence_length: 8\nnum_layers: 2\nattention_config: {num_heads: 1, alibi_slopes: [[" + "9" * 400 + "]]}\n"
     "lambda_schedule_config: {schedule_type: constant, lambda_const: 0.5}\n", "alibi_slopes"),
    ("save_dir:\n  - &l0 [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"  - &l{i} [" + ", ".join([f"*l{i - 1}"] * 9) + "]\n" for i in range(1, 9)), "config"),
])
def test_hostile_config_files_exit_2(tmp_path, capsys, text, fragment):
    """Huge sizes, integers beyond float range and YAML bombs: one line, exit 2, nothing else."""
    f = tmp_path / "hostile.yaml"
    f.write_text(text)
    rc, out, err = run(capsys, str(f))
    assert rc == 2 and out == ""
    assert err.count("\n") == 1 and fragment in err and "Traceback" not in err
