"""The pytest11 plugin: `pytest --posbias` runs user claims (and built-in ones) as test items."""

import subprocess
import sys

import pytest

USER_MODULE = '''
from posbias.proofs_checks import Evidence, claim

@claim("mylab:holds", statement="one equals one", latex="1 = 1", expected="verified")
def _holds(ctx):
    return Evidence("verified" if 1 == 1 else "refuted", method="integer comparison")

@claim("mylab:drifted", statement="a verdict that changed", latex="x", expected="verified")
def _drifted(ctx):
    return Evidence("refuted", method="exact", counterexample="L = 2")

@claim("mylab:nodata", statement="needs weights", latex="x", expected="verified")
def _nodata(ctx):
    return Evidence("needs-data", method="no weights")
'''


def test_user_claims_collected_and_judged(pytester):
    pytester.makepyfile(mylab_claims=USER_MODULE)
    pytester.makeconftest("import mylab_claims  # registers the lab's claims\n")
    result = pytester.runpytest_subprocess(
        "--posbias", "--posbias-paper", "mylab", "-p", "no:cacheprovider", "-v"
    )
    result.assert_outcomes(passed=1, failed=1, skipped=1)
    result.stdout.fnmatch_lines(["*mylab:drifted*expected verified, got refuted*"])


def test_plugin_inert_without_flag(pytester):
    pytester.makepyfile(test_plain="def test_one():\n    assert 1 + 1 == 2\n")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)


def test_import_option(pytester):
    pytester.makepyfile(mylab_claims=USER_MODULE)
    result = pytester.runpytest_subprocess(
        "--posbias", "--posbias-import", "mylab_claims", "--posbias-paper", "mylab",
        "-k", "holds", "-p", "no:cacheprovider",
    )
    result.assert_outcomes(passed=1, deselected=2)


# The layout the documentation shows: a folder holding mylab/claims.py (a namespace package,
# no __init__.py), pytest started from that folder.
LAB_MODULE = '''
from posbias.proofs_checks import Evidence, claim

@claim("mylab:row-sums", statement="rows sum to one", latex=r"\\sum_j p_j = 1",
       expected="verified")
def _rows(ctx):
    return Evidence("verified", method="exact identity", discrepancy="0")

@claim("mylab:from-data", statement="a figure read from the data directory", latex="x",
       expected="needs-data", needs=("data: mylab/figure.csv",))
def _from_data(ctx):
    import os
    if ctx.data_dir is None or not os.path.exists(os.path.join(ctx.data_dir, "figure.csv")):
        return Evidence("needs-data", method="reads figure.csv", details={"needed": "figure.csv"})
    return Evidence("verified", method="reads figure.csv", discrepancy="0")

@claim("mylab:needs-weights", statement="needs weights", latex="x", expected="verified",
       needs=("data: the lab's checkpoint",))
def _weights(ctx):
    return Evidence("needs-data", method="no weights")
'''


def _lab(tmp_path):
    """A project folder with mylab/claims.py and a data folder holding figure.csv."""
    project = tmp_path / "project"
    (project / "mylab").mkdir(parents=True)
    (project / "mylab" / "claims.py").write_text(LAB_MODULE, encoding="utf-8")
    (project / "data").mkdir()
    (project / "data" / "figure.csv").write_text("position,influence\n1,1\n", encoding="utf-8")
    # the `pytest` script: a file outside the project, so that its own folder (not the working
    # directory) is first on the import path, as for the installed console script
    script = tmp_path / "bin" / "pytest"
    script.parent.mkdir()
    script.write_text("import sys\nimport pytest\nsys.exit(pytest.main())\n", encoding="utf-8")
    return project, script


def _run(spelling, project, script, *args):
    start = [sys.executable, str(script)] if spelling == "pytest" else [sys.executable, "-m", "pytest"]
    return subprocess.run([*start, "-p", "no:cacheprovider", *args], cwd=project,
                          capture_output=True, text=True, timeout=300, check=False)


@pytest.mark.parametrize("spelling", ["pytest", "python -m pytest"])
def test_documented_layout_both_spellings(tmp_path, spelling):
    project, script = _lab(tmp_path)
    proc = _run(spelling, project, script, "--posbias", "--posbias-import", "mylab.claims",
                "--posbias-paper", "mylab", "-rs")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "INTERNALERROR" not in proc.stdout + proc.stderr
    assert "1 passed, 2 skipped" in proc.stdout
    assert "mylab:needs-weights needs data: data: the lab's checkpoint" in proc.stdout


#: bad plugin options and what pytest's usage message says about each
BAD_OPTIONS = [
    (["--posbias-import", "mylab.nothere"], "argument --posbias-import: 'mylab.nothere' is invalid"),
    (["--posbias-import", "nosuchlab"], "no module named 'nosuchlab'"),
    (["--posbias-import", "os; rm"], "a dotted Python module name"),
    (["--posbias-dps", "0"], "argument --posbias-dps: '0' is invalid: expected an integer between"),
    (["--posbias-dps", "many"], "argument --posbias-dps: 'many' is invalid"),
    (["--posbias-data-dir", "no-such-dir"], "argument --posbias-data-dir: 'no-such-dir' is invalid"),
]


@pytest.mark.parametrize("spelling, args, needle", [
    *(("pytest", args, needle) for args, needle in BAD_OPTIONS),
    ("python -m pytest", *BAD_OPTIONS[1]),
])
def test_bad_options_are_usage_errors(tmp_path, spelling, args, needle):
    project, script = _lab(tmp_path)
    proc = _run(spelling, project, script, "--posbias", *args)
    assert proc.returncode == 4, proc.stdout + proc.stderr
    assert "usage:" in proc.stderr and needle in proc.stderr
    assert "INTERNALERROR" not in proc.stdout + proc.stderr
    assert "Traceback" not in proc.stdout + proc.stderr


def test_module_that_raises_is_a_usage_error(tmp_path):
    project, script = _lab(tmp_path)
    (project / "broken.py").write_text("raise RuntimeError('half-written module')\n")
    proc = _run("pytest", project, script, "--posbias", "--posbias-import", "broken")
    assert proc.returncode == 4
    assert "--posbias-import broken: the module raised RuntimeError" in proc.stderr
    assert "half-written module" in proc.stderr and "INTERNALERROR" not in proc.stdout


def test_data_dir_and_strict(tmp_path):
    """--posbias-data-dir gives the data claims their data: a claim with no expected verdict
    of its own passes with the verdict its data give, listed as new; --posbias-strict fails a
    claim still lacking its data, naming what it needed."""
    project, script = _lab(tmp_path)
    proc = _run("pytest", project, script, "--posbias", "--posbias-import", "mylab.claims",
                "--posbias-paper", "mylab", "--posbias-data-dir", "data")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "2 passed, 1 skipped" in proc.stdout
    assert "new verdicts" in proc.stdout and "mylab:from-data: verified" in proc.stdout
    proc = _run("pytest", project, script, "--posbias", "--posbias-import", "mylab.claims",
                "--posbias-paper", "mylab", "--posbias-data-dir", "data", "--posbias-strict")
    assert proc.returncode == 1
    assert "2 passed" in proc.stdout and "1 failed" in proc.stdout
    assert "mylab:needs-weights needs data (--posbias-strict): data: the lab's checkpoint" \
        in proc.stdout
    # a data file a claim would read that is not UTF-8 text: a usage error naming the file
    (project / "data" / "bad.csv").write_bytes(b"\xff\xfe")
    proc = _run("pytest", project, script, "--posbias", "--posbias-data-dir", "data")
    assert proc.returncode == 4 and "--posbias-data-dir file" in proc.stderr
