"""The package's LaTeX printer: sympy's ``LatexPrinter`` setting formulas as a paper does.

:class:`PosbiasLatexPrinter` prints the same expression tree as sympy (only the order of the terms
of a sum and the typography change), so a formula's LaTeX is always its stored SymPy object
printed.  It lives with the derivations, which print their own results
(:func:`posbias.derivations.core.to_latex`); :mod:`posbias.render.latex` uses it for the sheet.

>>> import sympy
>>> H = sympy.Symbol("H")
>>> latex(H - 1), name_latex("rho^ALiBi_H")
('H - 1', '\\\\rho^{\\\\mathrm{ALiBi}}_{H}')
"""

from __future__ import annotations

import re
from typing import Any

import sympy
from sympy import Basic
from sympy.core.function import AppliedUndef
from sympy.core.relational import Relational
from sympy.printing.conventions import split_super_sub
from sympy.printing.latex import LatexPrinter, translate
from sympy.printing.precedence import PRECEDENCE

__all__ = ["PosbiasLatexPrinter", "latex", "name_latex", "term_sort_key"]


def term_sort_key(term: Basic) -> tuple:
    """Where a term of a sum stands in :class:`PosbiasLatexPrinter`'s order (see
    :meth:`PosbiasLatexPrinter.ordered_terms`): ``(kind, degree, negative, sympy's key)``.

    ``kind`` is 0 for a constant, 1 for a monomial (a number times non-negative integer powers
    of variables: symbols and undefined functions such as ``lambda(t)``) and 2 for any other term;
    ``degree`` is a monomial's total degree.
    """
    negative = bool(term.could_extract_minus_sign())
    if term.is_number:
        return (0, 0, negative, sympy.default_sort_key(term))
    degree = 0
    for factor in sympy.Mul.make_args(term):
        if factor.is_number:
            continue
        base, exp = factor.as_base_exp()
        if exp.is_Integer and exp > 0 and (base.is_Symbol or isinstance(base, AppliedUndef)):
            degree += int(exp)
        else:
            return (2, 0, negative, sympy.default_sort_key(term))
    return (1, degree, negative, sympy.default_sort_key(term))


#: Greek letter names ``translate`` turns into a macro (for ``\\mathrm`` on other words)
_UPRIGHT_WORD = re.compile(r"[A-Za-z]{2,}")
#: symbol names printed with another letter form than sympy's
_LETTER_FORMS = {"epsilon": r"\varepsilon"}


def _paren(tex: str) -> str:
    """``tex`` in growing parentheses."""
    return r"\left(" + tex + r"\right)"


def _script(text: str) -> str:
    """A sub- or superscript of a name: a Greek name as its letter, another word (``ALiBi``)
    upright, single letters and numbers as they are."""
    if text in _LETTER_FORMS:
        return _LETTER_FORMS[text]
    tex = translate(text)
    if tex == text and _UPRIGHT_WORD.fullmatch(text):
        return r"\mathrm{" + text + "}"
    return tex


def name_latex(name: str, operator: bool = False) -> str:
    """LaTeX of a symbol's or an undefined function's name, in the sheet's typography.

    A one-letter or Greek name is a variable (italic, Greek letters as macros: ``rho_H`` gives
    ``\\rho_{H}``, ``epsilon`` gives ``\\varepsilon``); a longer word is an operator name and
    upright when ``operator`` (``Cov``), else a variable set letter by letter; sub- and
    superscript words are labels and upright (``rho^ALiBi_H``); a name with spaces (``K f``, the
    operator ``K`` applied to ``f``) is its parts side by side; a name already in LaTeX
    (containing ``{`` or ``\\``) is kept.

    >>> name_latex("rho^ALiBi_H"), name_latex("m_H"), name_latex("Cov", operator=True)
    ('\\\\rho^{\\\\mathrm{ALiBi}}_{H}', 'm_{H}', '\\\\operatorname{Cov}')
    """
    if "{" in name or "\\" in name:
        return name
    if " " in name:
        return " ".join(name_latex(part, operator) for part in name.split())
    base, supers, subs = split_super_sub(name)
    if base in _LETTER_FORMS:
        tex = _LETTER_FORMS[base]
    else:
        tex = translate(base)
        if tex == base and len(base) > 1:
            tex = r"\operatorname{" + base + "}" if operator else base
    if supers:
        tex += "^{" + " ".join(_script(t) for t in supers) + "}"
    if subs:
        tex += "_{" + " ".join(_script(t) for t in subs) + "}"
    return tex


