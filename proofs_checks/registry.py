"""The claim registry: claims of the papers, their checks and the verdicts they return.

A *claim* is a registered record (:ref:`claims-records`): an id ``<paper-key>:<slug>``, the paper,
a one-sentence statement, its LaTeX, the assumptions, the **expected verdict**, the **rule** that
maps the computed numbers to a verdict (written from the statement before computing; it is
copied into every Evidence that does not state its own) and a check function.  There is one
expected verdict per claim: ``--thorough`` may use larger grids, more cases or live
measurements, never a different expectation.  A check receives a :class:`CheckContext` (working precision, thoroughness, seed) and
returns an :class:`Evidence` record whose verdict comes out of the computation.

Users register their own claims with the same decorator::

    from posbias.proofs_checks import claim, Evidence

    @claim("mylab:row-sums", paper="mylab", statement="...", latex=r"\\sum_j p_j = 1",
           expected="verified", rule="verified when every row sums to 1 exactly")
    def _check(ctx):
        ...
        return Evidence("verified", method="exact identity", discrepancy="0")

and get them run by ``posbias check`` (after importing their module with ``--import``) and by
the pytest plugin (``pytest --posbias``).
"""

from __future__ import annotations

import dataclasses
import os
import time
import traceback
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from posbias.errors import InvalidArgument
from posbias.proofs_checks.cards import PAPER_SCOPES, SCOPES, Card, Rule
from posbias.validation import check_dps, read_bounded

__all__ = [
    "PAPERS",
    "PAPER_SCOPES",
    "SCOPES",
    "VERDICTS",
    "CheckContext",
    "Claim",
    "Evidence",
    "Result",
    "all_claims",
    "check_data_dir",
    "claim",
    "exit_status",
    "get_claim",
    "load_builtin_claims",
    "register",
    "run_claim",
    "thorough_work",
    "unregister",
]

VERDICTS = ("verified", "qualified", "refuted", "inconclusive", "needs-data")

#: The papers posbias knows by key (docs/explanation/mathematics.rst); user claims may use other keys.
PAPERS = {
    "chowdhury2026": "B. D. Chowdhury, Lost in the Middle at Birth: An Exact Theory of "
    "Transformer Position Bias, arXiv 2603.10123",
    "herasimchyk2026": "H. Herasimchyk, R. Labryga, T. Prusina, S. Laue, A Residual-Aware "
    "(v2: Structural) Theory of Position Bias in Transformers, arXiv 2602.16837",
    "wu2025": "X. Wu, Y. Wang, S. Jegelka, A. Jadbabaie, On the Emergence of Position Bias in "
    "Transformers, ICML 2025, arXiv 2502.01951",
    "barbero2024": "F. Barbero, A. Banino, S. Kapturowski, D. Kumaran, J. G. M. Araújo, "
    "A. Vitvitskyi, R. Pascanu, P. Veličković, Transformers need glasses! Information "
    "over-squashing in language tasks, NeurIPS 2024, arXiv 2406.04267",
    "barbero2025": "F. Barbero, Á. Arroyo, X. Gu, C. Perivolaropoulos, M. Bronstein, "
    "P. Veličković, R. Pascanu, Why do LLMs attend to the first token?, COLM 2025, "
    "arXiv 2504.02732",
    "xiao2024": "G. Xiao, Y. Tian, B. Chen, S. Han, M. Lewis, Efficient Streaming Language "
    "Models with Attention Sinks (StreamingLLM), ICLR 2024, arXiv 2309.17453",
    "wu2024": "X. Wu, A. Ajorlou, Y. Wang, S. Jegelka, A. Jadbabaie, On the Role of Attention "
    "Masks and LayerNorm in Transformers, NeurIPS 2024, arXiv 2405.18781",
    "duerinckx2026": "M. Duerinckx, B. Geshkovski, S. Rossi, Kinetic theory for Transformers and "
    "the lost-in-the-middle phenomenon, arXiv 2605.09213",
    "posbias": "results derived and checked by posbias itself, beyond the papers",
}


