"""The Derivation record, prove_equal and the registry of derivations."""

import pytest
import sympy

from posbias.derivations import (
    Derivation,
    all_derivations,
    derivation_names,
    get_derivation,
    prove_equal,
    to_latex,
)
from posbias.errors import InvalidArgument

x = sympy.Symbol("x", positive=True)

EXPECTED_NAMES = [
    "hardy-kernel", "hardy-kernels-explicit", "density", "primacy-tail", "residual-mixture",
    "laguerre", "schedule-mixture", "minimum-dead-zone", "summable-product", "harmonic-product",
    "product-criterion", "alibi-warp", "rope-init", "kinetic-bessel", "kinetic-profile",
    "kinetic-poisson", "kinetic-threshold",
    # modules beyond the theory's order come after it, by module name
    "collapse-rate", "hausdorff-algebra", "sink-moments", "uniform-path-sum", "softmax-tv-limit",
    "streaming-profile",
]


def test_names_in_theory_order():
    assert derivation_names() == EXPECTED_NAMES


@pytest.mark.parametrize("name", EXPECTED_NAMES)
def test_every_derivation_is_proven_and_complete(name):
    d = get_derivation(name)
    assert isinstance(d, Derivation)
    assert d.name == name
    assert d.proven, d.unproven()
    assert d.residual == 0
    for i in d.identities:
        assert i.proven
        assert i.residual == 0 or getattr(i.residual, "is_zero_matrix", False), i.label
    assert d.steps and all(isinstance(s.latex, str) and s.latex for s in d.steps)
    assert d.paper in ("chowdhury2026", "herasimchyk2026", "wu2025", "barbero2024", "barbero2025",
                       "xiao2024", "wu2024", "duerinckx2026", "posbias")
    assert d.description and "\n" not in d.description
    # LaTeX comes from the package's sympy printer on the stored expression
    from posbias.render.latex import latex

    assert d.latex == latex(d.expression)
    assert d.as_dict()["proven"] is True


def test_memoized():
    assert get_derivation("density") is get_derivation("density")
    assert all_derivations(["density"])["density"] is get_derivation("density")


@pytest.mark.parametrize("bad", ["nope", "", None, 3])
def test_bad_name(bad):
    with pytest.raises(InvalidArgument, match="expected one of hardy-kernel"):
        get_derivation(bad)


def test_prove_equal_records_residual():
    ok = prove_equal("log product", sympy.log(3 * x), sympy.log(3) + sympy.log(x))
    assert ok.proven and ok.residual == 0
    bad = prove_equal("false", sympy.sin(x) ** 2, 1 - sympy.cos(x))
    assert not bad.proven
    assert bad.residual != 0
    # a numerically tiny but non-zero residual is not a proof
    near = prove_equal("near", sympy.pi, sympy.Rational(355, 113))
    assert not near.proven


def test_prove_equal_matrices_and_infinities():
    assert prove_equal("oo", sympy.oo, sympy.oo).proven
    assert not prove_equal("oo vs 1", sympy.oo, 1).proven
    m = sympy.Matrix([[sympy.cos(x) ** 2 + sympy.sin(x) ** 2]])
    assert prove_equal("matrix", m, sympy.Matrix([[1]])).proven
    assert not prove_equal("matrix", m, sympy.Matrix([[2]])).proven


def test_derivation_with_open_identity_is_not_proven():
    d = get_derivation("density")
    import dataclasses

    bad = prove_equal("wrong", x, x + 1)
    d2 = dataclasses.replace(d, identities=(*d.identities, bad))
    assert not d2.proven
    assert d2.unproven() == ["wrong"]
    assert d2.residual == -1


def test_to_latex_uses_ln():
    assert to_latex(sympy.log(x)) == r"\ln{\left(x\right)}"


def test_derivations_never_import_numerics():
    import ast
    import pathlib

    import posbias.derivations as pkg

    for path in pathlib.Path(pkg.__file__).parent.glob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                mods = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                mods = [node.module or ""]
            else:
                continue
            for m in mods:
                assert "numerics" not in m, f"{path.name} imports {m}"
                assert m.split(".")[0] in ("sympy", "mpmath", "posbias", "__future__", "functools",
                                       "dataclasses", "typing", "collections", "importlib", "re"), (path.name, m)


def test_duplicate_derivation_name_is_an_error():
    """A second builder under a taken name raises; the first one stays registered."""
    from posbias.derivations import core

    names = core.derivation_names()
    taken = names[0]
    before = core._BUILDERS[taken]

    def impostor():  # pragma: no cover - never built
        raise AssertionError

    with pytest.raises(InvalidArgument, match="not registered yet"):
        core.derivation(taken)(impostor)
    assert core._BUILDERS[taken] is before
    with pytest.raises(InvalidArgument):
        core.derivation("")


def test_derivation_modules_are_discovered():
    """Every module of the package (not core or the printer, not private) is loaded,
    docs/explanation/mathematics.rst's order first."""
    import pkgutil

    import posbias.derivations as package
    from posbias.derivations import core

    on_disk = {m.name for m in pkgutil.iter_modules(package.__path__)
               if not m.name.startswith("_") and m.name not in ("core", "printing")}
    assert set(core._discovered()) == on_disk
    assert core._discovered()[: len(core._MODULES)] == [m for m in core._MODULES if m in on_disk]
    loaded = {core._BUILDERS[n].__module__.rsplit(".", 1)[-1] for n in core.derivation_names()}
    assert loaded == on_disk
