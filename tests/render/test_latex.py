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
    """Only sympy's documented printer protocol: ``_print`` and ``_print_<Class>`` methods, and
    the ``_settings`` mapping the printer keeps its settings in; no other private name."""
    from sympy.printing.latex import LatexPrinter

    assert issubclass(rl.PosbiasLatexPrinter, LatexPrinter)
    tree = ast.parse(pathlib.Path(rl.__file__).read_text())
    private = [n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)
               and n.attr.startswith("_") and not n.attr.startswith("__")
               and n.attr != "_print" and not n.attr.startswith("_print_") and n.attr != "_settings"]
    assert private == [], private


def test_printer_orders_terms_and_prints_them_in_that_order():
    x, y = sympy.symbols("x y")
    expr = sympy.log(x) + x**2 - 3 * y
    printer = rl.PosbiasLatexPrinter()
    assert printer.doprint(expr) == r"x^{2} - 3 y + \ln{\left(x\right)}"
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
    ("0 < c < 1 (c = 1 - 1/i for Cesàro row i)", "$0 < c < 1$ ($c = 1 - 1/i$ for Ces\\`aro row $i$)"),
    ("50% of the mass & more at x = 1", r"50\% of the mass \& more at $x = 1$"),
    # a set is one run (its comma does not end a clause) and its braces print
    ("logits in {0, 1} (the alternating sequences)", r"logits in $\{0, 1\}$ (the alternating sequences)"),
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


# ---------------------------------------------------------------------------------------------
# the printer's typography: term order, names, integrals

_a, _s, _H, _x, _y, _T, _c, _z = sympy.symbols("alpha s H x y T c z")


@pytest.mark.parametrize("expr, expected", [
    ((1 - _a + _a / (_s + 1)) ** _H, r"\left(1 - \alpha + \frac{\alpha}{1 + s}\right)^{H}"),
    (_H - 1, "H - 1"),
    (1 - _H, "1 - H"),
    (_x - _y, "x - y"),
    (-_y + _x**2 + 3, "3 - y + x^{2}"),
    (1 - _c / (_T + 1) ** 2, r"1 - \frac{c}{\left(1 + T\right)^{2}}"),
    (_z * sympy.Function("lambda")(_T) - sympy.Function("lambda")(_T) + 1,
     r"1 - \lambda\left(T\right) + z \lambda\left(T\right)"),
    (sympy.exp(_a) - 1, r"e^{\alpha} - 1"),
    (-_x - _y, "- x - y"),
])
def test_printer_term_order(expr, expected):
    assert rl.latex(expr) == expected


@pytest.mark.parametrize("expr, expected", [
    (sympy.Integral(sympy.Function("f")(_y), (_y, 0, _x)) / _x,
     r"\frac{1}{x} \int_{0}^{x} f\left(y\right)\,\mathrm{d}y"),
    (sympy.Derivative(sympy.Function("rho_c")(_x), _x),
     r"\frac{\mathrm{d}}{\mathrm{d} x} \rho_{c}\left(x\right)"),
    (sympy.log(_x / _y) ** (_H - 1), r"\ln^{H - 1}{\left(\frac{x}{y}\right)}"),
    (sympy.Function("K f")(_x), r"\left(K f\right)\left(x\right)"),
    (sympy.Function("rho^ALiBi_H")(_y), r"\rho^{\mathrm{ALiBi}}_{H}\left(y\right)"),
    (sympy.Symbol("epsilon") + sympy.Symbol("m_H"), r"\varepsilon + m_{H}"),
    (sympy.Function("Cov")(_x), r"\operatorname{Cov}\left(x\right)"),
    (sympy.MatrixSymbol("R_theta", 2, 2).T, r"R_{\theta}^{\top}"),
])
def test_printer_names_and_calculus(expr, expected):
    assert rl.latex(expr) == expected


def _walk(expr):
    yield expr
    for arg in getattr(expr, "args", ()):
        yield from _walk(arg)


def _formulas():
    from posbias.derivations import all_derivations

    return [(name, sympy.sympify(e)) for name, d in all_derivations().items()
            for e in (d.expression, *d.equations)]


