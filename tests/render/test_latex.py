"""The LaTeX printer (a LatexPrinter subclass with public methods only) and the prose around
the formulas set as math."""

import ast
import os
import pathlib
import shutil
import subprocess

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from posbias.render import latex as rl


def test_printer_is_a_latexprinter_subclass_using_no_private_methods():
    from sympy.printing.latex import LatexPrinter

    assert issubclass(rl.PosbiasLatexPrinter, LatexPrinter)
    tree = ast.parse(pathlib.Path(rl.__file__).read_text())
    private = [n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)
               and n.attr.startswith("_") and not n.attr.startswith("__")]
    assert private == [], private


def test_printer_agrees_with_sympy_latex_and_orders_terms():
    x, y = sympy.symbols("x y")
    expr = sympy.log(x) + x**2 - 3 * y
    printer = rl.PosbiasLatexPrinter()
    assert printer.doprint(expr) == sympy.latex(expr, ln_notation=True)
    terms = printer.ordered_terms(expr)
    assert sympy.Add(*terms) == expr
    # the printed sum is the printed terms in that order, joined by their signs
    pieces = [printer.doprint(t) for t in terms]
    joined = pieces[0] + "".join(" " + t if t.startswith("-") else " + " + t for t in pieces[1:])
    assert printer.doprint(expr) == joined


@pytest.mark.parametrize("text, expected", [
    ("continuum limit L -> oo with x = i/L, y = j/L",
     r"continuum limit $L \to \infty$ with $x = i/L$, $y = j/L$"),
    ("k ~ N(0, sigma^2 I_d) independent of q", r"$k \sim N(0, \sigma ^{2} I_{d})$ independent of $q$"),
    ("H a positive integer (symbolic)", "$H$ a positive integer (symbolic)"),
    ("0 < a < 2", "$0 < a < 2$"),
    ("0 < c < 1 (c = 1 - 1/i for Cesaro row i)", "$0 < c < 1$ ($c = 1 - 1/i$ for Cesaro row $i$)"),
    ("50% of the mass & more at x = 1", r"50\% of the mass \& more at $x = 1$"),
])
def test_prose_to_latex(text, expected):
    assert rl.prose_to_latex(text) == expected


def test_standalone_document_has_no_escaped_math():
    from posbias.derivations import all_derivations

    tex = rl.render_tex(list(all_derivations(["hardy-kernel", "density", "rope-init"]).values()))
    for bad in (r"\textgreater", r"\textasciicircum", r"\textless", "-> oo", "sigma^2"):
        assert bad not in tex, bad
    assert r"L \to \infty" in tex and r"\sigma ^{2}" in tex


@pytest.mark.skipif(not shutil.which("pdflatex") and os.environ.get("POSBIAS_REQUIRE_PDFLATEX") != "1",
                    reason="pdflatex not installed")
def test_every_derivation_compiles(tmp_path):
    from posbias.derivations import all_derivations

    (tmp_path / "all.tex").write_text(rl.render_tex(list(all_derivations().values())))
    proc = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "all.tex"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=180, check=False)
    assert proc.returncode == 0, proc.stdout[-3000:]
    log = (tmp_path / "all.log").read_text(errors="replace")
    assert "Missing $ inserted" not in log


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.text(max_size=60))
def test_prose_to_latex_never_fails_and_balances_math(text):
    """Any text gives LaTeX with balanced math shifts, no raw special characters in text mode
    and nothing evaluated (the translation is token by token)."""
    out = rl.prose_to_latex(text)
    unescaped = out.replace("\\$", "")
    assert unescaped.count("$") % 2 == 0
    text_mode = unescaped.split("$")[::2]
    for chunk in text_mode:
        for ch in "^_%&#":
            assert ch not in chunk.replace("\\" + ch, "").replace("\\textasciicircum{}", ""), (text, out)
