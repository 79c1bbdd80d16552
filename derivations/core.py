"""The :class:`Derivation` record, symbolic identity checks and the derivation registry.

A derivation is a piece of the continuum theory worked out in SymPy: a displayed result (a SymPy
object, usually an ``Eq``), the steps a reader can follow (each an explanation and a SymPy
expression), the assumptions, and the list of :class:`Identity` checks that were attempted.  Each
identity records ``lhs``, ``rhs``, the simplified residual ``lhs - rhs`` and whether it simplified
to zero (``proven``).  A derivation is ``proven`` only when every identity it relies on closed
symbolically; numeric spot checks are evidence, never proof.

LaTeX always comes from sympy's LaTeX printer on the stored objects: the package's
subclass :class:`posbias.derivations.printing.PosbiasLatexPrinter`, which sets formulas as a paper
does.

Derivations are built by functions registered with :func:`derivation`; building is memoized, so
:func:`all_derivations` pays the SymPy cost once per process.

>>> import sympy
>>> x = sympy.Symbol("x", positive=True)
>>> prove_equal("log of a product", sympy.log(2 * x), sympy.log(2) + sympy.log(x)).proven
True
>>> prove_equal("a false identity", x**2, x).proven
False
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from importlib import resources

import sympy

from posbias.derivations.printing import latex
from posbias.errors import InvalidArgument

__all__ = [
    "Derivation",
    "Identity",
    "Step",
    "all_derivations",
    "derivation",
    "derivation_names",
    "get_derivation",
    "prove_equal",
    "to_latex",
]


def to_latex(expr: sympy.Basic) -> str:
    """LaTeX of a SymPy object with the package's printer
    (:class:`posbias.derivations.printing.PosbiasLatexPrinter`: ``ln`` for logarithms, terms of a sum in
    the order a paper writes them).

    >>> import sympy
    >>> x = sympy.Symbol("x")
    >>> to_latex(sympy.log(x)), to_latex(x - 1)
    ('\\\\ln{\\\\left(x\\\\right)}', 'x - 1')
    """
    return latex(expr)


def _default_simplify(expr):
    """Try progressively heavier simplifications; stop as soon as zero is reached."""
    attempts = (
        lambda e: e,
        sympy.expand,
        lambda e: sympy.expand(sympy.expand_log(e, force=True)),
        sympy.simplify,
        lambda e: sympy.simplify(sympy.gammasimp(sympy.combsimp(e))),
        lambda e: sympy.simplify(sympy.expand_log(sympy.powsimp(e, force=True), force=True)),
        lambda e: sympy.simplify(sympy.gammasimp(sympy.simplify(e).replace(
            sympy.lowergamma, lambda a, b: sympy.gamma(a) - sympy.uppergamma(a, b)))),
    )
    best = expr
    for attempt in attempts:
        try:
            candidate = attempt(expr)
        except Exception:  # a simplifier giving up is not a result
            continue
        if candidate == 0:
            return sympy.Integer(0)
        if sympy.count_ops(candidate) < sympy.count_ops(best):
            best = candidate
    return best


@dataclass(frozen=True)
class Identity:
    """One symbolic identity ``lhs = rhs`` and the outcome of simplifying ``lhs - rhs``.

    ``proven`` is True exactly when the residual simplified to the number 0.
    """

    label: str
    lhs: sympy.Expr
    rhs: sympy.Expr
    residual: sympy.Expr
    proven: bool

    def as_dict(self) -> dict:
        return {
            "label": self.label,
            "lhs": to_latex(self.lhs),
            "rhs": to_latex(self.rhs),
            "residual": to_latex(self.residual),
            "proven": self.proven,
        }


def prove_equal(label: str, lhs: sympy.Expr | int, rhs: sympy.Expr | int,
                simplify: Callable[[sympy.Expr], sympy.Expr] | None = None) -> Identity:
    """Simplify ``lhs - rhs`` and record whether it is identically zero.

    Parameters
    ----------
    label: what the identity says, in words.
    lhs, rhs: SymPy expressions (or matrices: the residual must be the zero matrix).
    simplify: optional simplifier ``expr -> expr``; the default tries ``expand``, ``expand_log``,
        ``simplify`` and ``gammasimp`` in turn.

    Method: symbolic simplification only; a non-zero or unsimplified residual gives
    ``proven=False`` (the identity may still hold, but it is not proven).
    """
    lhs = sympy.sympify(lhs)
    rhs = sympy.sympify(rhs)
    if lhs == rhs:  # structurally identical (also covers oo = oo, where lhs - rhs is nan)
        zero = sympy.zeros(*lhs.shape) if isinstance(lhs, sympy.MatrixBase) else sympy.Integer(0)
        return Identity(label, lhs, rhs, zero, True)
    diff = lhs - rhs
    simp = simplify or _default_simplify
    if isinstance(diff, sympy.MatrixBase):
        residual = diff.applyfunc(simp)
        proven = all(e == 0 for e in residual)
    else:
        residual = simp(diff)
        proven = residual == 0
    return Identity(label, lhs, rhs, residual, bool(proven))


@dataclass(frozen=True)
class Step:
    """One step of a derivation: an explanation and the SymPy object it produces."""

    explanation: str
    expression: object

    @property
    def latex(self) -> str:
        return to_latex(self.expression)


@dataclass(frozen=True)
class Derivation:
    """A symbolic derivation of one result of the continuum theory.

    Attributes
    ----------
    name: slug used in LaTeX labels (``posbias:<name>``) and on the command line.
    title, description: a title and a one-line description.
    expression: the main result, a SymPy object (usually ``Eq``); :attr:`latex` prints it.
    equations: further displayed results (SymPy objects) shown after the main one.
    assumptions: the assumptions, as text (the SymPy symbols also carry them).
    steps: the derivation, as :class:`Step` records.
    identities: the symbolic identities checked; :attr:`proven` is their conjunction.
    paper, section: where the result comes from (paper key and item of :ref:`mathematics`).
    notes: what sympy could not close, corrections, numeric facts (text).
    data: further facts as plain Python values (e.g. numeric medians as strings).
    """

    name: str
    title: str
    description: str
    expression: object
    equations: tuple = ()
    assumptions: tuple = ()
    steps: tuple = ()
    identities: tuple = ()
    paper: str = "posbias"
    section: str = ""
    notes: tuple = ()
    data: dict = field(default_factory=dict)
    #: the parameter range the identities cover when they are instances (e.g. ``"H = 1..12"``);
    #: empty when they are symbolic in every parameter (proven for all parameters)
    proven_for: str = ""

    @property
    def proof_status(self) -> str:
        """``proven for all parameters``, ``proven for <range> only`` or ``not proven (open:
        ...)``: never a plain "yes" for a finite range."""
        if not self.proven:
            return "not proven (open: " + "; ".join(self.unproven()) + ")"
        if self.proven_for:
            return f"proven for {self.proven_for} only"
        return "proven for all parameters"

    @property
    def latex(self) -> str:
        """LaTeX of :attr:`expression`, printed by :func:`to_latex`."""
        return to_latex(self.expression)

    @property
    def equations_latex(self) -> list[str]:
        return [to_latex(e) for e in (self.expression, *self.equations)]

    @property
    def proven(self) -> bool:
        """True when every identity simplified to zero (and there is at least one)."""
        return bool(self.identities) and all(i.proven for i in self.identities)

    @property
    def residual(self) -> sympy.Expr:
        """The residuals of the identities that did not close (``0`` when all closed)."""
        open_ = [i.residual for i in self.identities if not i.proven]
        if not open_:
            return sympy.Integer(0)
        return open_[0] if len(open_) == 1 else sympy.Tuple(*open_)

    def unproven(self) -> list[str]:
        return [i.label for i in self.identities if not i.proven]

    def as_dict(self) -> dict:
        """JSON-safe summary (the fields of ``posbias latex --format json`` and more)."""
        return {
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "latex": self.latex,
            "equations": self.equations_latex,
            "assumptions": list(self.assumptions),
            "paper": self.paper,
            "section": self.section,
            "proven": self.proven,
            "proven_for": self.proven_for or "all parameters",
            "proof_status": self.proof_status,
            "unproven": self.unproven(),
            "notes": list(self.notes),
            "data": {str(k): (v if isinstance(v, (str, int, bool)) else
                              {str(a): str(b) for a, b in v.items()} if isinstance(v, dict)
                              else str(v)) for k, v in self.data.items()},
        }


_BUILDERS: dict[str, Callable[[], Derivation]] = {}
#: the order of docs/explanation/mathematics.rst; modules discovered beyond these come after them, by name
_MODULES = ("hardy", "density", "residual", "schedules", "alibi", "rope", "kinetic")


def derivation(name: str) -> Callable[[Callable[[], Derivation]], Callable[[], Derivation]]:
    """Register a zero-argument builder returning the :class:`Derivation` called ``name``.

    The builder is memoized: it runs at most once per process.  Names are unique: registering
    a second builder under a name already taken is an error (as a second claim id is), so a
    derivation can never silently replace another.
    """
    if not isinstance(name, str) or not name:
        raise InvalidArgument("name", name, "a non-empty derivation name")

    def decorate(fn: Callable[[], Derivation]) -> Callable[[], Derivation]:
        previous = _BUILDERS.get(name)
        if previous is not None and getattr(previous, "__wrapped__", None) is not fn:
            raise InvalidArgument("name", name, "a derivation name not registered yet (taken by "
                                  f"{previous.__module__}.{previous.__qualname__})")

        def build() -> Derivation:
            d = fn()
            if d.name != name:  # internal invariant of the registry
                raise RuntimeError(f"builder {fn.__name__} returned {d.name!r}, not {name!r}")
            return d

        # memoized (with cache_clear) and carrying fn's name, docstring and __wrapped__
        cached = functools.update_wrapper(functools.cache(build), fn)
        _BUILDERS[name] = cached
        return cached

    return decorate


#: the modules of the package that hold no derivations: the record and registry, the printer
_NOT_DERIVATIONS = ("core", "printing")


def _discovered() -> list[str]:
    """The derivation modules of the package: every module not starting with ``_`` except
    ``_NOT_DERIVATIONS``, in the order of :data:`_MODULES`, then by name (discovered like the
    claims)."""
    found = [f.name[:-3] for f in resources.files("posbias.derivations").iterdir()
             if f.name.endswith(".py") and not f.name.startswith("_")
             and f.name[:-3] not in _NOT_DERIVATIONS]
    rank = {m: i for i, m in enumerate(_MODULES)}
    return sorted(found, key=lambda m: (rank.get(m, len(rank)), m))


def _load() -> None:
    for module in _discovered():
        importlib.import_module(f"posbias.derivations.{module}")


def derivation_names() -> list[str]:
    """Names of all derivations, in the order of :ref:`mathematics`.

    >>> derivation_names()[:2]
    ['hardy-kernel', 'hardy-kernels-explicit']
    """
    _load()
    return _ordered()


def _ordered() -> list[str]:
    """Names sorted by the order of the modules in :ref:`mathematics` (the modules beyond it by
    name), then by definition order: the same whichever module was imported first."""
    rank = {m: i for i, m in enumerate(_MODULES)}
    names = list(_BUILDERS)

    def key(n: str) -> tuple:
        module = _BUILDERS[n].__module__.rsplit(".", 1)[-1]
        return (rank.get(module, len(rank)), "" if module in rank else module, names.index(n))

    return sorted(names, key=key)


def get_derivation(name: str) -> Derivation:
    """The derivation called ``name`` (built once, then cached)."""
    _load()
    if not isinstance(name, str) or name not in _BUILDERS:
        raise InvalidArgument("name", name, "one of " + ", ".join(_ordered()))
    return _BUILDERS[name]()


def all_derivations(names: Iterable[str] | None = None) -> dict[str, Derivation]:
    """All derivations (or those in ``names``) by name, in registry order."""
    _load()
    wanted = _ordered() if names is None else list(names)
    return {n: get_derivation(n) for n in wanted}
