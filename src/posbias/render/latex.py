"""LaTeX of the derivations: a printer, displayed equations, and documents.

Formulas come from :class:`~posbias.derivations.printing.PosbiasLatexPrinter` (re-exported here), a
subclass of sympy's ``LatexPrinter`` that sets formulas as a paper does; long relations
are broken at the relation sign and between top-level terms (``multline``), never retyped.  The
prose around the formulas (descriptions, assumptions) is written in plain ASCII mathematics
(``L -> oo``, ``sigma^2``, ``rho_H(x)``); :func:`prose_to_latex` sets the mathematical runs of it
in math mode (``$L \\to \\infty$``) and escapes the rest.  It translates a small fixed notation
token by token and never evaluates the text.

Text and prose are set by :mod:`posbias.render.tex` (:func:`escape_text` and
:func:`prose_to_latex` are re-exported here).

The standalone document needs only ``amsmath`` and ``amssymb``; the fragment has no preamble and
is meant for ``\\input`` in a document that loads ``amsmath`` and ``amssymb``.  Each derivation's
first equation carries ``\\label{posbias:<name>}``.

>>> escape_text("rho_H(x) = ln(1/x)^(H-1)/(H-1)! & 50%")
'rho\\\\_H(x) = ln(1/x)\\\\textasciicircum{}(H-1)/(H-1)! \\\\& 50\\\\%'
>>> prose_to_latex("continuum limit L -> oo with x = i/L")
'continuum limit $L \\\\to \\\\infty$ with $x = i/L$'
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

import sympy
from sympy import Basic

from posbias.derivations.printing import PosbiasLatexPrinter, latex, name_latex, term_sort_key
from posbias.render.notation import notation_entries
from posbias.render.tex import escape_text, prose_to_latex

if TYPE_CHECKING:
    from posbias.derivations import Derivation

__all__ = [
    "LINE_LENGTH",
    "LONG_EQUATION",
    "PosbiasLatexPrinter",
    "equation_block",
    "escape_text",
    "latex",
    "name_latex",
    "notation_block",
    "prose_to_latex",
    "render_json",
    "render_tex",
    "term_sort_key",
]

#: source length (after dropping sizing commands) above which an equation is broken over lines
LONG_EQUATION = 150
#: target length of one line of a broken equation
LINE_LENGTH = 110


# ---------------------------------------------------------------------------------------------
# equations and documents

def _visible_length(tex: str) -> int:
    tex = re.sub(r"\\(left|right|operatorname|mathrm|limits)\b", "", tex)
    tex = re.sub(r"\\[a-zA-Z]+", "x", tex)
    return len(tex.replace("{", "").replace("}", "").replace(" ", ""))


def _split_relation(expr: Basic) -> tuple[Basic, str, Basic] | None:
    """``(lhs, relation latex, rhs)`` for a SymPy relation, else None."""
    symbols = {
        sympy.Equality: "=",
        sympy.LessThan: r"\leq",
        sympy.GreaterThan: r"\geq",
        sympy.StrictLessThan: "<",
        sympy.StrictGreaterThan: ">",
    }
    for cls, sym in symbols.items():
        if isinstance(expr, cls):
            return expr.lhs, sym, expr.rhs
    return None


def _terms_latex(expr: Basic, printer: PosbiasLatexPrinter) -> list[str]:
    """LaTeX of the top-level terms of a sum, in the printer's order, with their signs."""
    if not isinstance(expr, sympy.Add):
        return [printer.doprint(expr)]
    out = []
    for i, term in enumerate(printer.ordered_terms(expr)):
        tex = printer.doprint(term)
        if i > 0 and not tex.startswith("-"):
            tex = "+ " + tex
        out.append(tex)
    return out


def equation_block(expr: Basic, label: str | None) -> str:
    """One displayed equation: ``equation`` when short, ``multline`` when long."""
    printer = PosbiasLatexPrinter()
    tag = f"\\label{{{label}}}" if label else "\\notag"
    tex = printer.doprint(expr)
    if _visible_length(tex) <= LONG_EQUATION:
        env = "equation" if label else "equation*"
        tag = f"\\label{{{label}}}" if label else ""
        return f"\\begin{{{env}}}{tag}\n{tex}\n\\end{{{env}}}\n"
    rel = _split_relation(expr)
    lines: list[str] = []
    if rel is None:
        pieces = _terms_latex(expr, printer)
    else:
        lhs, sym, rhs = rel
        lines.append(printer.doprint(lhs))
        pieces = _terms_latex(rhs, printer)
        pieces[0] = f"{sym} {pieces[0]}"
    current = ""
    for piece in pieces:
        if current and _visible_length(current + piece) > LINE_LENGTH:
            lines.append(current)
            current = ""
        current = f"{current} {piece}".strip()
    if current:
        lines.append(current)
    body = " \\\\\n".join(lines)
    return f"\\begin{{multline}}{tag}\n{body}\n\\end{{multline}}\n"