def test_printer_prints_the_same_tree_as_sympy():
    """The printer changes order and typography only: for every sum in every displayed formula
    its terms are a permutation of the sum's arguments, each term printed on its own is a piece
    of the whole formula's LaTeX (with its sign), and the formula reassembled from the printed
    order is the formula."""
    from sympy.printing.str import StrPrinter

    printer = rl.PosbiasLatexPrinter()

    class OrderedStr(StrPrinter):  # sympy's text printer with the LaTeX printer's term order
        """Names as identifiers ``n0, n1, ...`` (``lambda`` is a Python keyword, ``K f`` has a
        space), kept in ``names`` for the parser."""

        def __init__(self):
            super().__init__()
            self.names = {}

        def _ident(self, obj):
            for key, value in self.names.items():
                if value == obj:
                    return key
            key = f"n{len(self.names)}"
            self.names[key] = obj
            return key

        def _print_Add(self, expr, order=None):
            return " + ".join(f"({self._print(t)})" for t in printer.ordered_terms(expr))

        def _print_Symbol(self, expr):
            if expr.name in ("+", "-", "+-"):  # a limit's direction
                return expr.name
            return self._ident(expr)

        def _print_Function(self, expr):
            if isinstance(expr, sympy.core.function.AppliedUndef):
                name = self._ident(expr.func)
                return name + "(" + ", ".join(self._print(a) for a in expr.args) + ")"
            return super()._print_Function(expr)

    for name, expr in _formulas():
        tex = printer.doprint(expr)
        for node in _walk(expr):
            if isinstance(node, sympy.Add):
                terms = printer.ordered_terms(node)
                assert sorted(map(sympy.srepr, terms)) == sorted(map(sympy.srepr, node.args)), name
                assert sympy.Add(*terms) == node
                for term in terms:
                    piece = printer.doprint(-term if term.could_extract_minus_sign() else term)
                    assert piece in tex, (name, piece)
        if not expr.atoms(sympy.MatrixSymbol, sympy.Integral, sympy.Sum, sympy.Product,
                          sympy.Limit, sympy.Derivative):
            text = OrderedStr()
            reparsed = sympy.sympify(text.doprint(expr), locals=text.names)
            assert sympy.simplify(reparsed.lhs - expr.lhs) == 0 if isinstance(expr, sympy.Eq) \
                else reparsed == expr, name


def test_notation_defines_every_symbol_the_sheet_uses():
    from posbias.derivations import all_derivations
    from posbias.render import notation

    derivations = list(all_derivations().values())
    symbols, functions, specials = notation.used_notation(derivations)
    assert {"m_H", "x", "H", "alpha"} <= set(symbols) and "rho_H" in functions
    tex = rl.render_tex(derivations)
    block, _body = tex.split("\\section*{Derivations}")
    assert "\\section*{Notation}" in block
    for sym in symbols:
        assert f"\\item[${rl.latex(sympy.Symbol(sym))}$" in block, sym
    for name in functions:
        if not name.startswith("K_") or name == "K_H":
            assert rl.latex(sympy.Function(name)(*sympy.symbols(notation.FUNCTIONS[name][0]))) \
                in block, name
    for cls in specials:
        assert notation.SPECIAL[cls][0] in block, cls
    # every symbol of every formula appears in the block, before the first formula
    for name, expr in _formulas():
        for s in expr.free_symbols:
            assert rl.latex(s) in block, (name, s)
    # no entry describes a symbol no formula uses
    assert set(notation.SYMBOLS) == set(symbols)
    assert set(notation.SPECIAL) == set(specials)
    assert set(notation.FUNCTIONS) - set(functions) <= {f"K_{h}" for h in range(1, 7)}


def test_notation_refuses_an_undefined_symbol():
    from posbias.render import notation

    class Fake:
        expression = sympy.Eq(sympy.Symbol("zeta_9"), 1)
        equations = ()

    with pytest.raises(KeyError, match="zeta_9"):
        notation.notation_entries([Fake()])