def _jsonable(value: Any) -> Any:
    """Turn evidence values into JSON-safe values (numbers stay numbers, others become str)."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if value == value and abs(value) != float("inf") else str(value)
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return str(value)


@dataclass
class Evidence:
    """What a check found.

    Parameters
    ----------
    verdict:
        one of :data:`VERDICTS`.
    method:
        the routes compared, e.g. ``"sympy integral vs exact Fraction rollout"``.
    discrepancy:
        the observed discrepancy between the routes, as text with no more digits than it holds
        (``"0 (exact)"``, ``"3e-41"``), or ``None``.
    precision:
        the arithmetic reached: ``"exact"``, ``"dps=60"``, ``"float64"``.
    tolerance:
        the tolerance in digits tied to the precision, e.g. ``"40 of 50 digits"``.
    rule:
        the rule that maps the computed numbers to the verdict, decided from the claim's
        statement before computing (filled from the claim's registered ``rule`` when the check
        does not state its own).
    correction:
        for a qualified claim, the exact correction (what really holds).
    counterexample:
        for a refuted claim, the case that refutes it.
    cases, worst_margin:
        for property claims: how many generated cases were tried and the worst margin seen.
    parameters, details:
        the parameters of the computation and any further JSON-safe facts.
    figures:
        the numbers the claim's :class:`~posbias.proofs_checks.cards.Rule` decides on; when the
        claim registers a Rule, the registry recomputes the verdict from them (a verdict that
        does not follow from its figures is reported as an error) and finds the flip point.
    thresholds:
        threshold values of this run that differ from the rule's defaults (e.g. tied to dps).
    setting:
        fields of the test setting this run refines (e.g. the data it read), merged into the
        card's test setting before the scope is computed.
    alternatives:
        for a claim that a theory *fits* a measurement: the same figure for the named
        alternatives (attention-only rollout, uniform profile, best constant α, ...).
    """

    verdict: str
    method: str = ""
    discrepancy: str | None = None
    precision: str | None = None
    tolerance: str | None = None
    rule: str | None = None
    correction: str | None = None
    counterexample: str | None = None
    cases: int | None = None
    worst_margin: str | None = None
    parameters: dict = field(default_factory=dict)
    details: dict = field(default_factory=dict)
    figures: dict = field(default_factory=dict)
    thresholds: dict = field(default_factory=dict)
    setting: dict = field(default_factory=dict)
    alternatives: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise InvalidArgument("verdict", self.verdict, "one of " + ", ".join(VERDICTS))

    def as_dict(self) -> dict:
        return {k: _jsonable(v) for k, v in dataclasses.asdict(self).items()}

    def summary(self) -> str:
        """One line for tables: the correction, counterexample or discrepancy that matters."""
        if self.correction:
            return self.correction
        if self.counterexample:
            return "counterexample: " + self.counterexample
        parts = []
        if self.discrepancy is not None:
            parts.append(f"discrepancy {self.discrepancy}")
        if self.cases is not None:
            parts.append(f"{self.cases} cases")
        if self.worst_margin is not None:
            parts.append(f"worst margin {self.worst_margin}")
        return ", ".join(parts)


@dataclass(frozen=True)
class CheckContext:
    """How a check should run.

    ``dps`` is the working decimal precision for mpmath routes; checks that find two routes
    disagreeing at ``dps`` rerun at higher precision up to ``max_dps`` (see
    :func:`posbias.proofs_checks.precision.agree`) before deciding.  ``thorough`` asks for
    larger grids, more generated cases and live measurements instead of stored ones; it never
    changes what a claim is expected to give (one expected verdict per claim).  ``data_dir`` is
    a folder of user data (measured profiles, ``step0/`` measurement records).
    """

    dps: int = 30
    max_dps: int = 240
    thorough: bool = False
    seed: int = 20260
    data_dir: str | None = None

    def __post_init__(self) -> None:
        check_dps("dps", self.dps)
        check_dps("max_dps", self.max_dps)
        if self.max_dps < self.dps:
            object.__setattr__(self, "max_dps", self.dps)


#: largest data file read from a data directory (``--data-dir``)
MAX_DATA_BYTES = 64 * 2**20


def check_data_dir(folder: str, parameter: str = "data_dir") -> None:
    """Refuse a data directory (``posbias check --data-dir``, ``pytest --posbias-data-dir``)
    that is not a directory, or in which a file a data claim reads (.csv, .yaml) is not a
    regular UTF-8 text file of at most 64 MiB; the error names ``parameter`` (or ``parameter``
    followed by ``file`` for a bad file) and the path."""
    if not os.path.isdir(folder):
        raise InvalidArgument(parameter, folder, "an existing directory")
    for root, _dirs, files in os.walk(folder):
        for f in sorted(files):
            if not f.endswith((".csv", ".yaml", ".yml")):
                continue
            path = os.path.join(root, f)
            data = read_bounded(path, MAX_DATA_BYTES, f"{parameter} file")
            try:
                data.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise InvalidArgument(f"{parameter} file", path,
                                      f"UTF-8 text (byte {exc.start} is not)") from None


@dataclass(frozen=True)
class Claim:
    """A registered claim; ``latex`` may be a string or a callable returning one (so that a
    formula can come from a sympy derivation without importing sympy at registration)."""

    id: str
    paper: str
    statement: str
    latex: str | Callable[[], str]
    expected: str
    check: Callable[[CheckContext], Evidence]
    assumptions: tuple = ()
    section: str = ""
    needs: tuple = ()  # optional extras or data sets the check needs (informational)
    #: the rule mapping the computed numbers to a verdict, written from the statement before
    #: computing: a :class:`~posbias.proofs_checks.cards.Rule` (thresholds as data, examples)
    #: or, for a user's claim, its text; the text is copied into the evidence when the check
    #: does not state its own
    rule: str | Rule = ""
    #: the claim card (setting of the paper and of the test, scope, proof status)
    card: Card | None = None
    #: what ``--thorough`` re-measures or re-trains for this claim: ``f(ctx)`` returns
    #: ``[(key, description, seconds), ...]`` with seconds from the stored run's measured wall
    #: time on this project's machine (rate x work); work shared by claims has one key
    thorough_work: Callable[[CheckContext], list] | None = None

    @property
    def rule_text(self) -> str:
        return self.rule.text if isinstance(self.rule, Rule) else self.rule

    @property
    def latex_text(self) -> str:
        return self.latex() if callable(self.latex) else self.latex

    @property
    def slug(self) -> str:
        return self.id.split(":", 1)[1]


@dataclass
class Result:
    """A claim together with the evidence its check returned and the time it took."""

    claim: Claim
    evidence: Evidence
    seconds: float

    @property
    def expected(self) -> str:
        """The claim's expected verdict (the same for the default and the thorough run)."""
        return self.claim.expected

    @property
    def ok(self) -> bool:
        """True when the verdict equals the expected verdict, or the data was missing."""
        return self.passes(strict=False)

    @property
    def never_computed(self) -> bool:
        """True for a claim registered with no expected verdict of its own (``expected
        "needs-data"``: its data could never be had where posbias was built, so no verdict was
        ever computed to expect): whatever it gives with data is a new result, not a
        regression."""
        return self.expected == "needs-data"

    def passes(self, strict: bool = False) -> bool:
        """True when the verdict equals the expected verdict.  A needs-data verdict passes
        unless ``strict`` (``posbias check --strict``: missing data fails the run); a claim that
        was never computed (:attr:`never_computed`) passes with any verdict its data give, and
        the reports mark that verdict as new."""
        if self.evidence.verdict == "needs-data":
            return not strict
        if self.never_computed:
            return True
        return self.evidence.verdict == self.expected

    @property
    def needed(self) -> str:
        """What a needs-data result lacked, in one line: the check's own statement of it
        (``details["needed"]``), else the data and extras the claim registered as its needs,
        else its method.  Empty for any other verdict."""
        ev = self.evidence
        if ev.verdict != "needs-data":
            return ""
        details = ev.details if isinstance(ev.details, dict) else {}
        return str(details.get("needed") or "; ".join(map(str, self.claim.needs))
                   or ev.summary() or ev.method)

    @property
    def needed_in_full(self) -> str:
        """:attr:`needed`, followed by the form the data must take where the check states it
        (``details["format"]``)."""
        form = self.evidence.details.get("format") if isinstance(self.evidence.details, dict) \
            else None
        return self.needed + (f" (give it as {form})" if self.needed and form else "")

    @property
    def card(self) -> dict | None:
        """The claim card resolved against this run (scope, settings, differences, proof)."""
        if self.claim.card is None:
            return None
        return self.claim.card.resolve(self.evidence.setting)

    @property
    def scope(self) -> str:
        """The computed scope (``unscoped`` for a claim without a card)."""
        card = self.card
        return card["scope"] if card else "unscoped"

    @property
    def decision(self) -> dict | None:
        return self.evidence.details.get("decision") if isinstance(self.evidence.details, dict) else None

    @property
    def threshold_sensitive(self) -> bool:
        d = self.decision
        return bool(d and d.get("threshold_sensitive"))

    def card_dict(self) -> dict:
        """The JSON fields of the card: scope, setting (paper, test, differences), rule, flip,
        proof, figures and the alternatives' figures."""
        card = self.card
        out: dict = {"scope": self.scope}
        if card:
            out["setting"] = {"paper": card["paper"].as_dict(), "test": card["test"].as_dict(),
                              "differences": card["differences"]}
            out["proof"] = card["proof"].as_dict()
        rule = self.claim.rule
        out["rule"] = (rule.as_dict() if isinstance(rule, Rule)
                       else {"text": self.evidence.rule or rule or "", "thresholds": {}})
        d = self.decision
        out["flip"] = d.get("flip") if d else None
        out["threshold_sensitive"] = self.threshold_sensitive
        out["figures"] = _jsonable(self.evidence.figures)
        if self.evidence.alternatives:
            out["alternatives"] = _jsonable(self.evidence.alternatives)
        return out

    def as_dict(self) -> dict:
        try:
            latex = self.claim.latex_text
        except Exception as exc:  # a broken LaTeX builder must not hide the verdict
            latex = f"(LaTeX unavailable: {exc})"
        return {
            "id": self.claim.id,
            "paper": self.claim.paper,
            "statement": self.claim.statement,
            "latex": latex,
            "assumptions": list(self.claim.assumptions),
            "status": self.evidence.verdict,
            "expected": self.expected,
            "ok": self.ok,
            "method": self.evidence.method,
            "evidence": self.evidence.as_dict(),
            **self.card_dict(),
            "seconds": round(self.seconds, 3),
        }


