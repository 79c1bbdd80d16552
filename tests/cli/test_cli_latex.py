"""``posbias latex``: JSON, standalone LaTeX compiled with pdflatex, fragment, errors."""

import json
import os
import shutil
import subprocess

import pytest

from posbias.cli import main
from posbias.render.latex import equation_block, escape_text

FAST = ["hardy-kernel", "density", "rope-init"]


def _run(capsys, *argv):
    code = main(["latex", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_json_lists_fields(capsys):
    code, out, _ = _run(capsys, "--format", "json", "--only", *FAST)
    assert code == 0
    data = json.loads(out)
    assert [d["name"] for d in data] == FAST
    for d in data:
        for key in ("name", "title", "description", "latex", "assumptions", "paper", "section",
                    "proven"):
            assert key in d
        assert d["proven"] is True
        assert isinstance(d["assumptions"], list) and d["assumptions"]


def test_json_all_names(capsys):
    from posbias.derivations import derivation_names

    code, out, _ = _run(capsys, "--format", "json")
    assert code == 0
    assert [d["name"] for d in json.loads(out)] == derivation_names()


def test_fragment_has_no_preamble_and_labels(capsys):
    code, out, _ = _run(capsys, "--fragment", "--only", "density", "hardy-kernel")
    assert code == 0
    assert "\\documentclass" not in out and "\\begin{document}" not in out
    assert "\\label{posbias:density}" in out and "\\label{posbias:hardy-kernel}" in out


def _compile(tmp_path, tex_path):
    if not shutil.which("pdflatex"):
        if os.environ.get("POSBIAS_REQUIRE_PDFLATEX") == "1":
            pytest.fail("pdflatex is required (POSBIAS_REQUIRE_PDFLATEX=1) but not installed")
        pytest.skip("pdflatex not installed")
    proc = subprocess.run(
        ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", tex_path.name],
        cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False,
    )
    log = (tmp_path / tex_path.with_suffix(".log").name).read_text(errors="replace")
    assert proc.returncode == 0, log[-3000:]
    assert (tmp_path / tex_path.with_suffix(".pdf").name).exists()
    return log


def test_standalone_compiles_with_pdflatex(tmp_path, capsys):
    out = tmp_path / "all.tex"
    code, stdout, _ = _run(capsys, "--output", str(out))
    assert code == 0 and stdout == ""
    text = out.read_text()
    assert text.startswith("\\documentclass")
    from posbias.derivations import derivation_names

    for name in derivation_names():
        assert f"\\label{{posbias:{name}}}" in text
    # only amsmath and amssymb
    packages = [line for line in text.splitlines() if line.startswith("\\usepackage")]
    assert packages == ["\\usepackage{amsmath}", "\\usepackage{amssymb}"]
    log = _compile(tmp_path, out)
    # no badly overfull lines (more than 20pt)
    import re

    over = [float(m) for m in re.findall(r"Overfull \\hbox \(([0-9.]+)pt too wide\)", log)]
    assert all(o < 20 for o in over), over


def test_fragment_compiles_inside_a_document(tmp_path, capsys):
    frag = tmp_path / "frag.tex"
    assert _run(capsys, "--fragment", "--only", *FAST, "-o", str(frag))[0] == 0
    doc = tmp_path / "doc.tex"
    doc.write_text("\\documentclass{article}\n\\usepackage{amsmath}\n\\usepackage{amssymb}\n"
                   "\\begin{document}\nSee (\\ref{posbias:density}).\n\\input{frag}\n"
                   "\\end{document}\n")
    _compile(tmp_path, doc)


@pytest.mark.parametrize("bad", [["nope"], ["density", "Density"]])
def test_bad_only_exits_2_with_one_line(capsys, bad):
    code, out, err = _run(capsys, "--only", *bad)
    assert code == 2 and out == ""
    lines = [l for l in err.splitlines() if l.startswith("posbias: error")]
    assert len(lines) == 1
    wrong = next(b for b in bad if b != "density")
    assert f"--only = {wrong}" in lines[0] and "hardy-kernel" in lines[0] and "rope-init" in lines[0]


def test_unwritable_output_exits_2_and_writes_nothing(tmp_path, capsys):
    target = tmp_path / "missing-dir" / "out.tex"
    code, _, err = _run(capsys, "--output", str(target), "--only", "density")
    assert code == 2 and "--output" in err
    assert not target.exists()
    ro = tmp_path / "ro"
    ro.mkdir()
    os.chmod(ro, 0o500)
    try:
        if os.access(ro, os.W_OK):  # running as root: permissions are not enforced
            pytest.skip("directory permissions not enforced for this user")
        code, _, err = _run(capsys, "-o", str(ro / "x.tex"), "--only", "density")
        assert code == 2 and "--output" in err
        assert list(ro.iterdir()) == []
    finally:
        os.chmod(ro, 0o700)


def test_output_is_atomic_replace(tmp_path, capsys):
    target = tmp_path / "out.json"
    target.write_text("old")
    assert _run(capsys, "--format", "json", "--only", "density", "-o", str(target))[0] == 0
    assert json.loads(target.read_text())[0]["name"] == "density"
    assert [p.name for p in tmp_path.iterdir()] == ["out.json"]


def test_standalone_and_fragment_are_exclusive(capsys):
    code, _, err = _run(capsys, "--standalone", "--fragment")
    assert code == 2 and "not allowed" in err


def test_long_equation_is_broken():
    import sympy

    x = sympy.Symbol("x")
    long_sum = sympy.Eq(sympy.Symbol("S"), sum(sympy.Symbol(f"a_{i}") * x**i for i in range(40)))
    block = equation_block(long_sum, "posbias:test")
    assert block.startswith("\\begin{multline}\\label{posbias:test}")
    assert block.count("\\\\") >= 2
    assert equation_block(sympy.Eq(x, 1), None) == "\\begin{equation*}\nx = 1\n\\end{equation*}\n"


def test_escape_text():
    assert escape_text("a_b ^ 50% & {x}") == "a\\_b \\textasciicircum{} 50\\% \\& \\{x\\}"
