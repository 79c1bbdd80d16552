"""`posbias sweep SPEC`: the tidy table (CSV, Parquet with pyarrow), the heatmap, workers and a
Dask LocalCluster giving the serial table, and bad input as one line with exit status 2 and
nothing written."""

import csv
import os

import pytest

from posbias.cli import main

SPEC = """\
command: profile
grid:
  alpha: [0.25, 0.5, "3/4", 1]
  depth: [1, 2, 4]
fixed:
  length: 64
heatmap: {x: alpha, y: depth, values: [first_over_min, last_over_min]}
"""


def _write(tmp_path, text, name="spec.yaml"):
    p = tmp_path / name
    p.write_text(text)
    return str(p)


def _rows(path):
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def test_sweep_writes_table_parquet_and_heatmap(tmp_path, capsys):
    spec = _write(tmp_path, SPEC)
    out = str(tmp_path / "table.csv")
    png = str(tmp_path / "map.png")
    assert main(["sweep", spec, "-o", out, "--plot", png, "--quiet"]) == 0
    rows = _rows(out)
    assert len(rows) == 12 and list(rows[0])[:3] == ["alpha", "depth", "length"]
    assert {r["alpha"] for r in rows} == {"0.25", "0.5", "0.75", "1.0"}
    # H = 1, alpha = 1: the uniform row 1/L, every ratio 1
    r = next(r for r in rows if r["alpha"] == "1.0" and r["depth"] == "1")
    assert float(r["first_over_min"]) == 1.0 and float(r["min"]) == 1 / 64
    assert os.path.getsize(png) > 5000
    try:
        import pyarrow.parquet as pq
    except ImportError:
        assert not os.path.exists(str(tmp_path / "table.parquet"))
    else:
        t = pq.read_table(str(tmp_path / "table.parquet")).to_pylist()
        assert len(t) == 12 and t[0]["alpha"] == 0.25 and t[0]["argmin"] == int(rows[0]["argmin"])


def test_sweep_to_stdout_and_in_workers_is_the_same_table(tmp_path, capsys):
    spec = _write(tmp_path, SPEC)
    assert main(["sweep", spec, "--quiet"]) == 0
    serial = capsys.readouterr().out
    assert main(["sweep", spec, "--quiet", "-n", "2"]) == 0
    assert capsys.readouterr().out == serial
    assert serial.count("\n") == 13


@pytest.mark.slow  # ~12 s on a loaded 2-core machine (a LocalCluster starts two processes)
def test_sweep_on_a_dask_local_cluster(tmp_path, capsys):
    pytest.importorskip("distributed")
    spec = _write(tmp_path, SPEC)
    assert main(["sweep", spec, "--quiet"]) == 0
    serial = capsys.readouterr().out
    assert main(["sweep", spec, "--quiet", "--scheduler", "local", "-n", "2"]) == 0
    assert capsys.readouterr().out == serial


@pytest.mark.parametrize("text, extra, parameter", [
    (SPEC.replace('"3/4"', "1.5"), [], "grid.alpha[2]"),
    (SPEC.replace("command: profile", "command: train"), [], "command"),
    (SPEC.replace("depth: [1, 2, 4]", "depth: [1, 2, 4]\n  heads: [1]"), [], "grid.heads"),
    (SPEC.replace("length: 64", "length: zero"), [], "fixed.length"),
    ("command: [unclosed", [], "SPEC"),
    ("!!python/object:os.system ls", [], "SPEC"),
    # an integer beyond Python's str -> int digit limit fails inside the YAML parser
    (SPEC.replace("length: 64", "length: " + "9" * 5000), [], "SPEC"),
    (SPEC, ["-n", "0"], "-n"),
    (SPEC, ["--scheduler", "nowhere"], "--scheduler"),
    (SPEC, ["--scheduler", "tcp://"], "--scheduler"),
    (SPEC, ["--scheduler", "ucx://h:1"], "--scheduler"),
    (SPEC, ["--scheduler", "tcp://h:70000"], "--scheduler"),
    (SPEC, ["-o", "table.txt"], "--output"),
    (SPEC, ["--plot", "map.svg"], "--plot"),
    (SPEC.replace("heatmap: {x: alpha, y: depth, values: [first_over_min, last_over_min]}", ""),
     ["--plot", "map.png"], "--plot"),
])
def test_bad_input_is_one_line_exit_2_nothing_written(tmp_path, capsys, monkeypatch, text, extra, parameter):
    monkeypatch.chdir(tmp_path)
    spec = _write(tmp_path, text)
    code = main(["sweep", spec, "-o", "out.csv", *extra] if "-o" not in extra else ["sweep", spec, *extra])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith(f"posbias: error: {parameter} = "), err
    assert sorted(os.listdir(tmp_path)) == ["spec.yaml"]


