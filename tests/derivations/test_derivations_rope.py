"""RoPE at initialization: orthogonality and equal score laws."""

import pytest
import sympy

from posbias.derivations import get_derivation, rope
from posbias.errors import InvalidArgument


def test_proven():
    assert get_derivation("rope-init").proven


def test_non_orthogonal_map_changes_variance():
    shear = sympy.Matrix([[1, 1], [0, 1]])
    assert not rope.score_variance_identity(shear).proven
    scaled = 2 * rope.rotation(sympy.Symbol("theta", real=True))
    assert not rope.score_variance_identity(scaled).proven


def test_block_matrix_orthogonal_numeric_angles():
    R = rope.rope_matrix([sympy.Rational(1, 3), sympy.Integer(2), sympy.Rational(-5, 7)])
    assert R.shape == (6, 6)
    assert (R.T * R - sympy.eye(6)).evalf(40).norm() < sympy.Float("1e-35")


def test_rope_matrix_needs_angles():
    with pytest.raises(InvalidArgument, match="thetas"):
        rope.rope_matrix([])
