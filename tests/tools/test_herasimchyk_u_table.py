"""tools/herasimchyk_u_table.py: the U figures of the measured configs in every convention, and
tools/ml_uhh_reference_profiles.py: the public code's output files read back exactly."""

from __future__ import annotations

import importlib.util
import pathlib

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _load(name):
    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


table = _load("herasimchyk_u_table")
profiles = _load("ml_uhh_reference_profiles")


def test_rule_thresholds_are_the_claims():
    assert table.rule_thresholds() == {"interior": 0.1, "end_factor": 2.0}


def test_mean_content_mpt7b_is_u_shaped_in_the_reference_convention_only_without_broadcast():
    t = table.rule_thresholds()
    (row,) = table.table_rows(["mean_content/fineweb-edu/mpt-7b"], t)
    assert row["L"] == 256
    assert row["reference"]["argmin"] == row["public"]["argmin"] == 72 and row["reference"]["U"]
    assert row["public"]["U"] and abs(row["reference"]["p(1)/min"] - row["public"]["p(1)/min"]) < 1e-11
    assert row["broadcast"]["argmin"] == 59 and not row["broadcast"]["U"]
    assert row["corrected"]["argmin"] == 72 and row["corrected"]["U"]
    text = table.render_text([("one", [row])], t)
    assert "U-shaped: reference 1/1, broadcast 0/1, corrected 1/1, public 1/1" in text
    csv = table.render_csv([("one", [row])]).split("\n")
    assert csv[0] == "config,L,column,argmin,p1_over_min,pL_over_min,u_shaped" and len(csv) == 5
    assert csv[1].startswith("mean_content/fineweb-edu/mpt-7b,256,reference,72,9.0885")


def test_later_config_without_a_stored_profile_shows_a_dash(monkeypatch, tmp_path):
    monkeypatch.setattr(table, "PUBLIC", str(tmp_path))
    t = table.rule_thresholds()
    (row,) = table.table_rows(["no_content_2048/mpt-7b"], t)
    assert row["L"] == 2048 and row["public"] is None
    assert row["reference"]["argmin"] == 57 and not row["reference"]["U"]  # valley at 57/2048 < L/10
    assert "U-shaped: reference 0/1, broadcast 0/1, corrected 0/1, public 0/0" in table.render_text([("x", [row])], t)


@pytest.mark.slow
def test_the_u_counts(capsys):
    # 15 of the 25 residual configs are U-shaped in the reference convention and in the public
    # code's own profiles; 14 with the broadcast of posbias 0.2
    assert table.main([]) == 0
    out = capsys.readouterr().out
    assert "U-shaped: reference 15/25, broadcast 14/25, corrected 15/25, public 15/25" in out
    assert "U-shaped: reference 0/5, broadcast 0/5, corrected 0/5, public 0/5" in out


def test_public_csv_is_read_exactly_and_written_as_repr(tmp_path, capsys, monkeypatch):
    rng = np.random.default_rng(3)
    values = rng.random(5) / 7
    d = tmp_path / "results" / "rollout" / "no_content" / "x"
    d.mkdir(parents=True)
    np.savetxt(d / "last_row_distribution.csv", np.column_stack((np.arange(5), values)), delimiter=",",
               header="token_position,probability", comments="")
    assert profiles.read_public_csv(str(d / "last_row_distribution.csv")) == values.tolist()
    out = tmp_path / "ref"
    monkeypatch.setattr(profiles, "OUT", str(out))
    assert profiles.main([str(tmp_path), "no_content/x"]) == 0
    lines = (out / "no_content" / "x.profile.csv").read_text().split("\n")
    assert lines[0] == "position,p" and lines[1] == f"0,{float(values[0])!r}"
    assert [float(ln.split(",")[1]) for ln in lines[1:6]] == values.tolist()


@pytest.mark.parametrize("row", ["1.000000000000000000e+00,5.0e-01", "0.000000000000000000e+00,__import__('os')",
                                 "0.000000000000000000e+00,nan"])
def test_public_csv_rejects_other_rows(tmp_path, row):
    f = tmp_path / "last_row_distribution.csv"
    f.write_text("token_position,probability\n" + row + "\n")
    with pytest.raises(SystemExit):
        profiles.read_public_csv(str(f))
