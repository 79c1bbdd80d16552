"""The pytest11 plugin: `pytest --posbias` runs user claims (and built-in ones) as test items."""

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
