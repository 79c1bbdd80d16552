"""Hypothesis strategies for property tests of position-bias code, the ones posbias's own tests
use: residual weights and schedules, depths and lengths, influence profiles, causal kernels and
ALiBi layers.  Each strategy generates *valid* objects directly (no filtering), states the
invariant its values satisfy, and gives exact rationals where the exact path needs them.

Hypothesis is an optional dependency (the ``test`` extra: ``pip install "posbias[test]"``);
importing this module without it raises one :class:`ImportError` that says so.

A property test of your own, as posbias writes them::

    from hypothesis import given
    from posbias.strategies import lambda_schedules, lengths
    from posbias.numerics import cesaro_profile_exact

    @given(lengths(max_value=12), lambda_schedules(max_depth=4))
    def test_profile_is_a_distribution(L, lams):
        assert sum(cesaro_profile_exact(L, lams)) == 1

Conventions (herasimchyk2026, section 3; chowdhury2026): a layer of the residual-aware rollout
is ``R(t) = (1 - λ_t) I + λ_t A(t)`` with ``λ_t ∈ [0, 1]`` (``λ = 1``: attention only); the
command line's ``--alpha`` is a constant ``λ``; a kernel ``A`` is causal (``A[i][j] = 0`` for
``j > i``) and row-stochastic; an influence profile ``p(1..L)`` is a probability vector.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from posbias.numerics.alibi import alibi_layer

try:
    from hypothesis import strategies as st
except ImportError:  # pragma: no cover - exercised by a subprocess test without hypothesis
    raise ImportError(
        "posbias.strategies needs Hypothesis, an optional dependency: "
        'pip install "posbias[test]" (or pip install hypothesis)') from None

__all__ = [
    "alibi_layers",
    "alibi_slopes",
    "alphas",
    "causal_kernels",
    "depths",
    "lambda_schedules",
    "layered_rollouts",
    "lengths",
    "monotone_kernels",
    "profiles",
    "unit_fractions",
]

F = Fraction

#: slopes, diagonal logits, head weights and temperatures :func:`alibi_layers` draws from: the
#: flat (0), gentle, BLOOM-like and saturating regimes, and diagonals of both signs up to the
#: size at which the softmax puts all weight on one entry
ALIBI_SLOPES = (0.0, 0.01, 0.2, 0.9, 3.0, 40.0)
ALIBI_DIAGONALS = (0.0, -3.0, 0.5, 6.0, 120.0, -200.0)
ALIBI_WEIGHTS = (0.5, 1.0, 3.0)
ALIBI_TEMPERATURES = (1.0, 0.5, 2.0)


def unit_fractions(max_denominator: int = 6, *, allow_zero: bool = True) -> st.SearchStrategy[Fraction]:
    """Exact rationals ``k/q`` in ``[0, 1]`` (``(0, 1]`` without ``allow_zero``) with
    ``1 <= q <= max_denominator``; 0 and 1 are reached often (Hypothesis shrinks towards 0).

    >>> from hypothesis import given
    >>> @given(unit_fractions(allow_zero=False))
    ... def check(x):
    ...     assert isinstance(x, Fraction) and 0 < x <= 1 and x.denominator <= 6
    >>> check()
    """
    lo = 0 if allow_zero else 1
    return st.builds(lambda q, k: F(min(k, q), q), st.integers(1, max_denominator),
                     st.integers(lo, max_denominator))


def alphas(*, exact: bool = True, max_denominator: int = 6, allow_zero: bool = True) -> st.SearchStrategy[Any]:
    """Residual weights ``α ∈ [0, 1]`` (the constant ``λ`` of ``--alpha``): exact rationals
    (:func:`unit_fractions`) or, with ``exact=False``, finite floats in ``[0, 1]``
    (``(0, 1]`` without ``allow_zero``).

    >>> from hypothesis import given
    >>> @given(alphas(), alphas(exact=False))
    ... def check(a, x):
    ...     assert isinstance(a, Fraction) and 0 <= a <= 1 and isinstance(x, float) and 0 <= x <= 1
    >>> check()
    """
    if exact:
        return unit_fractions(max_denominator, allow_zero=allow_zero)
    return st.floats(0.0, 1.0, exclude_min=not allow_zero, allow_nan=False)


def lambda_schedules(min_depth: int = 0, max_depth: int = 4, *, exact: bool = True,
                     allow_zero: bool = False, max_denominator: int = 6) -> st.SearchStrategy[list]:
    """Residual schedules ``[λ_1, ..., λ_T]`` with ``min_depth <= T <= max_depth``, each
    ``λ_t ∈ (0, 1]`` (``[0, 1]`` with ``allow_zero``): exact rationals, or floats with
    ``exact=False`` (a measured schedule; the exact path refuses those).  Accepted as they are
    by every profile function and by :func:`posbias.numerics.list_schedule`.

    >>> from hypothesis import given
    >>> from posbias.numerics import cesaro_profile_exact
    >>> @given(lambda_schedules(min_depth=1, max_depth=3))
    ... def check(lams):
    ...     assert 1 <= len(lams) <= 3 and all(0 < x <= 1 for x in lams)
    ...     assert sum(cesaro_profile_exact(5, lams)) == 1
    >>> check()
    """
    values = alphas(exact=exact, max_denominator=max_denominator, allow_zero=allow_zero)
    return st.lists(values, min_size=min_depth, max_size=max_depth)


def depths(min_value: int = 0, max_value: int = 8) -> st.SearchStrategy[int]:
    """Depths ``T`` (number of layers) in ``[min_value, max_value]``; ``T = 0`` is the identity
    rollout, which every route must get right.

    >>> from hypothesis import given
    >>> @given(depths(max_value=4))
    ... def check(T):
    ...     assert isinstance(T, int) and 0 <= T <= 4
    >>> check()
    """
    return st.integers(min_value, max_value)


def lengths(min_value: int = 1, max_value: int = 40) -> st.SearchStrategy[int]:
    """Sequence lengths ``L`` in ``[min_value, max_value]`` (``L = 1``: a single token).

    >>> from hypothesis import given
    >>> @given(lengths(max_value=12))
    ... def check(L):
    ...     assert isinstance(L, int) and 1 <= L <= 12
    >>> check()
    """
    return st.integers(min_value, max_value)


@st.composite
def profiles(draw: Any, length: int | None = None, *, max_length: int = 8, exact: bool = True,
             positive: bool = False) -> list[Any]:
    """Influence profiles: nonnegative vectors of ``length`` entries (drawn from
    ``1..max_length`` when None), never all zero, normalised to sum 1.  Exact: ``Fraction``
    entries summing to exactly 1 (small integer weights over their sum, zeros allowed unless
    ``positive``); ``exact=False``: float64 entries, the same weights divided by their sum
    (the sum is 1 within ``L`` units in the last place).

    >>> from hypothesis import given
    >>> @given(profiles(3), profiles(exact=False, positive=True))
    ... def check(p, q):
    ...     assert len(p) == 3 and min(p) >= 0 and sum(p) == 1
    ...     assert min(q) > 0 and abs(sum(q) - 1) <= len(q) * 2.0**-52
    >>> check()
    """
    if length is None:
        length = draw(st.integers(1, max_length))
    w = draw(st.lists(st.integers(1 if positive else 0, 9), min_size=length, max_size=length))
    if sum(w) == 0:
        w[draw(st.integers(0, length - 1))] = 1
    z = sum(w)
    if exact:
        return [F(x, z) for x in w]
    return [x / z for x in w]


@st.composite
def causal_kernels(draw: Any, length: int, *, positive: bool = False,
                   max_weight: int = 6) -> list[list[Fraction]]:
    """Causal row-stochastic ``length x length`` kernels with exact rational entries: row ``i``
    (1-based) has ``i`` weights in ``0..max_weight`` over their sum and zeros beyond the
    diagonal.  Zero weights are allowed unless ``positive`` (then every causal entry is > 0); a
    row whose weights all vanish gets weight 1 at a drawn position.

    >>> from hypothesis import given
    >>> @given(causal_kernels(3))
    ... def check(A):
    ...     assert all(sum(row) == 1 and min(row) >= 0 for row in A)
    ...     assert all(A[i][j] == 0 for i in range(3) for j in range(i + 1, 3))
    >>> check()
    """
    rows = []
    lo = 1 if positive else 0
    for i in range(length):
        w = draw(st.lists(st.integers(lo, max_weight), min_size=i + 1, max_size=i + 1))
        if sum(w) == 0:
            w[draw(st.integers(0, i))] = 1
        z = sum(w)
        rows.append([F(x, z) for x in w] + [F(0)] * (length - i - 1))
    return rows


@st.composite
def monotone_kernels(draw: Any, length: int, *, max_denominator: int = 8) -> list[list[Fraction]]:
    """Stochastically monotone causal kernels (herasimchyk2026 H3): each row's CDF
    ``C_i(k) = Σ_{j<=k} A[i][j]`` is at most the previous row's, ``C_{i+1}(k) <= C_i(k)``,
    so later rows put their mass later; entries are exact rationals with denominator at most
    ``max_denominator``, built from ordered row CDFs.

    >>> from hypothesis import given
    >>> from posbias.numerics import stochastically_monotone
    >>> @given(monotone_kernels(4))
    ... def check(A):
    ...     assert stochastically_monotone(A) and all(sum(row) == 1 for row in A)
    >>> check()
    """
    den = draw(st.integers(1, max_denominator))
    cdfs = [[F(1)]]
    for i in range(2, length + 1):
        g = sorted(F(draw(st.integers(0, den)), den) for _ in range(i - 1))
        cdfs.append([min(g[k], cdfs[-1][k]) for k in range(i - 1)] + [F(1)])
    out = []
    for c in cdfs:
        row = [c[0]] + [c[k] - c[k - 1] for k in range(1, len(c))]
        out.append(row + [F(0)] * (length - len(row)))
    return out


@st.composite
def layered_rollouts(draw: Any, max_length: int = 5, max_depth: int = 4, *, positive: bool = False,
                     kernel: Any = None) -> Any:
    """``(kernels, lambdas)`` for a rollout of ``T`` layers on ``L`` positions
    (``1 <= L <= max_length``, ``0 <= T <= max_depth``): ``max(T, 1)`` kernels (one shared by
    every layer, or one per layer) from ``kernel(L)`` (default :func:`causal_kernels`) and ``T``
    exact ``λ_t ∈ [0, 1]``.  Pass ``kernels[0]`` where a function wants one shared kernel and
    ``T = 0``.

    >>> from hypothesis import given
    >>> from posbias.numerics import rollout_last_row_exact
    >>> @given(layered_rollouts())
    ... def check(case):
    ...     ks, lams = case
    ...     assert len(ks) == max(len(lams), 1) and all(0 <= x <= 1 for x in lams)
    ...     assert sum(rollout_last_row_exact(ks if lams else ks[0], lams)) == 1
    >>> check()
    """
    L = draw(st.integers(1, max_length))
    T = draw(st.integers(0, max_depth))
    make = kernel or (lambda n: causal_kernels(n, positive=positive))
    if draw(st.booleans()):
        A = draw(make(L))
        ks = [A] * max(T, 1)
    else:
        ks = [draw(make(L)) for _ in range(max(T, 1))]
    lams = draw(st.lists(unit_fractions(), min_size=T, max_size=T))
    return ks, lams


def alibi_slopes(heads: int | None = None, *, max_heads: int = 8,
                 max_slope: float = 40.0) -> st.SearchStrategy[list]:
    """Per-head ALiBi slopes: lists of ``heads`` (drawn from ``1..max_heads`` when None) finite
    floats in ``[0, max_slope]``, as :func:`posbias.numerics.alibi_layer` accepts them (a
    slope of 0 is a flat, Cesàro-like head).

    >>> import math
    >>> from hypothesis import given
    >>> @given(alibi_slopes(2))
    ... def check(m):
    ...     assert len(m) == 2 and all(math.isfinite(x) and 0 <= x <= 40 for x in m)
    >>> check()
    """
    slope = st.floats(0.0, max_slope, allow_nan=False, allow_infinity=False)
    if heads is None:
        return st.integers(1, max_heads).flatmap(lambda h: st.lists(slope, min_size=h, max_size=h))
    return st.lists(slope, min_size=heads, max_size=heads)


@st.composite
def alibi_layers(draw: Any, heads: int | None = None, *, max_heads: int = 3) -> Any:
    """Validated :class:`posbias.numerics.alibi.AlibiLayer` objects with ``heads`` heads (drawn
    from ``1..max_heads`` when None): slopes, diagonal logits, head weights and a temperature
    drawn from :data:`ALIBI_SLOPES`, :data:`ALIBI_DIAGONALS`, :data:`ALIBI_WEIGHTS` and
    :data:`ALIBI_TEMPERATURES` (from flat heads to a softmax saturated on one entry).

    >>> from hypothesis import given
    >>> from posbias.numerics import alibi_rollout
    >>> @given(alibi_layers(heads=2))
    ... def check(layer):
    ...     p = alibi_rollout(6, [layer], [1.0])
    ...     assert layer.num_heads == 2 and abs(p.sum() - 1) < 1e-12 and (p >= 0).all()
    >>> check()
    """
    H = heads if heads is not None else draw(st.integers(1, max_heads))
    m = draw(st.lists(st.sampled_from(ALIBI_SLOPES), min_size=H, max_size=H))
    d = draw(st.lists(st.sampled_from(ALIBI_DIAGONALS), min_size=H, max_size=H))
    w = draw(st.lists(st.sampled_from(ALIBI_WEIGHTS), min_size=H, max_size=H))
    tau = draw(st.sampled_from(ALIBI_TEMPERATURES))
    return alibi_layer(m, diagonal=d, weights=w, temperature=tau)
