"""RoPE at initialization: a rotation does not change the law of the attention score.

A RoPE map is block-diagonal with 2x2 rotations ``R(theta) = [[cos, -sin], [sin, cos]]``, hence
orthogonal: ``R^T R = I``.  For an isotropic Gaussian key ``k ~ N(0, sigma^2 I_d)`` and any fixed
query ``q``, ``q^T R k`` is Gaussian with variance ``sigma^2 |R^T q|^2 = sigma^2 |q|^2``, the
variance of ``q^T k``; so the two scores have the same law given ``q`` and, averaging over any
law of ``q`` independent of ``k``, the same law unconditionally.  Equivalently the
characteristic functions ``E exp(i w q^T R k | q) = exp(-sigma^2 w^2 |R^T q|^2 / 2)`` agree.

Method: symbolic orthogonality for d = 2, 4, 6 with independent angles, and the covariance and
characteristic function of ``q^T R k`` given ``q`` computed in sympy.

Paper: chowdhury2026 (:ref:`C8 <math-c8>`).

>>> from posbias.derivations.rope import rotation
>>> rotation(sympy.Symbol("theta"))
Matrix([
[cos(theta), -sin(theta)],
[sin(theta),  cos(theta)]])
"""

from __future__ import annotations

from collections.abc import Sequence

import sympy

from posbias.derivations.core import Derivation, Identity, Step, derivation, prove_equal
from posbias.errors import InvalidArgument

__all__ = ["rope_derivation", "rope_matrix", "rotation", "score_variance_identity"]

sigma = sympy.Symbol("sigma", positive=True)
omega = sympy.Symbol("omega", real=True)


def rotation(theta: sympy.Expr) -> sympy.Matrix:
    """The 2x2 rotation by ``theta``."""
    return sympy.Matrix([[sympy.cos(theta), -sympy.sin(theta)],
                         [sympy.sin(theta), sympy.cos(theta)]])


def rope_matrix(thetas: Sequence[sympy.Expr]) -> sympy.Matrix:
    """Block-diagonal RoPE matrix with one 2x2 rotation per angle (``d = 2 len(thetas)``)."""
    if len(thetas) < 1:
        raise InvalidArgument("thetas", list(thetas), "at least one angle")
    return sympy.diag(*[rotation(th) for th in thetas])


def score_variance_identity(R: sympy.Matrix,
                            label: str = "Var(q^T R k | q) = Var(q^T k | q)") -> Identity:
    """``sigma^2 q^T R R^T q - sigma^2 q^T q`` for symbolic ``q`` (zero for orthogonal ``R``).

    >>> th = sympy.Symbol("theta", real=True)
    >>> score_variance_identity(rotation(th)).proven
    True
    >>> score_variance_identity(sympy.Matrix([[1, 1], [0, 1]])).proven
    False
    """
    d = R.shape[0]
    qv = sympy.Matrix(sympy.symbols(f"q_1:{d + 1}", real=True))
    cov = sigma**2 * R * R.T          # covariance of R k for k ~ N(0, sigma^2 I)
    var_rot = (qv.T * cov * qv)[0, 0]
    var_plain = sigma**2 * (qv.T * qv)[0, 0]
    return prove_equal(label, var_rot, var_plain,
                       simplify=lambda e: sympy.simplify(sympy.expand(sympy.trigsimp(e))))


@derivation("rope-init")
def rope_derivation() -> Derivation:
    """Orthogonality of RoPE rotations and equality of the score laws at initialization."""
    idents = []
    th = sympy.symbols("theta_1:4", real=True)
    R2 = rotation(th[0])
    idents.append(prove_equal("2x2 rotation is orthogonal: R^T R = I", R2.T * R2, sympy.eye(2),
                              simplify=sympy.trigsimp))
    for m in (2, 3):
        R = rope_matrix(th[:m])
        idents.append(prove_equal(f"d = {2 * m} block-diagonal RoPE matrix is orthogonal",
                                  R.T * R, sympy.eye(2 * m), simplify=sympy.trigsimp))
    for m in (1, 2, 3):
        idents.append(score_variance_identity(rope_matrix(th[:m]),
                                              f"d = {2 * m}: Var(q^T R k | q) = Var(q^T k | q)"))
    # characteristic functions given q, d = 2
    qv = sympy.Matrix(sympy.symbols("q_1:3", real=True))
    rq = R2.T * qv
    cf_rot = sympy.exp(-sigma**2 * omega**2 * (rq.T * rq)[0, 0] / 2)
    cf_plain = sympy.exp(-sigma**2 * omega**2 * (qv.T * qv)[0, 0] / 2)
    idents.append(prove_equal("d = 2: characteristic functions of q^T R k and q^T k agree",
                              cf_rot, cf_plain,
                              simplify=lambda e: sympy.simplify(sympy.trigsimp(sympy.expand(e)))))
    Rth = sympy.MatrixSymbol("R_theta", 2, 2)
    expr = sympy.Eq(Rth.T * Rth, sympy.Identity(2), evaluate=False)
    cf_eq = sympy.Eq(sympy.Function("varphi")(omega),
                     sympy.exp(-sigma**2 * omega**2 * sympy.Symbol(r"\|q\|") ** 2 / 2))
    return Derivation(
        name="rope-init",
        title="RoPE rotations leave the score law unchanged at initialization",
        description="RoPE is block-diagonal with 2-by-2 rotations, hence orthogonal, so for an "
        "isotropic Gaussian key q^T R k has the same law as q^T k.",
        expression=expr,
        equations=(cf_eq,),
        assumptions=("k ~ N(0, sigma^2 I_d) independent of q", "d even",
                     "RoPE angles arbitrary (position-dependent) but fixed"),
        steps=(
            Step("rotation is orthogonal", sympy.Eq(sympy.Symbol("R_theta"), R2)),
            Step("rotation is orthogonal", sympy.Eq(R2.T * R2, sympy.eye(2), evaluate=False)),
            Step("covariance of R k", sympy.Eq(sympy.Function("Cov")(sympy.Symbol("R k")),
                                               sigma**2 * sympy.Identity(2), evaluate=False)),
            Step("characteristic function of q^T R k given q (|R^T q| = |q|)", cf_eq),
        ),
        identities=tuple(idents),
        paper="chowdhury2026",
        section="C8",
        proven_for="d = 2, 4, 6 (the characteristic function for d = 2)",
    )