def _section(d: Derivation) -> str:
    parts = [f"\\subsection*{{{prose_to_latex(d.title)}}}\n"]
    parts.append(f"{prose_to_latex(d.description)} ({_source(d.paper, d.section)})\n\n")
    formulas = (d.expression, *d.equations)
    label = f"posbias:{d.name}"
    if len(formulas) == 1:
        parts.append(equation_block(formulas[0], label))
    else:  # one number for the derivation, a letter for each of its formulas: (3a), (3b), ...
        parts.append(f"\\begin{{subequations}}\\label{{{label}}}\n")
        parts += [equation_block(eq, f"{label}:{i}") for i, eq in enumerate(formulas, 1)]
        parts.append("\\end{subequations}\n")
    if d.assumptions:
        parts.append("\\noindent Assumptions: " + "; ".join(prose_to_latex(a) for a in d.assumptions)
                     + ".\\par\n")
    parts.append("\\noindent Proof status: " + prose_to_latex(d.proof_status) + ".\n\n")
    return "".join(parts)


#: posbias's index of the theory's statements (C2, H4, X7): not a paper's numbering
_INDEX = re.compile(r"[CHXW][0-9]+(, [CHXW][0-9]+)*")


def _source(paper: str, section: str) -> str:
    """Where a derivation comes from: the paper's key, then the paper's own place (as the paper
    numbers it), or posbias's index item, named as such so it is not read as the paper's."""
    key = f"\\texttt{{{escape_text(paper)}}}"
    if not section:
        return key
    if _INDEX.fullmatch(section):
        return f"{key}; posbias item{'s' if ',' in section else ''} {escape_text(section)}"
    return f"{key}, {escape_text(section)}"


def notation_block(derivations: Iterable[Derivation]) -> str:
    """The Notation section: every symbol, function and special function the formulas of
    ``derivations`` use, with its meaning (from :mod:`posbias.render.notation`), grouped, in
    order of first appearance."""
    parts = ["\\section*{Notation}\n",
             "Positions are fractions of the sequence of length $L$ in the continuum limit "
             "$L \\to \\infty$. Symbols bound by an integral, a sum, a product or a limit are "
             "defined by it. Each derivation has one equation number, with a letter for each of "
             "its formulas. Items such as C2 or X7 after a paper's key are posbias's index of the "
             "theory's statements, not the paper's numbering; a paper's own theorems and "
             "sections are named as the paper numbers them.\n"]
    group = None
    for name, tex, meaning in notation_entries(derivations):
        if name != group:
            if group is not None:
                parts.append("\\end{list}\n")
            parts.append(f"\\paragraph{{{name}}}\n"
                         "\\begin{list}{}{\\setlength{\\labelwidth}{7.5em}"
                         "\\setlength{\\leftmargin}{8.5em}\\setlength{\\itemsep}{0pt}"
                         "\\setlength{\\parsep}{0pt}}\n")
            group = name
        parts.append(f"\\item[${tex}$\\hfill] {prose_to_latex(meaning)}\n")
    if group is not None:
        parts.append("\\end{list}\n")
    return "".join(parts)


def render_tex(derivations: Iterable[Derivation], standalone: bool = True) -> str:
    """The LaTeX text for a list of derivations (standalone document or fragment), the
    Notation section first."""
    derivations = list(derivations)
    body = notation_block(derivations) + "\\section*{Derivations}\n" + "".join(
        _section(d) for d in derivations)
    if not standalone:
        return ("% posbias latex fragment: \\input this file in a document that loads the "
                "amsmath and amssymb packages\n" + body)
    return (
        "\\documentclass[10pt]{article}\n"
        "\\usepackage{amsmath}\n"
        "\\usepackage{amssymb}\n"
        "\\setlength{\\textwidth}{6.5in}\n"
        "\\setlength{\\oddsidemargin}{0in}\n"
        "\\setlength{\\evensidemargin}{0in}\n"
        "\\allowdisplaybreaks\n"
        "\\title{posbias: derivations of the continuum theory of position bias}\n"
        "\\date{}\n"
        "\\begin{document}\n"
        "\\maketitle\n"
        + body
        + "\\end{document}\n"
    )


def render_json(derivations: Iterable[Derivation]) -> str:
    """JSON list of {name, title, description, latex, assumptions, paper, section, proven, ...}."""
    return json.dumps([d.as_dict() for d in derivations], indent=2, allow_nan=False) + "\n"
