"""posbias is a typed package: every public function and method of every public module is fully
annotated, and a user's script type-checks against the installed package with mypy (no
``import-untyped``: the wheel ships ``py.typed``)."""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import json
import os
import pathlib
import pkgutil
import site
import subprocess
import sys

import pytest

import posbias

# third-party packages an optional extra provides; a module needing an absent one is skipped
_OPTIONAL = {"torch", "transformers", "tokenizers", "safetensors", "matplotlib", "numba",
             "pyarrow", "dask", "distributed", "ruamel", "tqdm", "threadpoolctl", "gmpy2"}


#: subpackages kept in their own top-level folders of the repository (pyproject's package-dir):
#: an installed wheel has them under posbias/, an editable install maps them from elsewhere,
#: where walking posbias/ alone would not find them
_MAPPED = ("posbias.derivations", "posbias.numerics", "posbias.measurements",
           "posbias.proofs_checks")


def _public_modules() -> list[str]:
    names = {"posbias"}
    roots = [("posbias.", list(posbias.__path__))]
    for name in _MAPPED:
        spec = importlib.util.find_spec(name)
        assert spec is not None and spec.submodule_search_locations, name
        names.add(name)
        roots.append((name + ".", list(spec.submodule_search_locations)))
    for prefix, path in roots:
        for info in pkgutil.walk_packages(path, prefix, onerror=lambda name: None):
            names.add(info.name)
    return sorted(n for n in names if not any(part.startswith("_") for part in n.split(".")))


def _param(name: str):
    return pytest.param(name, id=name)


def _missing(fn, owner: str, skip_first: bool) -> list[str]:
    """The parameters (and ``return``) of ``fn`` without an annotation."""
    fn = inspect.unwrap(fn)
    annotations = getattr(fn, "__annotations__", {})
    params = list(inspect.signature(fn, follow_wrapped=False).parameters.values())
    if skip_first and params:
        params = params[1:]
    gaps = [p.name for p in params if p.name not in annotations]
    if "return" not in annotations:
        gaps.append("return")
    return [f"{owner}({', '.join(gaps)})"] if gaps else []


def _defined_here(obj, module: str) -> bool:
    target = inspect.unwrap(obj) if callable(obj) else obj
    return inspect.isfunction(target) and target.__module__ == module


def _unannotated(module) -> list[str]:
    name = module.__name__
    gaps: list[str] = []
    for attr, obj in vars(module).items():
        if attr.startswith("_"):
            continue
        if _defined_here(obj, name):
            gaps += _missing(obj, attr, skip_first=False)
        elif inspect.isclass(obj) and obj.__module__ == name:
            for meth, raw in vars(obj).items():
                if meth.startswith("_"):
                    continue
                where = f"{attr}.{meth}"
                if isinstance(raw, staticmethod) and _defined_here(raw.__func__, name):
                    gaps += _missing(raw.__func__, where, skip_first=False)
                elif isinstance(raw, classmethod) and _defined_here(raw.__func__, name):
                    gaps += _missing(raw.__func__, where, skip_first=True)
                elif isinstance(raw, property):
                    for accessor in (raw.fget, raw.fset):
                        if accessor is not None and _defined_here(accessor, name):
                            gaps += _missing(accessor, where, skip_first=True)
                elif _defined_here(raw, name):
                    gaps += _missing(raw, where, skip_first=True)
    return gaps


def test_the_walk_finds_the_public_modules():
    names = _public_modules()
    for expected in ("posbias", "posbias.cli", "posbias.render.reports", "posbias.validation",
                     "posbias.numerics", "posbias.proofs_checks.registry"):
        assert expected in names
    assert not [n for n in names if "._" in n]


def test_the_check_sees_a_missing_annotation():
    import types

    mod = types.ModuleType("fake_module")
    exec(  # a module with one gap of each kind the check looks for
        "def complete(a: int, *b: int, **c: int) -> int: ...\n"
        "def no_return(a: int): ...\n"
        "def _private(a): ...\n"
        "class K:\n"
        "    def method(self, x) -> None: ...\n"
        "    @staticmethod\n"
        "    def static(x: int) -> int: ...\n"
        "    @classmethod\n"
        "    def make(cls, y) -> 'K': ...\n"
        "    @property\n"
        "    def size(self): ...\n",
        mod.__dict__,
    )
    mod.__dict__["imported"] = inspect.getmembers  # defined elsewhere: not this module's API
    assert sorted(_unannotated(mod)) == ["K.make(y)", "K.method(x)", "K.size(return)",
                                         "no_return(return)"]


@pytest.mark.parametrize("name", [_param(n) for n in _public_modules()])
def test_public_functions_are_fully_annotated(name):
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if (exc.name or "").split(".")[0] in _OPTIONAL:
            pytest.skip(f"{name} needs {exc.name}, an optional dependency that is not installed")
        raise
    gaps = _unannotated(module)
    assert not gaps, f"{name}: public functions lacking annotations: " + "; ".join(gaps)


# --- a user's script, type-checked against the installed package --------------------------

_SCRIPT = pathlib.Path(__file__).parent / "typing" / "user_script.py"


def _installed_location() -> pathlib.Path:
    """The folder holding the installed ``posbias`` package that mypy should read; skips for an
    editable install or a source tree, whose import hook mypy cannot follow."""
    location = pathlib.Path(posbias.__file__).resolve().parent.parent
    records = sorted(location.glob("posbias-*.dist-info"))
    if not records:
        pytest.skip(f"posbias is imported from {location}, not from an installed wheel (an "
                    "editable install: mypy cannot follow setuptools' editable finder); install "
                    "it with `pip install .` to type-check a user script against it")
    direct = records[-1] / "direct_url.json"
    if direct.exists() and json.loads(direct.read_text()).get("dir_info", {}).get("editable"):
        pytest.skip("posbias is an editable install: mypy cannot follow setuptools' editable "
                    "finder; install it with `pip install .` to type-check a user script")
    return location


def test_a_user_script_type_checks_against_posbias(tmp_path):
    pytest.importorskip("mypy")
    location = _installed_location()
    env = {k: v for k, v in os.environ.items() if k != "MYPYPATH"}
    site_dirs = {pathlib.Path(p).resolve() for p in [*site.getsitepackages(),
                                                      site.getusersitepackages()]}
    if location not in site_dirs:  # e.g. `pip install --target DIR` on PYTHONPATH
        env["MYPYPATH"] = str(location)
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--config-file", os.devnull,
         "--cache-dir", str(tmp_path / "cache"), "--python-executable", sys.executable,
         "--follow-imports", "silent", str(_SCRIPT)],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=600, check=False)
    report = proc.stdout + proc.stderr
    assert "import-untyped" not in report and "import-not-found" not in report, report
    assert proc.returncode == 0, report
    assert "Success: no issues found" in proc.stdout, report
