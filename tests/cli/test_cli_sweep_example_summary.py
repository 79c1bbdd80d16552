"""The shipped example sweep spec (``sweep --example``, ``sweep example:NAME``), sweep's -q and
-f, and profile --summary's underflowed entries and named logarithms."""

import json
import math

import pytest

from posbias.cli import main
from posbias.cli.sweep import EXAMPLES, example_spec

pytest.importorskip("ruamel.yaml")


def _run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_example_prints_the_shipped_spec_which_is_the_docs_one(capsys, tmp_path):
    from posbias.proofs_checks import sweeps

    code, out, _ = _run(capsys, "sweep", "--example")
    assert code == 0 and out == example_spec("peak-valley-map") and "heatmap:" in out
    saved = tmp_path / "map.yaml"
    saved.write_text(out, encoding="utf-8")
    docs = sweeps.load_sweep(str(__import__("pathlib").Path(__file__).parents[2] / "docs" / "peak-valley-map.yaml"))
    shipped = sweeps.load_sweep(str(saved))
    assert shipped.points == docs.points and shipped.heatmap == docs.heatmap and shipped.fixed == docs.fixed
    assert EXAMPLES == ("peak-valley-map",)


def test_unknown_example_and_missing_spec_are_one_line_exit_2(capsys):
    code, _, err = _run(capsys, "sweep", "--example", "nope")
    assert code == 2 and err.strip() == "posbias: error: --example = nope is invalid: expected one of peak-valley-map"
    code, _, err = _run(capsys, "sweep", "example:nope")
    assert code == 2 and "SPEC = example:nope is invalid" in err and err.count("\n") == 1
    code, _, err = _run(capsys, "sweep")
    assert code == 2 and "SPEC = (missing) is invalid" in err


GRID = """command: profile
grid:
  alpha: [0.5, 1]
  depth: [1, 2]
fixed:
  length: 16
"""


def test_sweep_quiet_and_json(capsys, tmp_path):
    spec = tmp_path / "g.yaml"
    spec.write_text(GRID, encoding="utf-8")
    code, out, err = _run(capsys, "sweep", str(spec), "-q", "-f", "json")
    assert code == 0 and err == ""
    doc = json.loads(out)
    assert doc["command"] == "profile" and len(doc["rows"]) == 4
    assert [r["alpha"] for r in doc["rows"]] == [0.5, 0.5, 1.0, 1.0]
    code, csv_out, _ = _run(capsys, "sweep", str(spec), "-q")
    header, *lines = csv_out.strip().split("\n")
    assert header.split(",") == doc["columns"] and len(lines) == 4
    assert float(lines[0].split(",")[doc["columns"].index("last")]) == doc["rows"][0]["last"]
    code, _, err = _run(capsys, "sweep", str(spec), "-f", "json", "-o", str(tmp_path / "t.csv"))
    assert code == 2 and "expected a file name ending in .json" in err


def test_summary_prints_underflowed_last_with_its_digits_and_names_its_logs(capsys):
    # attention only, L = 10^4, T = 100: p(L) = L^-100 = 1e-400, below float64's range
    code, out, _ = _run(capsys, "profile", "--length", "10000", "--depth", "100", "--alpha", "1",
                        "--summary")
    rows = dict(line.split("  ", 1) for line in out.strip().split("\n")[2:])
    assert code == 0 and rows["last"] == rows["min"]
    mantissa, exponent = rows["last"].split("e")
    assert int(exponent) == -400 and abs(float(mantissa) - 1) < 1e-12
    assert len(mantissa.replace(".", "").replace("-", "")) <= 17
    assert "log_min" not in rows and abs(float(rows["ln_min"]) + 400 * math.log(10)) < 1e-9
    assert abs(float(rows["log10_min"]) + 400) < 1e-12
    # a normal float prints as before: its shortest repr
    code, out, _ = _run(capsys, "profile", "--length", "512", "--depth", "24", "--alpha", "1/2",
                        "--summary", "-f", "csv")
    rows = dict(line.split(",") for line in out.strip().split("\n")[1:])
    assert rows["last"] == repr(float(rows["last"])) and float(rows["log10_min"]) == pytest.approx(
        float(rows["ln_min"]) / math.log(10), rel=1e-15)
    code, out, _ = _run(capsys, "profile", "--length", "10000", "--depth", "100", "--alpha", "1",
                        "--summary", "--digits", "5")
    assert "\nlast  1.0e-400\n" in out
