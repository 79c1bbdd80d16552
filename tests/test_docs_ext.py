"""The generated reference pages (``docs/_ext/posbias_reference.py``) follow the package: the API
page of the claims documents a paper that is one module as that module, and a paper package as
each claim module of its ``MODULES`` in that order, leaving out private modules; tested on a fake
claims package of both kinds, without Sphinx, and once through a small Sphinx build."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXT = ROOT / "docs" / "_ext"


def _extension():
    spec = importlib.util.spec_from_file_location("posbias_docs_reference", EXT / "posbias_reference.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


pytest.importorskip("docutils", reason="docutils comes with Sphinx (the docs extra)")
ref = _extension()


def _write(folder: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")


@pytest.fixture
def fake_claims(tmp_path, monkeypatch):
    """``fakeclaims``: ``alpha2024`` one module, ``beta2025`` a package listing two claim modules
    (in an order that is not alphabetical), private ``_common`` and ``beta2025/_shared``."""
    name = f"fakeclaims_{tmp_path.name.replace('-', '_')}"
    _write(tmp_path / name, {
        "__init__.py": '"""Fake claims."""\n',
        "_common.py": '"""Shared helpers."""\n',
        "alpha2024.py": '''
            """Claims of alpha2024, one module."""


            def check():
                """The check of alpha2024:one."""
            ''',
        "beta2025/__init__.py": '''
            """Claims of beta2025, one module per claim."""

            import importlib

            MODULES = ("zeta_claim", "u_shape")

            for _name in MODULES:
                importlib.import_module(f"{__name__}.{_name}")
            ''',
        "beta2025/_shared.py": '"""Helpers of beta2025."""\n',
        "beta2025/zeta_claim.py": '''
            """beta2025:zeta-claim."""


            def decide(figures, thresholds):
                """The verdict of zeta-claim from its figures."""
                return "verified"
            ''',
        "beta2025/u_shape.py": '''
            """beta2025:u-shape."""


            def decide(figures, thresholds):
                """The verdict of u-shape from its figures."""
                return "refuted"
            ''',
    })
    monkeypatch.syspath_prepend(str(tmp_path))
    yield name, tmp_path
    for module in [m for m in sys.modules if m == name or m.startswith(name + ".")]:
        del sys.modules[module]


def test_sections_of_a_module_and_of_a_package(fake_claims):
    name, _ = fake_claims
    assert ref.claim_module_sections(name) == [
        ("alpha2024", f"{name}.alpha2024", []),
        ("beta2025", f"{name}.beta2025", [f"{name}.beta2025.zeta_claim", f"{name}.beta2025.u_shape"]),
    ]


def test_the_rst_documents_each_claim_module_in_the_order_of_modules(fake_claims):
    name, _ = fake_claims
    rst = "\n".join(ref.claim_modules_rst(name))
    autos = [line.split("::")[1].strip() for line in rst.splitlines() if line.startswith(".. automodule::")]
    assert autos == [f"{name}.alpha2024", f"{name}.beta2025", f"{name}.beta2025.zeta_claim",
                     f"{name}.beta2025.u_shape"]
    # the package's own docstring only; its claim modules get their members
    package_block = rst.split(f".. automodule:: {name}.beta2025\n", 1)[1].splitlines()
    assert package_block[0] == "   :no-members:"
    assert "_shared" not in rst and "_common" not in rst


def test_a_package_without_modules_is_refused(fake_claims):
    name, folder = fake_claims
    _write(folder / name, {"gamma2026/__init__.py": '"""No MODULES here."""\n'})
    with pytest.raises(ValueError, match="gamma2026 is a package without MODULES"):
        ref.claim_module_sections(name)


def test_the_built_in_claims_are_all_documented():
    """Every module holding a built-in claim's check has its automodule."""
    from posbias.proofs_checks import all_claims
    from posbias.proofs_checks.registry import PAPERS

    rst = "\n".join(ref.claim_modules_rst("posbias.proofs_checks.claims"))
    for c in all_claims():
        if c.paper in PAPERS:
            assert f".. automodule:: {c.check.__module__}\n" in rst + "\n", c.id


def test_a_sphinx_build_of_the_fake_package(fake_claims, tmp_path):
    pytest.importorskip("sphinx", reason="Sphinx is not installed (the docs extra)")
    name, folder = fake_claims
    src = tmp_path / "src"
    _write(src, {
        "conf.py": f'''
            import sys
            sys.path.insert(0, {str(EXT)!r})
            sys.path.insert(0, {str(folder)!r})
            extensions = ["sphinx.ext.autodoc", "posbias_reference"]
            autodoc_default_options = {{"members": True}}
            ''',
        "index.rst": f'''
            Claims
            ======

            .. posbias-claim-modules:: {name}
            ''',
    })
    run = subprocess.run([sys.executable, "-m", "sphinx", "-W", "-q", "-b", "html", str(src),
                          str(tmp_path / "html")], capture_output=True, text=True, timeout=300,
                         check=False)
    assert run.returncode == 0, run.stdout + run.stderr
    html = (tmp_path / "html" / "index.html").read_text(encoding="utf-8")
    for text in ("Claims of alpha2024, one module.", "The check of alpha2024:one.",
                 "Claims of beta2025, one module per claim.", "The verdict of zeta-claim",
                 "The verdict of u-shape"):
        assert text in html, text
    assert html.index("The verdict of zeta-claim") < html.index("The verdict of u-shape")