def test_missing_spec_file(tmp_path, capsys):
    code = main(["sweep", str(tmp_path / "none.yaml")])
    _, err = capsys.readouterr()
    assert code == 2 and err.startswith("posbias: error: SPEC = ")


def test_sweep_is_planned_before_any_point(tmp_path, capsys):
    """The plan (largest point x workers, the table) is printed with -v and refuses, before any
    point is computed, a sweep that exceeds --max-memory."""
    from posbias.cli import main

    spec = tmp_path / "grid.yaml"
    spec.write_text("command: profile\ngrid:\n  length: [64, 50000000]\nfixed:\n  depth: 4\n  alpha: 0.5\n")
    out = tmp_path / "table.csv"
    code = main(["sweep", str(spec), "-o", str(out), "--max-memory", "1G", "--quiet"])
    _, err = capsys.readouterr()
    assert code == 2 and err.count("\n") == 1 and "needs about" in err and not out.exists()
    spec.write_text("command: profile\ngrid:\n  length: [64, 128]\nfixed:\n  depth: 4\n  alpha: 0.5\n")
    code = main(["sweep", str(spec), "-o", str(out), "-v", "--quiet"])
    _, err = capsys.readouterr()
    assert code == 0 and "plan of the sweep of 2 profile point(s)" in err and out.exists()


def test_rollout_sweep_over_conventions_and_shipped_names(tmp_path, capsys):
    # the mean-content config differs between the conventions (one score: head 0 only in the
    # reference, every head in the corrected one); the L = 2048 configs are shipped names too
    spec = _write(tmp_path, "command: rollout\ngrid:\n  convention: [reference, corrected]\n"
                            "  config: [mean_content/mpt-7b, no_content_2048/mpt-7b]\nfixed:\n  length: 256\n")
    out = str(tmp_path / "table.csv")
    assert main(["sweep", spec, "-o", out, "--quiet"]) == 0
    rows = {(r["config"], r["convention"]): r for r in _rows(out)}
    assert len(rows) == 4
    assert rows[("mean_content/mpt-7b", "reference")]["argmin"] == "72"
    assert abs(float(rows[("mean_content/mpt-7b", "reference")]["first_over_min"]) - 9.0885299029) < 1e-9
    # at L = 256 the copied lambda list gives the L = 256 config's profile
    assert rows[("no_content_2048/mpt-7b", "reference")]["argmin"] == "72"


def test_csv_text_cells_are_never_formulas():
    """A text cell that a spreadsheet would evaluate (=, +, -, @, tab, carriage return first)
    is written as literal text (a leading apostrophe); numbers, negative ones too, stay
    numbers."""
    import csv
    import io

    from posbias.cli.sweep import _csv

    texts = ["=HYPERLINK(\"http://x\")", "+1", "-cmd", "@SUM(A1)", "\tx"]
    rows = [{"config": t, "value": -1.5, "count": -2} for t in texts]
    out = list(csv.reader(io.StringIO(_csv(["config", "value", "count"], rows), newline="")))
    assert [r[0] for r in out[1:]] == ["'" + t for t in texts]
    assert all(r[1:] == ["-1.5", "-2"] for r in out[1:])