def test_sheet_carries_accents():
    from posbias.derivations import all_derivations

    tex = rl.render_tex(list(all_derivations().values()))
    assert "Cesaro" not in tex and "Ces\\`aro" in tex
    data = rl.render_json(list(all_derivations().values()))
    assert "Cesaro" not in data.replace("cesaro", "")


def test_notation_refuses_a_name_with_two_meanings(monkeypatch):
    from posbias.render import notation

    # S the number of sinks (a symbol) and, as it once was, S(tau, y) the kinetic profile
    monkeypatch.setitem(notation.FUNCTIONS, "S", (("tau", "y"), "the kinetic retrieval profile"))

    class Fake:
        expression = sympy.Eq(sympy.Function("S")(sympy.Symbol("tau"), sympy.Symbol("y")),
                              sympy.Symbol("S"))
        equations = ()

    with pytest.raises(ValueError, match=r"both as a symbol and as a function.*: S$"):
        notation.notation_entries([Fake()])


def test_every_printed_symbol_means_one_thing_in_the_sheet():
    """No name of the notation is both a symbol and a function (the StreamingLLM S and W against
    the kinetic profile, the ALiBi slope against the schedule lambda(t), the index k against the
    ALiBi kernel); each entry of the Notation block is printed once; the prose sets Greek letters
    as the formulas do and keeps words (Euler's, paper keys) in text."""
    from posbias.derivations import all_derivations
    from posbias.render import notation

    assert set(notation.SYMBOLS).isdisjoint(notation.FUNCTIONS)
    derivations = list(all_derivations().values())
    entries = notation.notation_entries(derivations)
    printed = [tex for _group, tex, _meaning in entries]
    assert len(printed) == len(set(printed)), sorted(h for h in printed if printed.count(h) > 1)
    for letter in ("S", "W", "k", "q", "a"):     # once each (a symbol), not again as a function
        assert sum(tex.split("\\left(")[0] == letter for tex in printed) <= 1, letter
    tex = rl.render_tex(derivations)
    assert "\\epsilon" not in tex and "\\varepsilon" in tex
    assert "}'s" not in tex and "\\mathrm{barbero}" not in tex and "\\mathrm{chowdhury}" not in tex
    assert "\\mathrm{Euler}" not in tex
    for prose, math in (("0 < epsilon < 1", r"$0 < \varepsilon < 1$"),
                        ("the mechanism of barbero2025", "the mechanism of barbero2025"),
                        ("Euler's integral", "Euler's integral"), ("eta > 0", r"$\eta > 0$")):
        assert rl.prose_to_latex(prose) == math


def test_a_formula_valid_at_one_parameter_value_carries_its_condition():
    """The dead-zone value rho_c(1/2) = ln(2)^(H-1)/(H-1)! holds at alpha = 1 only: it is printed
    as rho_c(1/2) at alpha = 1, under the bound that holds for every alpha."""
    from posbias.derivations import all_derivations

    tex = rl.render_tex(list(all_derivations(["minimum-dead-zone"]).values()))
    line = next(ln for ln in tex.splitlines() if "\\ln^{H - 1}{\\left(2\\right)}" in ln)
    assert line.startswith("\\left. \\rho_{c}\\left(\\frac{1}{2}\\right) \\right|") and "\\alpha=1" in line


def test_every_formula_of_a_derivation_is_numbered_and_the_sources_say_whose_numbering():
    from posbias.derivations import all_derivations

    derivations = list(all_derivations(["density", "collapse-rate", "uniform-path-sum"]).values())
    tex = rl.render_tex(derivations)
    assert "equation*" not in tex and "\\notag" not in tex
    density = tex.split("\\label{posbias:density}")[1].split("\\end{subequations}")[0]
    assert density.count("\\begin{equation}") == 3 and "\\label{posbias:density:3}" in density
    assert tex.count("\\begin{subequations}") == 1          # the one-formula derivations: a number
    assert "\\label{posbias:collapse-rate}" in tex
    assert "(\\texttt{chowdhury2026}; posbias item C3)" in tex       # posbias's index, said so
    assert "(\\texttt{barbero2024}, Theorem B.5, Proposition B.8)" in tex   # the paper's own
