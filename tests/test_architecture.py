"""The layout (docs/explanation/architecture.md) holds: the import-linter contracts in
pyproject.toml are kept, they can fail, and each subpackage re-exports exactly its modules'
public names.

The source folders are mapped into the ``posbias`` namespace by setuptools' package-dir, which an
editable install resolves with an import hook that import-linter does not follow; the test
therefore lays the namespace out as a tree of symbolic links (or, when posbias is installed
normally, uses the installed package) and runs import-linter on it in a subprocess.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest
import tomllib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PYPROJECT = os.path.join(ROOT, "pyproject.toml")

pytest.importorskip("importlinter")


def _namespace(tmp_path, replace: dict | None = None) -> str:
    """A folder holding ``posbias/`` laid out as installed, from the package-dir mapping."""
    with open(PYPROJECT, "rb") as fh:
        mapping = tomllib.load(fh)["tool"]["setuptools"]["package-dir"]
    top = tmp_path / "ns"
    for package, folder in sorted(mapping.items(), key=lambda kv: kv[0].count(".")):
        target = top.joinpath(*package.split("."))
        target.mkdir(parents=True, exist_ok=True)
        source = os.path.join(ROOT, folder)
        for name in os.listdir(source):
            if name == "__pycache__" or (target / name).exists():
                continue
            if os.path.isdir(os.path.join(source, name)) and f"{package}.{name}" in mapping:
                continue  # laid out by its own mapping entry
            (target / name).symlink_to(os.path.join(source, name))
    for dotted, text in (replace or {}).items():
        parts = dotted.split(".")
        folder = top
        for part in parts[:-1]:  # a linked folder becomes a folder of links: the checkout stays
            folder = folder / part
            if folder.is_symlink():
                source = folder.resolve()
                folder.unlink()
                folder.mkdir()
                for entry in os.listdir(source):
                    (folder / entry).symlink_to(source / entry)
        path = folder / (parts[-1] + ".py")
        path.unlink()
        path.write_text(text)
    return str(top)


def _lint(path: str) -> subprocess.CompletedProcess:
    code = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {path!r})
        from importlinter.cli import lint_imports
        sys.exit(lint_imports(config_filename={PYPROJECT!r}, no_cache=True))
    """)
    env = dict(os.environ, PYTHONPATH=path)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, cwd=path, timeout=300, check=False)


def test_import_contracts_are_kept(tmp_path):
    result = _lint(_namespace(tmp_path))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "broken" in result.stdout and ", 0 broken" in result.stdout


def test_a_cross_route_import_breaks_the_contracts(tmp_path):
    """The contracts can fail: a derivation that imports numerics is reported."""
    bad = "from posbias.numerics import cesaro  # noqa: F401\n"
    result = _lint(_namespace(tmp_path, {"posbias.derivations.rope": bad}))
    assert result.returncode != 0
    assert "BROKEN" in result.stdout


def test_an_upward_import_breaks_the_layers(tmp_path):
    bad = "from posbias.render import reports  # noqa: F401\n"
    result = _lint(_namespace(tmp_path, {"posbias.numerics.compare": bad}))
    assert result.returncode != 0
    assert "BROKEN" in result.stdout


def _with_function_import(dotted: str, line: str) -> str:
    """The source of ``dotted`` with a function importing ``line`` appended."""
    path = os.path.join(ROOT, *{"posbias.proofs_checks.stored": ("proofs_checks", "stored.py"),
                               "posbias.render.tex": ("src", "posbias", "render", "tex.py"),
                               "posbias.render.notation": ("src", "posbias", "render",
                                                           "notation.py"),
                               "posbias.errors": ("src", "posbias", "errors.py"),
                               "posbias.numbers": ("src", "posbias", "numbers.py")}[dotted])
    with open(path, encoding="utf-8") as fh:
        return fh.read() + f"\n\ndef _planted():\n    {line}  # noqa: F401\n"


@pytest.mark.parametrize(("module", "line"), [
    # the two loops that function-local imports once hid: a contract fails on either
    ("posbias.proofs_checks.stored", "from posbias.proofs_checks.measured import STEP0_PLAN"),
    ("posbias.render.tex", "from posbias.render.reports import render"),
    ("posbias.render.notation", "from posbias.render.latex import latex"),
])
def test_a_cycle_hidden_in_a_function_breaks_the_contracts(tmp_path, module, line):
    result = _lint(_namespace(tmp_path, {module: _with_function_import(module, line)}))
    assert result.returncode != 0
    assert "No cycles are allowed" in result.stdout


@pytest.mark.parametrize(("module", "line"), [
    ("posbias.errors", "from posbias.files import write_output"),
    ("posbias.numbers", "from posbias.errors import InvalidArgument"),
])
def test_the_bottom_modules_import_nothing_above_them(tmp_path, module, line):
    result = _lint(_namespace(tmp_path, {module: _with_function_import(module, line)}))
    assert result.returncode != 0
    assert "BROKEN" in result.stdout


@pytest.mark.parametrize("package", ["posbias.numerics", "posbias.measurements"])
def test_subpackage_exports_are_the_union_of_its_modules(package):
    import importlib

    pkg = importlib.import_module(package)
    names = sorted({n for m in pkg.MODULES for n in m.__all__})
    assert pkg.__all__ == names
    for m in pkg.MODULES:
        for n in m.__all__:
            assert getattr(pkg, n) is getattr(m, n)
    # every public module of the folder is listed
    folder = os.path.dirname(pkg.__file__)
    public = sorted(f[:-3] for f in os.listdir(folder)
                    if f.endswith(".py") and not f.startswith("_"))
    assert sorted(m.__name__.rsplit(".", 1)[1] for m in pkg.MODULES) == public


def test_python_dash_m_posbias_runs():
    result = subprocess.run([sys.executable, "-m", "posbias", "--version"], capture_output=True,
                            text=True, timeout=120, check=False)
    assert result.returncode == 0 and result.stdout.startswith("posbias ")
