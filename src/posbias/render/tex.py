"""Text for LaTeX: escaping plain text (pdflatex-safe) and setting prose written in ASCII
mathematics (``L -> oo``, ``sigma^2``, ``rho_H(x)``) with its mathematical runs in math mode.

Used by the report formats (:mod:`posbias.render.reports`), the sheet of derivations
(:mod:`posbias.render.latex`) and its notation block; nothing here needs sympy.
:func:`prose_to_latex` translates a small fixed notation token by token and never evaluates the
text.

>>> escape_text("rho_H(x) = ln(1/x)^(H-1)/(H-1)! & 50%")
'rho\\\\_H(x) = ln(1/x)\\\\textasciicircum{}(H-1)/(H-1)! \\\\& 50\\\\%'
>>> prose_to_latex("continuum limit L -> oo with x = i/L")
'continuum limit $L \\\\to \\\\infty$ with $x = i/L$'
"""

from __future__ import annotations

import re

__all__ = ["escape_text", "latex_escape", "prose_to_latex"]


_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
}


_LATEX_UNICODE = {
    "α": r"$\alpha$", "β": r"$\beta$", "γ": r"$\gamma$", "δ": r"$\delta$", "ε": r"$\varepsilon$",
    "κ": r"$\kappa$", "λ": r"$\lambda$", "μ": r"$\mu$", "π": r"$\pi$", "ρ": r"$\rho$",
    "σ": r"$\sigma$", "τ": r"$\tau$", "χ": r"$\chi$", "Γ": r"$\Gamma$", "Π": r"$\Pi$",
    "Σ": r"$\Sigma$", "Θ": r"$\Theta$", "≥": r"$\geq$", "≤": r"$\leq$", "≈": r"$\approx$",
    "≠": r"$\neq$", "→": r"$\to$", "⇔": r"$\Leftrightarrow$", "∞": r"$\infty$", "√": r"$\surd$",
    "·": r"$\cdot$", "×": r"$\times$", "∈": r"$\in$", "∫": r"$\int$", "∑": r"$\sum$",
    "−": "-", "–": "--", "—": "---", "…": r"\ldots{}", "’": "'", "‘": "`", "“": "``", "”": "''",
    "⋯": r"$\cdots$", "ℓ": r"$\ell$", "²": r"$^2$", "³": r"$^3$", "à": r"\`a", "é": r"\'e",
    "è": r"\`e", "ü": r'\"u', "ö": r'\"o', "ä": r'\"a', "Å": r"\AA{}",
}


def latex_escape(text: str) -> str:
    r"""Escape plain text for LaTeX (pdflatex-safe: non-ASCII symbols become macros).

    >>> latex_escape("λ ∈ [0,1] & 50% of x_1")
    '$\\lambda$ $\\in$ [0,1] \\& 50\\% of x\\_1'
    """
    out = []
    for ch in str(text):
        if ch in _LATEX_SPECIAL:
            out.append(_LATEX_SPECIAL[ch])
        elif ch in _LATEX_UNICODE:
            out.append(_LATEX_UNICODE[ch])
        elif ord(ch) < 128:
            out.append(ch)
        else:
            out.append("?")
    return "".join(out)


def escape_text(text: str) -> str:
    """Escape plain text (titles, descriptions, assumptions) for LaTeX text mode."""
    return latex_escape(text)


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
        elif ch in "%&#${}":  # escaped; braces outside a super- or subscript are a set, {0, 1}
            out.append("\\" + ch)
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
            if (re.search(r"[,;:]$|[^.]\.$", tok) and joined.count("(") <= joined.count(")")
                    and joined.count("{") <= joined.count("}")):
                flush()
        else:
            flush()
            pieces.append(escape_text(tok))
    flush()
    return " ".join(pieces)
