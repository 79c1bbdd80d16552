"""What a computation of theory numbers will need, before it runs: the memory and the time of a
profile on each path and of its output text, and the memory of the fast ALiBi rollout.

These figures size a run from its parameters alone (``posbias profile``, ``posbias rollout`` and
the grid points of a sweep refuse what cannot fit before any work: :class:`posbias.resources.Plan`).
They were measured on this project's machine (2 cores) and are guides, rounded up.
"""

from __future__ import annotations

__all__ = ["alibi_rollout_bytes", "kernel_exact_seconds", "profile_bytes", "profile_output_cost",
           "profile_seconds"]


def profile_bytes(path: str, length: int, depth: int, denominator_bits: int, dps: int | None,
                   output_values: bool) -> float:
    """Memory (bytes) of a profile run from its sizes, before any work.

    Exact: the common denominator has about ``T (log2 lcm(1..L) + log2 b)`` bits with
    ``log2 lcm(1..L) ~ L log2 e``, and the rollout at that denominator carries ``L`` integers of
    that size from the first layer on; two lists of them are alive at once (the row and the
    numerators), and printing all values as reduced fractions adds about as much again.
    Precise: ``L`` mpmath numbers of ``dps`` digits (about ``3.33 dps`` bits plus ~100 bytes of
    object) in three lists.  Fast: about eight float64 arrays of length ``L``.
    """
    if path == "exact":
        bits = depth * (1.4427 * length + denominator_bits) + 64
        per = bits / 8 + 40
        return length * per * (4 if output_values else 2) + 50e6
    if path == "precise":
        per = (dps or 15) * 3.33 / 8 + 120
        return length * per * (4 if output_values else 3) + 50e6
    return length * 8 * (8 + (6 if output_values else 0)) + 50e6


def profile_seconds(path: str, length: int, depth: int, denominator_bits: int, dps: int | None) -> float:
    """Rough single-core time of a profile run from its sizes (measured on the development
    machine: the exact rollout at the final denominator at ``L = 4096, T = 24, lambda = 1/2`` took 1.0 s of
    CPU, i.e. about ``7.5e-11`` s per layer, position and bit of its integers, which have the
    final denominator's size from the first layer on; mpmath about 1 us per operation at low
    precision, growing with ``dps``; float64 about 2 ns per layer and position)."""
    if path == "exact":
        bits = depth * (1.4427 * length + denominator_bits) + 64
        return depth * length * bits * 7.5e-11
    if path == "precise":
        return depth * length * (1e-6 + (dps or 15) * 3e-9)
    return depth * length * 2e-9


def kernel_exact_seconds(length: int, depth: int, width: int, denominator_bits: int) -> float:
    """Rough single-core time of an exact profile through a kernel other than Cesàro's, which
    propagates reduced Fractions (``O(L)`` per layer, each operation a gcd of the entries' size).

    A row reading at most ``width`` tokens divides by counts up to ``width``, so each layer adds
    about ``log2 lcm(1..width) + log2 b ~ 1.4427 width + b`` bits to the entries; layer ``t``
    works on entries of ``t`` times that, at a cost growing with the square of their size:
    about ``1.2e-12 L (1.4427 width + b)^2 T^3`` seconds in all.  Measured on the development
    machine at ``L = 2048, T = 24, λ = 1/2``: ``prefix:16`` (width L) 280 s, ``window:1024``
    35 s (this estimate: 280 s and 70 s), against 0.7 s for Cesàro's scaled integers.
    """
    bits = 1.4427 * max(width, 1) + denominator_bits
    return 1.2e-12 * length * bits * bits * depth ** 3


def profile_output_cost(path: str, length: int, depth: int, denominator_bits: int, dps: int | None,
                    fractions: bool, summary: bool) -> tuple[float, float]:
    """``(bytes, seconds)`` of turning a profile into its output text and writing it
    (``fractions``: JSON or ``--fractions``, i.e. reduced fractions on the exact path and the
    JSON lists elsewhere).

    Exact entries carry about ``T (log2 lcm(1..L) + log2 b)`` bits: reduced fractions (JSON,
    ``--fractions``) cost a gcd and two decimal conversions per entry, about ``4.2e-13 s``
    per entry and squared bit (measured: 0.3, 4.2 and 31.6 s at L = 1024, 2048, 4096, T = 24);
    the decimal table one integer division per entry (about ``1.2e-8 s`` per entry and bit);
    the text holds about ``0.3`` decimal digits per bit of numerator and denominator.  Precise
    and fast entries print in microseconds.  ``summary``: a handful of numbers.
    """
    if summary:
        return 1e4, 0.01
    # a line of text per entry: the str object (~70 bytes) in the list of lines and its copy in
    # the joined text; JSON holds Python floats in lists (and, on the fast path, the log
    # profile beside the profile) while json.dumps builds its chunks (measured: a fast JSON
    # profile of 8,000,000 entries ran out of 1.76 GiB of address space planned at 64 bytes
    # per entry)
    per_line = 160.0
    if path == "exact":
        bits = depth * (1.4427 * length + denominator_bits) + 64
        if fractions:
            return length * (bits * 0.3 * 2 * 3 + per_line), length * bits * bits * 4.2e-13
        return length * per_line, length * bits * 1.2e-8
    if path == "precise":
        return (length * (((dps or 15) + 24) * 3 + per_line),
                length * 5e-6 * (1 + (dps or 15) / 100))
    return length * (320.0 if fractions else per_line), length * 2e-6


def alibi_rollout_bytes(length: int, heads: int, conventions: int) -> float:
    """Memory of the fast ALiBi rollout from its sizes: a few ``heads x L`` float64 blocks for
    the scan, about sixteen length-``L`` vectors per profile (profile, attention-only profile,
    normalisers, the report's lists), for each convention."""
    return 8.0 * length * (4 * heads + 16 * conventions) + 50e6
