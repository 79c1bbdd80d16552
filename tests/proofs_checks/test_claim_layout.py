"""One claim, one module: every built-in claim's check lives in the module named after its slug,
under its paper's package, with its literal id, written in the order decide -> RULE -> CARD ->
check, and each paper's package lists exactly the claim modules of its folder."""

from __future__ import annotations

import importlib
import inspect
import pathlib
import pkgutil
import re

import pytest

from posbias.proofs_checks import all_claims
from posbias.proofs_checks import claims as claims_package
from posbias.proofs_checks.registry import PAPERS

BUILTIN = [c for c in all_claims() if c.paper in PAPERS]


def module_of(claim_id: str) -> str:
    """The module that must hold a claim's check: ``claims.<paper>.<slug with _ for ->``."""
    paper, slug = claim_id.split(":", 1)
    return f"{claims_package.__name__}.{paper}.{slug.replace('-', '_')}"


def _paper_is_split(paper: str) -> bool:
    return hasattr(importlib.import_module(f"{claims_package.__name__}.{paper}"), "__path__")


def placement_problems(c) -> list[str]:
    """What is wrong with where claim ``c``'s check lives (empty when nothing is)."""
    module = inspect.getmodule(c.check)
    if module is None or module.__name__ != module_of(c.id):
        return [f"{c.id}: check {c.check.__qualname__} is in {module and module.__name__}, "
                f"not in {module_of(c.id)}"]
    problems = []
    if f'"{c.id}"' not in inspect.getsource(module):
        problems.append(f"{c.id} is not written literally in {module.__name__}")
    others = [d.id for d in BUILTIN if d.id != c.id and inspect.getmodule(d.check) is module]
    if others:
        problems.append(f"{module.__name__} registers more than one claim: {c.id}, {others}")
    return problems


@pytest.mark.parametrize("c", BUILTIN, ids=lambda c: c.id)
def test_the_check_lives_in_the_module_named_after_its_slug(c):
    if not _paper_is_split(c.paper):
        pytest.xfail(f"{c.paper}'s claims are not split into one module per claim yet")
    assert placement_problems(c) == []


def test_the_placement_rule_refutes_a_misplaced_check():
    """The rule can fail: a claim whose check is defined elsewhere (here, in this test file)
    is reported with the module it should live in."""
    import dataclasses

    c = dataclasses.replace(BUILTIN[0], check=lambda ctx: None)
    problems = placement_problems(c)
    assert len(problems) == 1 and module_of(c.id) in problems[0]


def _first_line(source: str, pattern: str) -> int | None:
    m = re.search(pattern, source, flags=re.MULTILINE)
    return None if m is None else source[: m.start()].count("\n")


@pytest.mark.parametrize("c", BUILTIN, ids=lambda c: c.id)
def test_a_claim_module_reads_decide_rule_card_check(c):
    if not _paper_is_split(c.paper):
        pytest.xfail(f"{c.paper}'s claims are not split into one module per claim yet")
    source = inspect.getsource(inspect.getmodule(c.check))
    order = [("decide", _first_line(source, r"^def decide\b")),
             ("RULE", _first_line(source, r"^RULE\b")),
             ("CARD", _first_line(source, r"^CARD\b")),
             ("check", _first_line(source, r"^@claim\(|^claim\("))]
    present = [(name, line) for name, line in order if line is not None]
    assert [n for n, _ in present][-1:] == ["check"], f"{c.id}: no registration found"
    assert [line for _, line in present] == sorted(line for _, line in present), (
        f"{c.id}: the module's parts are not in the order decide -> RULE -> CARD -> check: "
        f"{present}")
    if c.card is not None:
        assert any(n == "CARD" for n, _ in present), f"{c.id}: its card is not the module's CARD"


@pytest.mark.parametrize("paper", sorted({c.paper for c in BUILTIN}))
def test_each_paper_package_lists_exactly_its_claim_modules(paper):
    if not _paper_is_split(paper):
        pytest.xfail(f"{paper}'s claims are not split into one module per claim yet")
    package = importlib.import_module(f"{claims_package.__name__}.{paper}")
    folder = pathlib.Path(package.__file__).parent
    found = {i.name for i in pkgutil.iter_modules([str(folder)]) if not i.name.startswith("_")}
    assert set(package.MODULES) == found
    assert len(package.MODULES) == len(set(package.MODULES))
    expected = [module_of(c.id).rsplit(".", 1)[1] for c in BUILTIN if c.paper == paper]
    assert list(package.MODULES) == expected, "registration order is the order of MODULES"
