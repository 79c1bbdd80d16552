"""The Sphinx reference builds with warnings as errors, and its code examples pass as doctests.

Needs the ``docs`` extra (``pip install ".[docs]"``); skipped with the reason when Sphinx or
myst-parser is missing.  Builds run in a subprocess so that autodoc's imports and mocks never leak
into the test process.
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parent.parent / "docs"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(importlib.util.find_spec("sphinx") is None,
                       reason="Sphinx is not installed (the docs extra: pip install '.[docs]')"),
    pytest.mark.skipif(importlib.util.find_spec("myst_parser") is None,
                       reason="myst-parser is not installed (the docs extra: pip install '.[docs]')"),
]


def _build(builder: str, out: Path) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", builder,
           "-d", str(out / "doctrees"), str(DOCS), str(out / builder)]
    return subprocess.run(cmd, check=False, capture_output=True, text=True, timeout=900)


def test_html_builds_without_warnings(tmp_path):
    run = _build("html", tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    index = (tmp_path / "html" / "index.html").read_text(encoding="utf-8")
    assert "posbias" in index
    # every API page exists and documents its modules (autodoc found them)
    for page, name in [("numerics", "cesaro_profile_exact"), ("derivations", "get_derivation"),
                       ("proofs_checks", "Evidence"), ("render", "posbias.render.reports"),
                       ("front", "InvalidArgument")]:
        html = (tmp_path / "html" / "api" / f"{page}.html").read_text(encoding="utf-8")
        assert name in html, f"{name} missing from api/{page}.html"
    # no page still points to a file outside the repository
    for html in (tmp_path / "html").rglob("*.html"):
        text = html.read_text(encoding="utf-8")
        assert "THEORY.md" not in text and "DESIGN.md" not in text, html.name


def test_doctests_in_the_docs_pass(tmp_path):
    run = _build("doctest", tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    summary = (tmp_path / "doctest" / "output.txt").read_text(encoding="utf-8")
    assert "0 failures in tests" in summary
    tried = re.search(r"^\s*(\d+) tests?$", summary, flags=re.MULTILINE)
    assert tried is not None and int(tried.group(1)) > 0, summary
