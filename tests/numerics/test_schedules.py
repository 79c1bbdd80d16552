"""Tests of posbias.numerics.schedules: the SPEC grammar, exact values, validation."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from posbias.errors import InvalidArgument
from posbias.numerics.schedules import (
    Schedule,
    as_schedule,
    constant_schedule,
    list_schedule,
    parse_number,
    parse_schedule,
    power_schedule,
)

F = Fraction


@pytest.mark.parametrize(
    "text, value",
    [("1", F(1)), ("0", F(0)), ("1/3", F(1, 3)), ("0.1", F(1, 10)), (".5", F(1, 2)),
     ("2.5e-1", F(1, 4)), ("1E2", F(100)), ("-3/4", F(-3, 4)), (" 7/8 ", F(7, 8))],
)
def test_parse_number_is_exact(text, value):
    assert parse_number(text) == value
    assert isinstance(parse_number(text), Fraction)


@pytest.mark.parametrize(
    "text",
    ["", "abc", "1/0", "1/2/3", "0x10", "1e", "nan", "inf", "1_000", "__import__('os')",
     "2**3", "1e99999", "1 2"],
)
def test_parse_number_rejects(text):
    with pytest.raises(InvalidArgument) as err:
        parse_number(text, "--schedule")
    assert str(err.value).startswith("--schedule = ")


def test_const_list_power_file(tmp_path):
    assert parse_schedule("const:1/2", 3).exact() == (F(1, 2),) * 3
    assert parse_schedule("const:0.25", 0).exact() == ()
    s = parse_schedule("list:1, 0.5\n1/3")
    assert s.depth == 3 and s.exact() == (F(1), F(1, 2), F(1, 3))
    assert parse_schedule("list:1,1/2", 2).depth == 2
    p = parse_schedule("power:1/2,2", 4)
    assert p.exact() == (F(1, 2), F(1, 8), F(1, 18), F(1, 32))
    f = tmp_path / "lam.txt"
    f.write_text("# a schedule\n1/2, 0.25\n  1  # last\n")
    s = parse_schedule(f"file:{f}")
    assert s.exact() == (F(1, 2), F(1, 4), F(1)) and s.spec == f"file:{f}"


def test_power_non_integer_beta_is_irrational_but_precise():
    s = parse_schedule("power:1/2,1/2", 3)
    assert not s.is_rational
    with pytest.raises(InvalidArgument) as err:
        s.exact()
    assert err.value.parameter == "schedule" and "beta" in str(err.value)
    vals = s.precise(40)
    with mpmath.workdps(40):
        assert abs(vals[1] - mpmath.mpf(1) / 2 / mpmath.sqrt(2)) < mpmath.mpf(10) ** -39
    fl = s.floats()
    # correctly rounded from the 40-digit value (0.5 / 2**0.5 in float64 is one ulp off)
    assert fl.dtype == np.float64 and fl[1] == float(vals[1])
    assert s.value_strings()[0] == "0.5"


def test_floats_are_correctly_rounded():
    s = list_schedule([F(1, 3), F(1, 10)])
    assert s.floats().tolist() == [1 / 3, 0.1]


@pytest.mark.parametrize(
    "spec, depth, parameter",
    [
        ("const:1/2", None, "depth"),  # depth needed
        ("power:1/2,1", None, "depth"),
        ("const:3/2", 2, "schedule"),  # outside [0, 1]
        ("const:-1/2", 2, "schedule"),
        ("list:1,2", None, "schedule"),
        ("list:", None, "schedule"),
        ("list:1,,x", None, "schedule"),
        ("power:1/2", 2, "schedule"),
        ("power:1/2,-1", 2, "schedule"),
        ("power:2,1", 2, "schedule"),
        ("const:1/2,1/3", 2, "schedule"),
        ("nope:1", 2, "schedule"),
        ("1/2", 2, "schedule"),
        ("file:/nonexistent/lam.txt", None, "schedule"),
        ("list:1,1/2", 3, "depth"),  # mismatch
        ("const:1/2", -1, "depth"),
    ],
)
def test_parse_schedule_rejects(spec, depth, parameter):
    with pytest.raises(InvalidArgument) as err:
        parse_schedule(spec, depth)
    msg = str(err.value)
    assert msg.startswith(parameter + " = ") and "\n" not in msg


def test_unreadable_and_binary_files(tmp_path):
    d = tmp_path / "dir"
    d.mkdir()
    with pytest.raises(InvalidArgument):
        parse_schedule(f"file:{d}")
    b = tmp_path / "bin"
    b.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(InvalidArgument):
        parse_schedule(f"file:{b}")


@pytest.mark.parametrize("bad", [0.5, np.float64(0.5), mpmath.mpf("0.5"), True, "1/2"])
def test_constructors_reject_inexact(bad):
    with pytest.raises(InvalidArgument):
        constant_schedule(bad, 2)
    with pytest.raises(InvalidArgument):
        list_schedule([bad])


def test_constructor_domains():
    with pytest.raises(InvalidArgument):
        constant_schedule(F(3, 2), 1)
    with pytest.raises(InvalidArgument):
        constant_schedule(F(1, 2), -1)
    with pytest.raises(InvalidArgument):
        power_schedule(F(1, 2), -1, 3)
    assert power_schedule(1, 0, 3).exact() == (F(1),) * 3
    assert as_schedule([1, F(1, 2)]).depth == 2
    assert isinstance(as_schedule(parse_schedule("list:1")), Schedule)


@given(st.lists(st.tuples(st.integers(0, 50), st.integers(1, 50)).map(lambda t: F(min(t), t[1])),
                min_size=1, max_size=8))
def test_list_spec_round_trip(values):
    s = list_schedule(values)
    again = parse_schedule(s.spec)
    assert again.exact() == tuple(values)
    assert s.value_strings() == [str(v) for v in values]


def test_schedule_is_immutable_and_hashable():
    s = as_schedule("const:1/2", depth=3)
    with pytest.raises(AttributeError):
        s.depth = 4
    with pytest.raises(AttributeError):
        del s.spec
    assert s == as_schedule([Fraction(1, 2)] * 3) and hash(s) == hash(as_schedule([Fraction(1, 2)] * 3))


@pytest.mark.parametrize("form", [
    "list:1/2,1/4", [Fraction(1, 2), Fraction(1, 4)], (1 / 2, 1 / 4), np.array([0.5, 0.25]),
    [mpmath.mpf(1) / 2, mpmath.mpf(1) / 4],
])
def test_as_schedule_is_the_one_entry(form):
    s = as_schedule(form)
    assert s.depth == 2 and s.floats().tolist() == [0.5, 0.25]
    assert [mpmath.nstr(x, 20) for x in s.precise(30)] == ["0.5", "0.25"]
    if isinstance(form, (str, list)) and not isinstance(form[0], mpmath.mpf):
        assert s.exact() == (Fraction(1, 2), Fraction(1, 4))
    else:  # binary floats are not exact rationals
        with pytest.raises(InvalidArgument):
            s.exact()


@pytest.mark.parametrize("bad", [[0.5, float("nan")], [1.5], [-0.1], ["x"], ["3/2"], [True], None, b"x"])
def test_as_schedule_rejects_with_the_parameter(bad):
    with pytest.raises(InvalidArgument) as err:
        as_schedule(bad, "lambdas")
    assert err.value.parameter.startswith("lambdas")


def test_as_schedule_depth_broadcasts_and_checks():
    assert as_schedule(Fraction(1, 3), depth=2).exact() == (Fraction(1, 3), Fraction(1, 3))
    with pytest.raises(InvalidArgument):
        as_schedule([Fraction(1, 2)], depth=2)
    with pytest.raises(InvalidArgument):
        as_schedule(Fraction(1, 2))
