"""Reference pages generated from the package itself, so that they follow it without editing rst.

Three directives:

``.. posbias-claim-modules:: PACKAGE``
    The API reference of the built-in claims: one section per paper under ``PACKAGE``
    (``posbias.proofs_checks.claims``).  A paper is either one module (``claims/wu2025.py``) or a
    package of claim modules (``claims/wu2025/``) that lists them in ``MODULES``, one module per
    claim; the package's section documents the package and then each module of ``MODULES`` in
    that order.  Private modules (a leading ``_``) are left out, as the claims package itself
    leaves them out when it imports the papers.
``.. posbias-claim-list::``
    Every registered built-in claim: id, expected verdict, the scope of its card, the module that
    holds its check and the test files that name it.
``.. posbias-cli::``
    Every subcommand of ``posbias`` with its usage, its options (flags, metavariable, help with
    the defaults filled in) grouped as ``--help`` groups them, and its example.

The first two are plain functions of a package (:func:`claim_module_sections`,
:func:`claim_modules_rst`), tested on a fake package without Sphinx.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import pkgutil
import re
from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import Directive
from docutils.statemachine import StringList

ROOT = Path(__file__).resolve().parents[2]


# --------------------------------------------------------------------------- claim modules
def claim_module_sections(package: str) -> list[tuple[str, str, list[str]]]:
    """``(paper, module, claim modules)`` for every public paper under ``package``, by name.

    ``module`` is the paper's module or package; ``claim modules`` are the modules of its
    ``MODULES`` (a package split into one module per claim), or empty for a paper that is one
    module.  A package without ``MODULES`` is an error: the claims package imports exactly the
    modules a paper lists, so a package that lists none would document nothing.
    """
    pkg = importlib.import_module(package)
    sections = []
    for info in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda i: i.name):
        if info.name.startswith("_"):
            continue
        name = f"{package}.{info.name}"
        module = importlib.import_module(name)
        if not info.ispkg:
            sections.append((info.name, name, []))
            continue
        listed = getattr(module, "MODULES", None)
        if listed is None:
            raise ValueError(f"{name} is a package without MODULES: list its claim modules")
        sections.append((info.name, name, [f"{name}.{m}" for m in listed]))
    return sections


def _text(text: str) -> str:
    """Plain text as reStructuredText: one line, markup characters escaped."""
    return re.sub(r"([\\*`|_])", r"\\\1", " ".join(text.split()))


def _cli_text(text: str) -> str:
    """Help text as reStructuredText, its flags (``--strict``, ``-n``) as literals (so that no
    typographic rule turns their dashes into a dash)."""
    return re.sub(r"(?<![\w`-])(--?[a-z][a-z0-9-]*)", r"``\1``", _text(text))


def _heading(text: str, char: str) -> list[str]:
    return [text, char * len(text), ""]


def claim_modules_rst(package: str) -> list[str]:
    """The reStructuredText of :func:`claim_module_sections`: a section per paper, a
    subsection per claim module, each with its ``automodule``."""
    lines: list[str] = []
    for paper, module, claims in claim_module_sections(package):
        lines += _heading(f"``{module}``", "-")
        if claims:
            lines += [f".. automodule:: {module}", "   :no-members:", ""]
            lines += [f"Claim modules of {paper}, in the order of ``MODULES``: "
                      + ", ".join(f":mod:`~{m}`" for m in claims) + ".", ""]
            for m in claims:
                lines += _heading(f"``{m}``", "~")
                lines += [f".. automodule:: {m}", ""]
        else:
            lines += [f".. automodule:: {module}", ""]
    return lines


def _parse(directive: Directive, lines: list[str]) -> list[nodes.Node]:
    from sphinx.util.nodes import nested_parse_with_titles

    env = directive.state.document.settings.env
    env.note_dependency(__file__)
    if not hasattr(env, "posbias_generated"):
        env.posbias_generated = set()
    env.posbias_generated.add(env.docname)  # read again on every build: the package may change
    holder = nodes.section()
    holder.document = directive.state.document
    source = directive.state.document.current_source or "posbias_reference"
    nested_parse_with_titles(directive.state, StringList(lines, source=source), holder)
    return list(holder.children)


class ClaimModules(Directive):
    required_arguments = 1

    def run(self) -> list[nodes.Node]:
        return _parse(self, claim_modules_rst(self.arguments[0]))


# --------------------------------------------------------------------------- claim list
def claim_tests(claim) -> list[str]:
    """The test files of a claim: its own module ``tests/proofs_checks/claims/<paper>/
    test_<slug>.py`` where it exists, else the per-paper test files that name its id."""
    slug = claim.slug.replace("-", "_")
    own = ROOT / "tests" / "proofs_checks" / "claims" / claim.paper / f"test_{slug}.py"
    if own.is_file():
        return [own.relative_to(ROOT).as_posix()]
    folder = ROOT / "tests" / "proofs_checks"
    found = []
    for path in sorted(folder.glob("test_*.py")):
        text = path.read_text(encoding="utf-8")
        if claim.id in text or re.search(rf"""["']{re.escape(claim.slug)}["']""", text):
            found.append(path.relative_to(ROOT).as_posix())
    return found


def claim_list_rst() -> list[str]:
    from posbias.proofs_checks import all_claims
    from posbias.proofs_checks.registry import PAPERS

    lines: list[str] = []
    claims = [c for c in all_claims() if c.paper in PAPERS]
    for paper in dict.fromkeys(c.paper for c in claims):
        lines += _heading(paper, "-")
        lines += [".. list-table::", "   :header-rows: 1", "   :widths: 26 10 9 55", "",
                  "   * - claim", "     - expected", "     - scope", "     - statement; check; tests"]
        for c in (c for c in claims if c.paper == paper):
            scope = c.card.resolve()["scope"] if c.card is not None else ""
            module = inspect.getmodule(c.check)
            where = module.__name__ if module is not None else "?"
            tests = ", ".join(f"``{t}``" for t in claim_tests(c)) or "none found"
            statement = _text(c.statement)
            lines += [f"   * - ``{c.id}``", f"     - {c.expected}", f"     - {scope}",
                      f"     - {statement}", "",
                      f"       check: :mod:`{where}`; tests: {tests}"]
        lines.append("")
    return lines


class ClaimList(Directive):
    def run(self) -> list[nodes.Node]:
        return _parse(self, claim_list_rst())


# --------------------------------------------------------------------------- command line
def _help(parser: argparse.ArgumentParser, action: argparse.Action) -> str:
    formatter = parser._get_formatter()
    text = formatter._expand_help(action) if action.help else ""
    return " ".join(text.split())


def _option_rst(parser: argparse.ArgumentParser, action: argparse.Action) -> list[str]:
    if action.option_strings:
        metavar = ""
        if action.nargs != 0:
            metavar = " " + parser._get_formatter()._format_args(action, action.dest.upper())
        name = ", ".join(f"{o}{metavar}" for o in action.option_strings)
    else:
        name = parser._get_formatter()._format_args(action, action.dest.upper())
    return [f"``{name}``", f"   {_cli_text(_help(parser, action)) or '(no help text)'}", ""]


def cli_rst() -> list[str]:
    from posbias.cli import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    lines: list[str] = []
    helps = {a.dest: a.help for a in sub._choices_actions}
    for name, p in sub.choices.items():
        lines += _heading(f"posbias {name}", "-")
        if helps.get(name):
            lines += [f"*{_text(helps[name])}*", ""]
        lines += ["::", ""] + ["   " + line for line in p.format_usage().rstrip().splitlines()] + [""]
        if p.description:
            lines += [_cli_text(p.description), ""]
        for group in p._action_groups:
            actions = [a for a in group._group_actions if not isinstance(a, argparse._HelpAction)]
            if not actions:
                continue
            lines += _heading(_cli_text(group.title or "options"), "~")
            if group.description:
                lines += [_cli_text(group.description), ""]
            for action in actions:
                lines += _option_rst(p, action)
        if p.epilog:
            lines += ["::", ""] + ["   " + line for line in p.epilog.strip().splitlines()] + [""]
    return lines


class Cli(Directive):
    def run(self) -> list[nodes.Node]:
        return _parse(self, cli_rst())


def _always_outdated(app, env, added, changed, removed) -> list[str]:
    return sorted(getattr(env, "posbias_generated", set()) - set(removed))


def _purge(app, env, docname) -> None:
    getattr(env, "posbias_generated", set()).discard(docname)


def _merge(app, env, docnames, other) -> None:
    env.posbias_generated = getattr(env, "posbias_generated", set()) | (
        getattr(other, "posbias_generated", set()) & set(docnames))


def setup(app):
    app.connect("env-get-outdated", _always_outdated)
    app.connect("env-purge-doc", _purge)
    app.connect("env-merge-info", _merge)
    app.add_directive("posbias-claim-modules", ClaimModules)
    app.add_directive("posbias-claim-list", ClaimList)
    app.add_directive("posbias-cli", Cli)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
