"""LaTeX of the derivations: a printer, displayed equations, and documents.

Formulas come from :class:`~posbias.derivations.printing.PosbiasLatexPrinter` (re-exported here), a
subclass of sympy's ``LatexPrinter`` that sets formulas as a paper does; long relations
are broken at the relation sign and between top-level terms (``multline``), never retyped.  The
prose around the formulas (descriptions, assumptions) is written in plain ASCII mathematics
(``L -> oo``, ``sigma^2``, ``rho_H(x)``); :func:`prose_to_latex` sets the mathematical runs of it
in math mode (``$L \\to \\infty$``) and escapes the rest.  It translates a small fixed notation
token by token and never evaluates the text.

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

from sympy import Basic

from posbias.derivations.printing import PosbiasLatexPrinter, latex, name_latex, term_sort_key

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


def escape_text(text: str) -> str:
    """Escape plain text (titles, descriptions, assumptions) for LaTeX text mode."""
    from posbias.render.reports import latex_escape

    return latex_escape(text)


# ---------------------------------------------------------------------------------------------
# prose with ASCII mathematics

_GREEK = ("alpha", "beta", "gamma", "delta", "epsilon", "eta", "lambda", "mu", "pi", "rho", "sigma",
          "tau", "theta", "kappa", "psi", "nu", "omega", "xi", "zeta", "Gamma", "Delta", "Lambda",
          "Pi", "Sigma", "Omega")
#: Greek letters set in the variant the formula printer uses, so prose and formulas agree
_VARIANT = {"epsilon": "varepsilon"}
_FUNCTIONS = {"ln": r"\ln", "exp": r"\exp", "sin": r"\sin", "cos": r"\cos", "sqrt": r"\sqrt",
              "int": r"\int", "prod": r"\prod", "sum": r"\sum", "max": r"\max", "min": r"\min",
              "log": r"\log", "inf": r"\inf", "sup": r"\sup"}
_MATH_NAMES = set(_GREEK) | set(_FUNCTIONS) | {"oo"}
_MATH_CHARS = set("=<>^_/+*!~|")
#: single letters that are English words in the prose
_PROSE_LETTERS = {"a", "A"}


_OPERATORS = {"->", "...", "-", "+", "<", ">", "<=", ">=", "=", "~"}


def _is_math_token(token: str) -> bool:
    """Whether one space-separated token of prose is mathematics."""
    core = token.strip("(),.;:")
    if not core:
        return False
    if core in _OPERATORS:
        return True
    if not re.search(r"[A-Za-z0-9]", core) or re.fullmatch(r"[0-9.]+%", core):
        return False  # punctuation such as & or #, and percentages, are prose
    if core.startswith("--") or re.fullmatch(r"[-+]?[0-9.]+[eE][-+]?[0-9]+", core):
        return False  # a command-line flag, a number in e-notation: text reads them as typed
    if re.fullmatch(r"[A-Za-z]+['\u2019]s|[a-z]{2,}[0-9]{4}[a-z]?", core):
        return False  # a possessive (Euler's) and a paper's key (barbero2025) are words
    if "-" in core and not set(core) & (_MATH_CHARS | set("()[]")):
        # hyphenated names (Step-0, qwen2-24L-d112, BLOOM-7b1) are prose; H-1, 1-alpha are math
        words = [w for w in re.findall(r"[A-Za-z]{2,}", core) if w not in _MATH_NAMES]
        if words:
            return False
    if re.fullmatch(r"[^\W\d_]+(-[^\W\d_]+)*|[A-Za-z]+(\.[A-Za-z]+)+", core):  # words, e.g.
        if len(core) == 1:
            return core not in _PROSE_LETTERS
        return core in _MATH_NAMES or any("\u0370" <= ch <= "\u03ff" for ch in core)  # αM
    # numbers, ranges 1..6, and anything mixing symbols with operators or brackets
    return True


def _braced(text: str, i: int) -> tuple[str, int]:
    """The argument of ``^``/``_`` starting at ``text[i]``: ``{...}``, ``(...)`` (parentheses
    dropped) or one signed token; returns (argument, index after it)."""
    if i >= len(text):
        return "", i
    if text[i] in "{(":
        depth, j = 0, i  # "{" and "(" nest together; the match closes the argument
        while j < len(text):
            if text[j] in "{(":
                depth += 1
            elif text[j] in "})":
                depth -= 1
                if depth == 0:
                    break
            j += 1
        return text[i + 1:j], j + 1
    m = re.match(r"-?[A-Za-z0-9]+|-", text[i:])
    if m:
        return m.group(0), i + m.end()
    return "", i


#: operators spelt in ASCII and their LaTeX, tried in this order
_ASCII_OPERATORS = {"->": r" \to ", "<=": r" \leq ", ">=": r" \geq ", "...": r" \ldots "}


def _math(text: str) -> str:
    """Translate one run of ASCII mathematics into LaTeX math (no evaluation)."""
    out = []
    i = 0
    while i < len(text):
        ch = text[i]
        token = next((t for t in _ASCII_OPERATORS if text.startswith(t, i)), None)
        if token is not None:
            out.append(_ASCII_OPERATORS[token])
            i += len(token)
        elif ch in "^_":
            arg, j = _braced(text, i + 1)
            out.append(f"{ch}{{{_math(arg)}}}" if arg else ch + "{}")
            i = j
        elif ch == "~":
            out.append(r" \sim ")
            i += 1
        elif ch == "*":
            out.append(r" \cdot ")
            i += 1
        elif ch in "%&#$":
            out.append("\\" + ch)
            i += 1
        elif ch in "{}":
            out.append(ch)
            i += 1
        elif not ch.isascii():  # λ, ≤, ∞ ...: the text escaper's macro, in math mode
            out.append(escape_text(ch).replace("$", "") + " ")
            i += 1
        elif ch == "\\":
            out.append(r"\backslash ")
            i += 1
        elif ch.isalpha():
            m = re.match(r"[A-Za-z]+", text[i:])
            assert m is not None  # text[i] is a letter
            word = m.group(0)
            if word in _GREEK:
                out.append(f"\\{_VARIANT.get(word, word)} ")
            elif word in _FUNCTIONS:
                out.append(_FUNCTIONS[word] + " ")
            elif word == "oo":
                out.append(r"\infty ")
            elif len(word) > 1:
                out.append(r"\mathrm{" + word + "}")
            else:
                out.append(word)
            i += len(word)
        else:
            out.append(ch)
            i += 1
    return re.sub(r" +", " ", "".join(out)).strip()


def prose_to_latex(text: str) -> str:
    """Text mode with the mathematical runs of ``text`` set as math.

    A run is a maximal sequence of tokens that are mathematics (contain an operator such as
    ``=``, ``<``, ``^``, ``_``, ``/``, ``->``, a parenthesised argument, a number, a single
    letter other than the article ``a``, a Greek letter name or ``oo``); the punctuation that
    ends a sentence stays in text mode, and so do unbalanced parentheses.
    """
    tokens = str(text).split(" ")
    math = [bool(t) and _is_math_token(t) for t in tokens]
    for n, tok in enumerate(tokens):  # the article "a" is a variable between operators
        if tok in _PROSE_LETTERS and any(0 <= m < len(tokens) and tokens[m].strip("(),;:") in _OPERATORS
                                         for m in (n - 1, n + 1)):
            math[n] = True
    pieces: list[str] = []
    run: list[str] = []

    def flush() -> None:
        if not run:
            return
        body = " ".join(run)
        tail = ""
        m = re.search(r"[,.;:]+$", body)
        if m and not body.endswith("..."):
            body, tail = body[: m.start()], m.group(0)
        # parentheses that open or close outside the run stay in text mode
        stack, unmatched = [], []
        for n, ch in enumerate(body):
            if ch == "(":
                stack.append(n)
            elif ch == ")":
                if stack:
                    stack.pop()
                else:
                    unmatched.append(n)
        cuts = sorted(unmatched + stack)
        out, start = [], 0
        for n in [*cuts, len(body)]:
            part = body[start:n]
            if part.strip():
                stripped = part.strip()
                if re.fullmatch(r"[0-9]+", stripped):  # a bare number reads as text
                    out.append(part.replace(stripped, escape_text(stripped)))
                else:
                    out.append(part.replace(stripped, "$" + _math(stripped) + "$"))
            else:
                out.append(part)
            if n < len(body):
                out.append(body[n])
            start = n + 1
        pieces.append("".join(out) + escape_text(tail))
        run.clear()

    for tok, is_math in zip(tokens, math):
        if is_math:
            run.append(tok)
            joined = " ".join(run)
            # a clause ends here, unless inside parentheses: N(0, sigma^2 I_d)
            if re.search(r"[,;:]$|[^.]\.$", tok) and joined.count("(") <= joined.count(")"):
                flush()
        else:
            flush()
            pieces.append(escape_text(tok))
    flush()
    return " ".join(pieces)


# ---------------------------------------------------------------------------------------------
# equations and documents

def _visible_length(tex: str) -> int:
    tex = re.sub(r"\\(left|right|operatorname|mathrm|limits)\b", "", tex)
    tex = re.sub(r"\\[a-zA-Z]+", "x", tex)
    return len(tex.replace("{", "").replace("}", "").replace(" ", ""))


def _split_relation(expr: Basic) -> tuple[Basic, str, Basic] | None:
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


def _terms_latex(expr: Basic, printer: PosbiasLatexPrinter) -> list[str]:
    """LaTeX of the top-level terms of a sum, in the printer's order, with their signs."""
    import sympy

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
    from posbias.render.notation import notation_entries

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