_REGISTRY: dict[str, Claim] = {}


def register(c: Claim) -> Claim:
    """Add a claim to the registry; ids are unique."""
    if ":" not in c.id or not c.id.split(":", 1)[1]:
        raise InvalidArgument("id", c.id, "'<paper-key>:<slug>'")
    if c.expected not in VERDICTS:
        raise InvalidArgument("expected", c.expected, "one of " + ", ".join(VERDICTS))
    if c.card is not None and not isinstance(c.card, Card):
        raise InvalidArgument("card", type(c.card).__name__, "a posbias.proofs_checks.cards.Card")
    if c.id in _REGISTRY and _REGISTRY[c.id].check is not c.check:
        raise InvalidArgument("id", c.id, "an id not registered yet")
    _REGISTRY[c.id] = c
    return c


def unregister(claim_id: str) -> None:
    _REGISTRY.pop(claim_id, None)


def claim(
    id: str,
    *,
    statement: str,
    latex: str | Callable[[], str],
    expected: str,
    paper: str | None = None,
    assumptions: Iterable[str] = (),
    section: str = "",
    needs: Iterable[str] = (),
    rule: str | Rule = "",
    card: Card | None = None,
    thorough_work: Callable[[CheckContext], list] | None = None,
) -> Callable[[Callable[[CheckContext], Evidence]], Callable[[CheckContext], Evidence]]:
    """Decorator registering ``check(ctx) -> Evidence`` as the check of claim ``id``."""

    def decorate(fn):
        register(
            Claim(
                id=id,
                paper=paper or id.split(":", 1)[0],
                statement=statement,
                latex=latex,
                expected=expected,
                check=fn,
                assumptions=tuple(assumptions),
                section=section,
                needs=tuple(needs),
                rule=rule,
                card=card,
                thorough_work=thorough_work,
            )
        )
        return fn

    return decorate


