"""Proof status of every derivation: "proven for all parameters" only where the identities are
symbolic in every parameter the result states; a stated range where they are instances."""

from __future__ import annotations

import re

import pytest

from posbias.derivations import all_derivations, get_derivation

#: what each derivation's identities really cover (audited 2026-12-01)
STATUS = {
    "hardy-kernel": "every H by induction, with the Cesàro-to-Hardy limit checked on f(y) = y^2",
    "hardy-kernels-explicit": "H = 1..6",
    "density": "",
    "primacy-tail": "for H = 1..6",
    "residual-mixture": "H = 1..12",
    "laguerre": "",
    "schedule-mixture": "T = 1..4",
    "minimum-dead-zone": "alpha = 1/2, 9/10",
    "summable-product": "",
    "harmonic-product": "",
    "product-criterion": "",
    "alibi-warp": "",
    "rope-init": "d = 2, 4, 6",
    "collapse-rate": "the Jordan block for L = 2..8",
    "hausdorff-algebra": "",
    "sink-moments": "",
    "uniform-path-sum": "",
    "softmax-tv-limit": "",
    "streaming-profile": "the geometric sum for W = 1..6",
    "kinetic-bessel": "",
    "kinetic-profile": "",
    "kinetic-poisson": "",
    "kinetic-threshold": "",
}


def test_every_derivation_is_audited():
    assert set(all_derivations()) == set(STATUS)


@pytest.mark.parametrize("name", sorted(STATUS))
def test_proof_status(name):
    d = get_derivation(name)
    assert d.proven, d.unproven()
    if STATUS[name]:
        assert STATUS[name] in d.proven_for
        assert d.proof_status.endswith(" only") and "all parameters" not in d.proof_status
    else:
        assert d.proof_status == "proven for all parameters"


_INSTANCE = re.compile(r"^(H|T|d|alpha|s)\s*=\s*[0-9]")


@pytest.mark.parametrize("name", sorted(STATUS))
def test_all_parameters_only_with_a_symbolic_identity(name):
    """A derivation whose identities are all instances (labels 'H = 3: ...', 'd = 4 ...') must
    state its range; one that claims all parameters has a symbolic identity among them."""
    d = get_derivation(name)
    instances = [i for i in d.identities if _INSTANCE.match(i.label)]
    if len(instances) == len(d.identities):
        assert d.proven_for, f"{name}: only instances, yet 'proven for all parameters'"
    if not d.proven_for:
        assert any(not _INSTANCE.match(i.label) for i in d.identities)


def test_laguerre_is_proven_for_symbolic_h_termwise():
    d = get_derivation("laguerre")
    sym = [i for i in d.identities if "symbolic H" in i.label]
    assert sym and all(i.proven for i in sym)
