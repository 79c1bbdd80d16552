"""Every public function validates through the one layer (:mod:`posbias.validation`): a walk of
the public API of numerics and derivations calls each function whose parameters it knows with
valid values, then with out-of-range ones, and requires an InvalidArgument naming the parameter.
"""

from __future__ import annotations

import inspect
import random
from fractions import Fraction

import pytest

import posbias.numerics as numerics
from posbias.errors import InvalidArgument
from posbias.validation import MAX_DPS, MIN_DPS, check_dps, check_integer, check_real

F = Fraction

#: parameter name -> (a valid value, values out of its domain)
DOMAIN = {
    "length": (4, [0, -1, 2.5, True, "3", None]),
    "L": (4, [0, -2, 4.0, False]),
    "count": (3, [0, -1, 1.5]),
    "dps": (30, [0, MIN_DPS - 1, MAX_DPS + 1, 30.0, True]),
    "depth": (2, [-1, 1.5, "2"]),
    "schedule": ([F(1, 2), F(1, 3)], [[F(3, 2)], [F(-1, 2)], "bogus", None]),
    "lambdas": ([0.5, 0.5], [[1.5], [float("nan")], [-0.1]]),
    "num_heads": (4, [0, -1, 2.0]),
    "w": (2, [0, -1, 1.5]),
    "n": (3, [-1, 2.5]),
    "k": (1, [-1, 0.5]),
    "degree": (2, [-1, 1.5]),
    "layers": (None, [["not a layer"], [0.5]]),
    "slopes": ([0.5, 0.25], [[float("nan")], [-1.0], "x"]),
    "K": (1, [-1, 1.5]),
}


def _layers():
    from posbias.numerics.alibi import alibi_layer

    return [alibi_layer([0.5, 0.25])] * 2

# names whose valid value depends on another parameter of the same function
FIXED = {
    ("numerics", "symmetric_polynomial_profile_exact"): {"depth": 2},
}


def _public(module):
    for name in module.__all__:
        obj = getattr(module, name)
        # derivation builders run whole symbolic proofs: their inputs are the functions below
        if inspect.isfunction(obj) and not name.endswith("_derivation"):
            yield name, obj


def _walk(module, label):
    walked, skipped = [], []
    for name, fn in _public(module):
        sig = inspect.signature(fn)
        kwargs, known = {}, []
        ok = True
        for p in sig.parameters.values():
            if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
                continue
            if p.name in DOMAIN:
                value = _layers() if p.name == "layers" else DOMAIN[p.name][0]
                kwargs[p.name] = FIXED.get((label, name), {}).get(p.name, value)
                known.append(p.name)
            elif p.default is p.empty:
                ok = False
                break
        if not ok or not known:
            skipped.append(name)
            continue
        try:
            fn(**kwargs)
        except Exception:  # the generic valid values do not suit this function
            skipped.append(name)
            continue
        walked.append((name, fn, kwargs, known))
    return walked, skipped


def _derivation_modules():
    import importlib

    return [importlib.import_module(f"posbias.derivations.{m}")
            for m in ("hardy", "residual", "density", "alibi", "rope", "schedules")]


@pytest.mark.parametrize("module,label,at_least", [
    (numerics, "numerics", 25),
    *[(m, "derivations", 1) for m in _derivation_modules()[:3]],
])
def test_public_functions_reject_out_of_range_arguments_naming_the_parameter(module, label,
                                                                              at_least):
    walked, skipped = _walk(module, label)
    assert len(walked) >= at_least, ([w[0] for w in walked], skipped)
    failures = []
    for name, fn, kwargs, known in walked:
        for parameter in known:
            for bad in DOMAIN[parameter][1]:
                try:
                    fn(**dict(kwargs, **{parameter: bad}))
                except InvalidArgument as exc:
                    if exc.parameter.split("[", 1)[0] != parameter:
                        failures.append(f"{name}({parameter}={bad!r}) named {exc.parameter!r}")
                except Exception as exc:
                    failures.append(f"{name}({parameter}={bad!r}) raised {type(exc).__name__}: {exc}")
                else:
                    failures.append(f"{name}({parameter}={bad!r}) was accepted")
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("call,parameter", [
    (lambda: check_integer("length", 0, 1), "length"),
    (lambda: check_integer("length", 1.0, 1), "length"),
    (lambda: check_dps("dps", 10), "dps"),
    (lambda: check_real("temperature", float("inf")), "temperature"),
    (lambda: check_real("alpha", 2, 0, 1), "alpha"),
    (lambda: check_real("alpha", 0, 0, 1, lo_open=True), "alpha"),
    (lambda: check_real("alpha", "0.5"), "alpha"),
])
def test_validation_errors_are_one_line_and_name_the_parameter(call, parameter):
    with pytest.raises(InvalidArgument) as err:
        call()
    assert err.value.parameter == parameter
    assert "\n" not in str(err.value) and str(err.value).startswith(parameter + " = ")


def test_valid_values_pass_through_converted():
    import numpy as np

    assert check_integer("n", np.int64(3), 0) == 3 and type(check_integer("n", np.int64(3))) is int
    assert check_real("x", F(1, 2), 0, 1) == 0.5
    assert check_dps("dps", MIN_DPS) == MIN_DPS and check_dps("dps", MAX_DPS) == MAX_DPS
    r = random.Random(0)
    assert r is not None


@pytest.mark.parametrize("quoted", [
    "expected value\nat line 2",                       # a library's message over two lines
    "model type `x\x1b[31mred\x1b[0m`",                # a terminal escape from a refused file
    "name \u202egnp.exe",                              # a bidirectional override
    "x" * 5000,                                        # a message of a whole file
])
def test_a_quoted_message_stays_one_printable_line(quoted):
    """What an error quotes (a library's exception, a value read from a refused file) cannot
    break the one-line contract or drive the terminal: line breaks become spaces, other
    characters that are not printable their escapes, and it is cut at MESSAGE_CHARS."""
    from posbias.errors import MESSAGE_CHARS, one_line

    text = str(InvalidArgument("model", "dir", f"a loadable model ({quoted})"))
    assert text.isprintable() and "\n" not in text
    assert len(text) <= len("model = dir is invalid: expected ") + MESSAGE_CHARS
    assert one_line(one_line(quoted)) == one_line(quoted)  # escaping twice changes nothing
    if "\x1b" in quoted:
        assert "\\x1b[31mred" in text