def load_builtin_claims() -> None:
    """Import the built-in claim modules (they register themselves on their first import;
    a later import finds them loaded and does nothing)."""
    from posbias.proofs_checks import claims  # noqa: F401  (registers on import)


def all_claims(paper: str | None = None) -> list[Claim]:
    """Registered claims in registration order, optionally of one paper."""
    load_builtin_claims()
    rank = {key: n for n, key in enumerate(PAPERS)}
    # the papers in the order of PAPERS, then users' papers; registration order within a paper
    out = sorted(_REGISTRY.values(), key=lambda c: rank.get(c.paper, len(rank)))
    if paper is not None:
        papers = sorted({c.paper for c in out})
        if paper not in papers:
            raise InvalidArgument("paper", paper, "one of " + ", ".join(papers))
        out = [c for c in out if c.paper == paper]
    return out


def get_claim(claim_id: str) -> Claim:
    """The claim with this id; a bare slug is accepted when it is unique."""
    load_builtin_claims()
    if claim_id in _REGISTRY:
        return _REGISTRY[claim_id]
    matches = [c for c in _REGISTRY.values() if c.slug == claim_id]
    if len(matches) == 1:
        return matches[0]
    if len(matches) > 1:
        raise InvalidArgument(
            "claim id", claim_id, "a full id; this slug is ambiguous: " + ", ".join(c.id for c in matches)
        )
    raise InvalidArgument("claim id", claim_id, "a registered id (see `posbias list`)")


