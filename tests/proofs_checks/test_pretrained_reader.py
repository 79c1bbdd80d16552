"""The folder reader of measured influence (proofs_checks.pretrained) rejects bad files.  (The
tests of the claims that read such folders are beside each claim in tests/proofs_checks/claims/.)"""

import json

import pytest

from posbias.errors import InvalidArgument
from posbias.proofs_checks.pretrained import read_influence_csv, read_measured_folder


def test_reader_rejects_bad_files(tmp_path):
    d = tmp_path / "measured-influence"
    d.mkdir()
    cases = {
        "position,value\n1,0.5\n": "header",
        "position,influence\n1,0.5\n3,0.5\n": "consecutive",
        "position,influence\n1,0.5\n2,-1\n": "finite influences >= 0",
        "position,influence\n1,0.5\n2,abc\n": "a number",
        "position,influence\n1,0.5\n2,nan\n": "finite influences",
    }
    for text, fragment in cases.items():
        (d / "x.csv").write_text(text)
        with pytest.raises(InvalidArgument, match=fragment):
            read_influence_csv(str(d / "x.csv"))
    (d / "x.csv").write_text("position,influence\n0,1\n1,3\n")
    assert read_influence_csv(str(d / "x.csv")).tolist() == [0.25, 0.75]
    (d / "x.measurement.json").write_text(json.dumps({"stage": "trained"}))
    with pytest.raises(InvalidArgument, match="stage 'pretrained' or 'step-0'"):
        read_measured_folder(str(tmp_path))
