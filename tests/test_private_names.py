"""No module of the package reaches into another module's private names.

A name that starts with one underscore is private to its module: another module neither imports
it (``from posbias.x import _y``) nor reaches it through a module object (``import posbias.x as
m; m._y``, ``getattr(m, "_y")``).  What two modules share is public and documented where it
lives.  Dunder names (``__version__``) are public; private *modules* (``numerics/_compiled.py``,
``cli/_common.py``) may be imported, but the names other modules take from them are public.

The scan reads every source file of the package (the folders of setuptools' package-dir mapping in
pyproject.toml) with :mod:`ast`; it follows absolute imports of ``posbias``, which is the only
form the package uses, and refuses relative imports so that none slips past it.

Second rule, checked here too: an import inside a function is there for a reason, and says it.
Every module imports what it uses at module level, so that the import-linter contracts see the
package's real dependencies (a loop hidden in a function is still a loop).  The exceptions are
the optional extras (torch, transformers, tokenizers, accelerate, matplotlib, ruamel.yaml, dask,
numba, pyarrow), imported where they are needed so that the package works without them, and a
few imports kept off the start-up of every command; each carries a comment on its line or on
the line above it.
"""

from __future__ import annotations

import ast
import os
from collections.abc import Iterable, Iterator

import tomllib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Folders not yet held to the rule, relative to the repository root.
#: folders whose modules may use other modules' private names: none (the claim modules share
#: their paper's helpers through the public names of ``claims/<paper>/_shared.py``)
EXEMPT: tuple[str, ...] = ()


def _is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def package_modules(root: str = ROOT) -> dict[str, str]:
    """``{dotted module name: source path}`` for every module of the package."""
    with open(os.path.join(root, "pyproject.toml"), "rb") as fh:
        mapping = tomllib.load(fh)["tool"]["setuptools"]["package-dir"]
    modules: dict[str, str] = {}
    mapped = {os.path.normpath(os.path.join(root, f)) for f in mapping.values()}
    for package, relative in mapping.items():
        top = os.path.normpath(os.path.join(root, relative))
        for folder, subfolders, files in os.walk(top):
            # a subfolder mapped on its own is walked as its own package; one without an
            # __init__.py is not a package
            subfolders[:] = sorted(d for d in subfolders if d != "__pycache__"
                                   and os.path.normpath(os.path.join(folder, d)) not in mapped
                                   and os.path.isfile(os.path.join(folder, d, "__init__.py")))
            inner = os.path.relpath(folder, top).replace(os.sep, ".")
            dotted_folder = package if inner == "." else f"{package}.{inner}"
            for name in sorted(files):
                if name.endswith(".py"):
                    stem = name[:-3]
                    dotted = dotted_folder if stem == "__init__" else f"{dotted_folder}.{stem}"
                    modules[dotted] = os.path.join(folder, name)
    return modules


def _private_uses(tree: ast.AST, modules: Iterable[str]) -> Iterator[tuple[int, str]]:
    """``(line, what)`` for each private name of another package module the tree uses."""
    known = set(modules)
    aliases: dict[str, str] = {}  # local name -> package module it is bound to
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                yield node.lineno, "relative import (the scan follows absolute imports only)"
                continue
            source = node.module or ""
            for alias in node.names:
                target = f"{source}.{alias.name}"
                if target in known:  # a module, private or not, bound to a local name
                    aliases[alias.asname or alias.name] = target
                elif source in known and _is_private(alias.name):
                    yield node.lineno, f"from {source} import {alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in known:
                    if alias.asname:
                        aliases[alias.asname] = alias.name
                    else:
                        aliases[alias.name.split(".")[0]] = alias.name.split(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _is_private(node.attr):
            owner = _dotted(node.value, aliases)
            if owner is not None and owner in known:
                yield node.lineno, f"{owner}.{node.attr}"
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
              and node.func.id in {"getattr", "hasattr", "setattr"} and len(node.args) >= 2
              and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str)
              and _is_private(node.args[1].value)):
            owner = _dotted(node.args[0], aliases)
            if owner is not None and owner in known:
                yield node.lineno, f"{node.func.id}({owner}, {node.args[1].value!r})"


def _dotted(node: ast.expr, aliases: dict[str, str]) -> str | None:
    """The package module an expression such as ``m`` or ``posbias.numerics.kernels`` names."""
    if isinstance(node, ast.Name):
        return aliases.get(node.id)
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value, aliases)
        return None if base is None else f"{base}.{node.attr}"
    return None


def violations(modules: dict[str, str], root: str = ROOT,
               exempt: Iterable[str] = EXEMPT) -> list[str]:
    """``path:line: what`` for every private name one module takes from another."""
    exempt = tuple(exempt)
    found = []
    for path in sorted(modules.values()):
        rel = os.path.relpath(path, root).replace(os.sep, "/")
        if rel.startswith(exempt):
            continue
        with open(path, encoding="utf-8") as fh:
            tree = ast.parse(fh.read(), filename=path)
        for line, what in _private_uses(tree, modules):
            found.append(f"{rel}:{line}: {what}")
    return found