def run_claim(c: Claim, ctx: CheckContext | None = None) -> Result:
    """Run one check; an exception inside it becomes an inconclusive verdict with the error."""
    ctx = ctx or CheckContext()
    start = time.perf_counter()
    try:
        ev = c.check(ctx)
        if not isinstance(ev, Evidence):
            raise TypeError(f"check of {c.id} returned {type(ev).__name__}, not Evidence")
    except Exception as exc:  # report, never hide: the verdict differs from expected -> exit 1
        ev = Evidence(
            "inconclusive",
            method="check raised an exception",
            details={"error": f"{type(exc).__name__}: {exc}", "traceback": traceback.format_exc()},
        )
    if ev.rule is None:  # the rule the check states, else the one the claim registered
        stated = ev.details.get("rule") if isinstance(ev.details, dict) else None
        ev.rule = stated if isinstance(stated, str) and stated else (c.rule_text or None)
    ev = _decide(c, ev)
    return Result(c, ev, time.perf_counter() - start)


def _decide(c: Claim, ev: Evidence) -> Evidence:
    """Recompute the verdict of a claim with a Rule from the figures the check reported.

    The verdict must follow from the figures under the rule: if it does not, the evidence
    becomes ``inconclusive`` with the disagreement as its error (a check whose verdict is not
    the rule's is a defect, never hidden).  The decision (thresholds used, flip point,
    threshold sensitivity) is stored in ``details["decision"]``.  Verdicts the rule does not
    give (``needs-data``, a crash) are left as they are.
    """
    rule = c.rule
    if not isinstance(rule, Rule) or ev.verdict not in rule.outcomes or not ev.figures:
        return ev
    if ev.details.get("error"):
        return ev
    try:
        decision = rule.apply(ev.figures, **ev.thresholds)
    except Exception as exc:
        ev.details["error"] = f"rule could not decide on the figures: {type(exc).__name__}: {exc}"
        ev.details["verdict_claimed"] = ev.verdict
        ev.verdict = "inconclusive"
        return ev
    ev.details["decision"] = decision.as_dict()
    if decision.verdict != ev.verdict:
        ev.details["error"] = (f"the check returned {ev.verdict} but its rule gives "
                               f"{decision.verdict} on the reported figures")
        ev.details["verdict_claimed"] = ev.verdict
        ev.verdict = "inconclusive"
    return ev


def thorough_work(claims: Iterable[Claim], ctx: CheckContext) -> list:
    """The re-measurements and re-trainings ``--thorough`` will run for ``claims``: one entry
    ``(key, description, seconds, [claim ids])`` per distinct piece of work."""
    out: dict = {}
    for c in claims:
        if c.thorough_work is None:
            continue
        for key, what, seconds in c.thorough_work(ctx):
            if key in out:
                out[key][3].append(c.id)
            else:
                out[key] = [key, what, float(seconds), [c.id]]
    return [tuple(v) for v in out.values()]


def exit_status(results: Iterable[Result], strict: bool = False) -> int:
    """0 when every result passes (:meth:`Result.passes`), else 1."""
    return 0 if all(r.passes(strict) for r in results) else 1
