"""``posbias latex``: every derivation as a labeled LaTeX equation, or as JSON for tools.

::

    posbias latex [--output FILE] [--only NAME ...] [--standalone | --fragment]
                  [--format tex|json]

The standalone document needs only ``amsmath`` and ``amssymb``; the fragment has no preamble and
is meant for ``\\input`` in a document that loads ``amsmath`` and ``amssymb``.  Each derivation's
first equation carries ``\\label{posbias:<name>}``.  Formulas come from ``sympy.latex`` on the
derivation's SymPy objects; long relations are broken at the relation sign and between top-level
terms (``multline``), never retyped.

>>> from posbias.cli.latex import escape_text
>>> escape_text("rho_H(x) = ln(1/x)^(H-1)/(H-1)! & 50%")
'rho\\\\_H(x) = ln(1/x)\\\\textasciicircum{}(H-1)/(H-1)! \\\\& 50\\\\%'
"""

from __future__ import annotations

import json
import sys

from posbias.errors import InvalidArgument

__all__ = ["add_parser", "run", "render_tex", "render_json", "escape_text", "equation_block"]

#: source length (after dropping sizing commands) above which an equation is broken over lines
LONG_EQUATION = 150
#: target length of one line of a broken equation
LINE_LENGTH = 110



def escape_text(text: str) -> str:
    """Escape plain text (titles, descriptions, assumptions) for LaTeX text mode."""
    from posbias.render.reports import latex_escape

    return latex_escape(text)


def _visible_length(tex: str) -> int:
    import re

    tex = re.sub(r"\\(left|right|operatorname|mathrm|limits)\b", "", tex)
    tex = re.sub(r"\\[a-zA-Z]+", "x", tex)
    return len(tex.replace("{", "").replace("}", "").replace(" ", ""))


def _split_relation(expr):
    """``(lhs, relation latex, rhs)`` for a SymPy relation, else None."""
    import sympy

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


def _terms_latex(expr) -> list[str]:
    """LaTeX of the top-level terms of a sum, in the printer's order, with their signs."""
    import sympy
    from sympy.printing.latex import LatexPrinter

    from posbias.derivations import to_latex

    if not isinstance(expr, sympy.Add):
        return [to_latex(expr)]
    printer = LatexPrinter({"ln_notation": True})
    out = []
    for i, term in enumerate(printer._as_ordered_terms(expr)):
        tex = to_latex(term)
        if i > 0 and not tex.startswith("-"):
            tex = "+ " + tex
        out.append(tex)
    return out


def equation_block(expr, label: str | None) -> str:
    """One displayed equation: ``equation`` when short, ``multline`` when long."""
    from posbias.derivations import to_latex

    tag = f"\\label{{{label}}}" if label else "\\notag"
    tex = to_latex(expr)
    if _visible_length(tex) <= LONG_EQUATION:
        env = "equation" if label else "equation*"
        tag = f"\\label{{{label}}}" if label else ""
        return f"\\begin{{{env}}}{tag}\n{tex}\n\\end{{{env}}}\n"
    rel = _split_relation(expr)
    lines: list[str] = []
    if rel is None:
        pieces = _terms_latex(expr)
    else:
        lhs, sym, rhs = rel
        lines.append(to_latex(lhs))
        pieces = _terms_latex(rhs)
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


def _section(d) -> str:
    from posbias.proofs_checks.registry import PAPERS

    parts = [f"\\subsection*{{{escape_text(d.title)}}}\n"]
    source = d.paper if d.paper in PAPERS else escape_text(d.paper)
    where = f"{source}, {d.section}" if d.section else source
    parts.append(f"{escape_text(d.description)} (\\texttt{{{escape_text(where)}}})\n\n")
    for i, eq in enumerate((d.expression, *d.equations)):
        parts.append(equation_block(eq, f"posbias:{d.name}" if i == 0 else None))
    if d.assumptions:
        parts.append("\\noindent Assumptions: " + escape_text("; ".join(d.assumptions)) + ".\\par\n")
    status = "yes" if d.proven else "no (open: " + "; ".join(d.unproven()) + ")"
    parts.append("\\noindent Proven symbolically: " + escape_text(status) + ".\n\n")
    return "".join(parts)


def render_tex(derivations, standalone: bool = True) -> str:
    """The LaTeX text for a list of derivations (standalone document or fragment)."""
    body = "".join(_section(d) for d in derivations)
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


def render_json(derivations) -> str:
    """JSON list of {name, title, description, latex, assumptions, paper, section, proven, ...}."""
    return json.dumps([d.as_dict() for d in derivations], indent=2) + "\n"


def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "latex",
        help="write the symbolic derivations as LaTeX (or JSON)",
        description="Write every derivation (or those named with --only) as a labeled LaTeX "
        "equation \\label{posbias:<name>} with a one-line description: a standalone document "
        "(amsmath, amssymb) or a fragment to \\input; --format json lists them for tools.",
    )
    p.add_argument("--output", "-o", metavar="FILE", default=None,
                   help="write here (atomically) instead of stdout")
    p.add_argument("--only", metavar="NAME", nargs="+", action="extend", default=None,
                   help="only these derivations (see --format json for the names)")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--standalone", dest="standalone", action="store_true", default=True,
                      help="a complete document that compiles with pdflatex (default)")
    mode.add_argument("--fragment", dest="standalone", action="store_false",
                      help="no preamble, for \\input in a paper")
    p.add_argument("--format", choices=("tex", "json"), default="tex",
                   help="tex (default) or json")
    p.set_defaults(func=run)


def run(args) -> int:
    from posbias.files import check_writable, write_output

    if args.output not in (None, "-"):
        check_writable(args.output, "--output")
    from posbias.derivations import all_derivations, derivation_names

    valid = derivation_names()
    names = valid
    if args.only:
        for name in args.only:
            if name not in valid:
                raise InvalidArgument("--only", name, "one of " + ", ".join(valid))
        names = list(dict.fromkeys(args.only))
    print(f"posbias latex: building {len(names)} derivation(s)", file=sys.stderr)
    derivations = list(all_derivations(names).values())
    if args.format == "json":
        text = render_json(derivations)
    else:
        text = render_tex(derivations, standalone=args.standalone)
    write_output(text, args.output, "--output")
    return 0