class PosbiasLatexPrinter(LatexPrinter):
    """sympy's LaTeX printer set as a paper appendix sets formulas.

    - **Terms of a sum** in the order :meth:`ordered_terms` states (``1 - \\alpha +
      \\frac{\\alpha}{1 + s}``, ``H - 1``), not sympy's.
    - **Names**: variables italic, Greek names as letters (``\\varepsilon`` for epsilon),
      operator names upright (``\\ln``, ``\\exp``, ``\\operatorname{Cov}``), labels in sub- and
      superscripts upright (``\\rho^{\\mathrm{ALiBi}}_{H}``), see :func:`name_latex`; the
      differential upright (``\\mathrm{d}``); powers of a logarithm as ``\\ln^{k}(...)``;
      the transpose as ``^{\\top}``.
    - **Integrals** with their limits beside the sign (``\\int_{0}^{1}``, never ``\\limits``),
      and a product with an integral or a sum over a denominator as ``\\frac{1}{x} \\int ...``
      rather than a fraction with the integral in its numerator; binomial coefficients lead a
      product.

    Only the printing changes: each ``_print_<Class>`` method (sympy's documented way to extend
    a printer) prints the same expression tree, in another order or typography.

    >>> import sympy
    >>> a, s, H = sympy.symbols("alpha s H")
    >>> PosbiasLatexPrinter().doprint((1 - a + a / (1 + s)) ** H)
    '\\\\left(1 - \\\\alpha + \\\\frac{\\\\alpha}{1 + s}\\\\right)^{H}'
    """

    def __init__(self, settings: dict[str, Any] | None = None) -> None:
        super().__init__({"ln_notation": True, "diff_operator": "rd", **(settings or {})})

    # -- sums ----------------------------------------------------------------------------------
    def ordered_terms(self, expr: Basic) -> list:
        """The terms of a sum in the order the printer prints them.

        The rule: constants first, then monomials by ascending total degree, then every other
        term (fractions, functions, powers with symbolic exponents); within each group positive
        terms before negative ones, then sympy's canonical order.  A sum that would then begin
        with a minus sign while it has a positive term begins with its first positive term
        instead (``H - 1``, ``e^{\\lambda} - 1``, not ``-1 + H``).
        """
        terms = sorted(expr.args, key=term_sort_key)
        if terms and terms[0].could_extract_minus_sign():
            for i, term in enumerate(terms):
                if not term.could_extract_minus_sign():
                    terms.insert(0, terms.pop(i))
                    break
        return terms

    def _print_Add(self, expr: Basic, order: str | None = None) -> str:
        tex = ""
        for i, ordered in enumerate(self.ordered_terms(expr)):
            term = ordered
            if i > 0:
                if ordered.could_extract_minus_sign():
                    tex += " - "
                    term = -ordered
                else:
                    tex += " + "
            piece = self._print(term)
            if isinstance(term, Relational) or (i > 0 and term.is_Add):
                piece = _paren(piece)
            tex += piece
        return tex

    # -- products ------------------------------------------------------------------------------
    def _print_Mul(self, expr: Basic) -> str:
        if expr.could_extract_minus_sign():
            positive = -expr
            if isinstance(positive, sympy.Mul):
                return "- " + self.parenthesize(positive, PRECEDENCE["Add"])
        factors = sympy.Mul.make_args(expr)
        binomials = [f for f in factors if isinstance(f, sympy.binomial)]
        if binomials and len(factors) > len(binomials):
            rest = sympy.Mul(*[f for f in factors if not isinstance(f, sympy.binomial)])
            tex = self._print(rest)
            if rest.is_Add:
                tex = _paren(tex)
            return " ".join(self._print(b) for b in binomials) + " " + tex
        numerator, denominator = [], []
        for f in factors:
            base, exp = f.as_base_exp()
            if exp.is_Rational and exp.is_negative:
                denominator.append(base ** -exp)
            else:
                numerator.append(f)
        bound = (sympy.Integral, sympy.Sum, sympy.Product)
        if denominator and any(isinstance(f, bound) for f in numerator):
            top = sympy.Mul(*numerator)
            tex = self._print(top) if isinstance(top, bound) else self.parenthesize(
                top, PRECEDENCE["Mul"])
            return r"\frac{1}{" + self._print(sympy.Mul(*denominator)) + "} " + tex
        return super()._print_Mul(expr)

    # -- calculus ------------------------------------------------------------------------------
    def _print_Integral(self, expr: Basic) -> str:
        signs: list[str] = []
        differentials: list[str] = []
        for limit in expr.limits:  # innermost first
            if len(limit) == 3:
                sign = r"\int_{" + self._print(limit[1]) + "}^{" + self._print(limit[2]) + "}"
            elif len(limit) == 2:
                sign = r"\int^{" + self._print(limit[1]) + "}"
            else:
                sign = r"\int"
            signs.insert(0, sign)
            differentials.append(r"\,\mathrm{d}" + self._print(limit[0]))
        body = self.parenthesize(expr.function, PRECEDENCE["Mul"], strict=True)
        return " ".join(signs) + " " + body + "".join(differentials)

    def _print_log(self, expr: Basic, exp: str | None = None) -> str:
        name = r"\ln" if self._settings["ln_notation"] else r"\log"
        power = "^{" + str(exp) + "}" if exp is not None else ""
        return name + power + "{" + _paren(self._print(expr.args[0])) + "}"

    # -- names ---------------------------------------------------------------------------------
    def _print_Symbol(self, expr: Basic, style: str = "plain") -> str:
        name = self._settings["symbol_names"].get(expr)
        if name is not None:
            return name
        tex = name_latex(expr.name)
        return r"\mathbf{" + tex + "}" if style == "bold" else tex

    def _print_AppliedUndef(self, expr: Basic, exp: str | None = None) -> str:
        name = name_latex(type(expr).__name__, operator=True)
        if " " in type(expr).__name__:
            name = _paren(name)
        tex = name + _paren(", ".join(self._print(a) for a in expr.args))
        return tex + "^{" + str(exp) + "}" if exp is not None else tex

    def _print_MatrixSymbol(self, expr: Basic) -> str:
        return name_latex(expr.name)

    def _print_Transpose(self, expr: Basic) -> str:
        inner = self._print(expr.arg)
        if not isinstance(expr.arg, sympy.MatrixSymbol):
            inner = _paren(inner)
        return inner + r"^{\top}"


def latex(expr: Basic) -> str:
    """LaTeX of a SymPy object with the package's printer."""
    return PosbiasLatexPrinter().doprint(expr)