def test_no_module_uses_another_modules_private_names():
    found = violations(package_modules())
    assert not found, "private names used across modules:\n" + "\n".join(found)


def test_the_scan_finds_planted_uses(tmp_path):
    """Each form of reaching into another module is reported; public and dunder names are not."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "lib.py").write_text("def _helper(): pass\n__all__ = []\n")
    (tmp_path / "pkg" / "_private.py").write_text("def shared(): pass\n")
    planted = {
        "a": "from posbias.lib import _helper\n",
        "b": "import posbias.lib as m\nm._helper()\n",
        "c": "from posbias import lib\nlib._helper()\n",
        "d": "import posbias.lib\nposbias.lib._helper()\n",
        "e": "from posbias import lib\ngetattr(lib, '_helper')\n",
        "f": "from . import lib\n",
        "g": "from posbias._private import _shared\n",
    }
    clean = ("from posbias.lib import __all__\nfrom posbias import _private\n"
             "from posbias._private import shared\n_private.shared()\n"
             "def _own(): pass\n_own()\n")
    modules = {"posbias.lib": str(tmp_path / "pkg" / "lib.py"),
               "posbias._private": str(tmp_path / "pkg" / "_private.py")}
    for name, text in [*planted.items(), ("clean", clean)]:
        (tmp_path / "pkg" / f"{name}.py").write_text(text)
        modules[f"posbias.{name}"] = str(tmp_path / "pkg" / f"{name}.py")
    found = violations(modules, root=str(tmp_path))
    reported = {line.split("/")[1].split(".py")[0] for line in found}
    assert reported == set(planted), found
    assert len(found) == len(planted), found


def test_the_scan_reads_every_subpackage():
    """The command line and the renderers are folders of the mapped posbias package."""
    modules = package_modules()
    for name in ("posbias.cli.measure", "posbias.render.latex", "posbias.numbers",
                 "posbias.measurements.loop", "posbias.proofs_checks.stored"):
        assert name in modules, name


def test_nothing_is_exempt():
    """No folder is exempt, the claim modules included, and the scan reads them."""
    assert EXEMPT == ()
    assert "posbias.proofs_checks.claims.wu2025._trained" in package_modules()


#: the top-level packages of the optional extras
EXTRAS = {"torch", "transformers", "tokenizers", "accelerate", "huggingface_hub", "matplotlib",
          "ruamel", "dask", "distributed", "numba", "llvmlite", "pyarrow"}


def _commented(lines: list[str], lineno: int) -> bool:
    """Whether the import on line ``lineno`` (1-based) has a comment on its line, or a comment
    line heads the run of import lines it belongs to."""
    if "#" in lines[lineno - 1]:
        return True
    k = lineno - 2
    while k >= 0 and lines[k].strip().startswith(("import ", "from ")):
        k -= 1
    return k >= 0 and lines[k].strip().startswith("#")


def local_imports(path: str) -> list[tuple[int, str, bool]]:
    """``(line, module, has a reason)`` for every import inside a function of ``path``."""
    with open(path, encoding="utf-8") as fh:
        src = fh.read()
    lines = src.splitlines()
    found = []

    def visit(node: ast.AST, inside: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                visit(child, True)
            elif isinstance(child, (ast.Import, ast.ImportFrom)) and inside:
                module = (child.names[0].name if isinstance(child, ast.Import)
                          else child.module or "")
                found.append((child.lineno, module, _commented(lines, child.lineno)))
            else:
                visit(child, inside)

    visit(ast.parse(src), False)
    return found


def test_every_function_local_import_has_a_reason():
    missing = []
    for path in sorted(package_modules().values()):
        rel = os.path.relpath(path, ROOT).replace(os.sep, "/")
        if rel.startswith(EXEMPT):
            continue
        missing += [f"{rel}:{line}: {module}" for line, module, reason in local_imports(path)
                    if not reason]
    assert not missing, "function-local imports without a reason:\n" + "\n".join(missing)


def test_the_local_imports_of_the_package_are_mostly_extras():
    """What is not an extra stays a short, known list (scipy's submodules and the registry's
    claims, kept off the start-up of every command, are most of it)."""
    other = []
    for path in sorted(package_modules().values()):
        rel = os.path.relpath(path, ROOT).replace(os.sep, "/")
        if rel.startswith(EXEMPT):
            continue
        other += [f"{rel}: {module}" for _, module, _ in local_imports(path)
                  if module.split(".")[0] not in EXTRAS]
    assert len(other) <= 18, other


def test_the_scan_sees_an_import_without_a_reason(tmp_path):
    path = tmp_path / "m.py"
    path.write_text("def f():\n    import torch  # the models extra\n    import json\n\n"
                    "def g():\n    # kept off the start-up\n    import scipy\n")
    assert local_imports(str(path)) == [(2, "torch", True), (3, "json", False),
                                        (7, "scipy", True)]
