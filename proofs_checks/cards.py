"""Claim cards: the setting a verdict is about, the rule that decides it, and how firmly.

A verdict is about a statement *in a setting*.  Every claim carries a :class:`Card` registered
with it:

* ``paper`` — the paper's setting, with its source (section, figure, table) and the fields that
  make a setting (architecture, residual on or off, mask, positional encoding, L, H, width, data,
  training); a field the card could not confirm from the paper is listed in ``unconfirmed``;
* ``test`` — the same fields for what the check computes or reads (a check may refine them at
  run time through :attr:`Evidence.setting`, e.g. when it reads user data);
* the **scope**, computed from the two (:func:`scope_of`): ``paper`` (same setting and scale),
  ``reduced`` (same setting, a smaller scale: the parameter is named), ``variant`` (another
  setting), or declared: ``proxy`` (a stand-in experiment), ``machinery`` (a check of posbias
  itself);
* the **proof status** (:class:`ProofStatus`): proven for all parameters, proven for a stated
  range, or checked numerically; never "yes" for a finite range.

A claim's verdict is decided by a :class:`Rule`: a text, thresholds as data
(:class:`Threshold`) and a function ``decide(figures, thresholds) -> verdict`` that the check
calls on the numbers it computed.  Because the rule is data, the registry can recompute the
verdict from the reported figures (a verdict that does not follow from them is an error), find
the nearest threshold value at which the verdict would change (:func:`flip_point`), and mark a
verdict within the rule's stated factor of that point ``threshold-sensitive``.  A rule carries
its :class:`Example` inputs: the paper's own figures where the paper gives them and plausible
false versions of the claim; the test suite feeds every example to its rule and fails when a
verdict the rule allows is reached by none of them.

Only ``paper`` and ``reduced`` verdicts are the paper's verdicts; reports count verdicts per
scope.

>>> paper = Setting("Fig. 2", architecture="attention-only", residual="off", L=2048, H=24)
>>> scope_of(paper, Setting("", architecture="attention-only", residual="off", L=256, H=24))
('reduced', ['L: paper 2048, test 256'])
>>> scope_of(paper, Setting("", architecture="attention-only", residual="on", L=2048, H=24))
('variant', ['residual: paper off, test on'])
>>> scope_of(paper, Setting("", architecture="attention-only", residual="off",
...                         L=(256, 2048), H=24))[0]
'paper'
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from posbias.errors import InvalidArgument
from posbias.numbers import rounded, significant

__all__ = [
    "NUMERIC",
    "PAPER_SCOPES",
    "PROVEN_ALL",
    "SCALE_FIELDS",
    "SCOPES",
    "Card",
    "Decision",
    "Example",
    "ProofStatus",
    "Rule",
    "Setting",
    "Threshold",
    "flip_point",
    "scope_of",
]

SCOPES = ("paper", "reduced", "variant", "proxy", "machinery")
#: the scopes whose verdicts are the paper's verdicts
PAPER_SCOPES = ("paper", "reduced")
#: setting fields that measure scale: a difference there makes a check ``reduced``, not ``variant``
SCALE_FIELDS = frozenset({
    "L", "H", "width", "heads", "layers", "samples", "probes", "seeds", "iterations", "batch",
    "models", "datasets", "configs", "cases", "grid", "tokens", "depths",
})

#: setting fields in the order reports print them
FIELD_ORDER = ("architecture", "models", "residual", "mask", "pe", "kernel", "alpha", "L", "H",
               "width", "heads", "data", "datasets", "configs", "training", "iterations", "batch",
               "lr", "seeds", "samples", "probes", "measure", "grid", "cases")


def _values(v: Any) -> tuple:
    """A field value as a tuple of its alternatives (a list or tuple lists several)."""
    if isinstance(v, (list, tuple, set, frozenset)):
        return tuple(v)
    return (v,)


def _show(v: Any) -> str:
    vals = _values(v)
    return ", ".join(str(x) for x in vals) if len(vals) > 1 else str(vals[0])


@dataclass(frozen=True, init=False)
class Setting:
    """A setting: its source (where the paper states it; for a test setting, what the check
    computes or reads) and named fields.  A field may hold several values (a tuple or list):
    the test setting then *covers* a paper value that is among them.  ``unconfirmed`` names the
    fields that could not be confirmed from the paper (the card says so)."""

    source: str
    fields: tuple  # sorted (name, value) pairs
    unconfirmed: tuple
    note: str

    def __init__(self, source: str = "", *, unconfirmed: Sequence[str] = (), note: str = "",
                 **fields: Any) -> None:
        object.__setattr__(self, "source", source)
        object.__setattr__(self, "fields", tuple(sorted(
            ((k, tuple(v) if isinstance(v, list) else v) for k, v in fields.items()),
            key=lambda kv: (FIELD_ORDER.index(kv[0]) if kv[0] in FIELD_ORDER else len(FIELD_ORDER),
                            kv[0]))))
        object.__setattr__(self, "unconfirmed", tuple(unconfirmed))
        object.__setattr__(self, "note", note)
        for name in self.unconfirmed:
            if name not in dict(self.fields):
                raise InvalidArgument("unconfirmed", name, "a field of the setting")

    @property
    def values(self) -> dict:
        return dict(self.fields)

    def replace(self, source: str | None = None, **fields: Any) -> Setting:
        """This setting with some fields (and the source) replaced; a value of None removes
        a field."""
        merged = {**self.values, **fields}
        merged = {k: v for k, v in merged.items() if v is not None}
        return Setting(self.source if source is None else source,
                       unconfirmed=[u for u in self.unconfirmed if u in merged], note=self.note,
                       **merged)

    def as_dict(self) -> dict:
        out: dict = {"source": self.source}
        for k, v in self.fields:
            out[k] = [_json(x) for x in v] if isinstance(v, tuple) else _json(v)
        if self.unconfirmed:
            out["unconfirmed"] = list(self.unconfirmed)
        if self.note:
            out["note"] = self.note
        return out

    def line(self) -> str:
        """One line: ``source; field value, ...``."""
        parts = [f"{k} {_show(v)}" for k, v in self.fields]
        text = "; ".join(p for p in [self.source, ", ".join(parts)] if p)
        if self.unconfirmed:
            text += f" (not confirmed from the paper: {', '.join(self.unconfirmed)})"
        return text


def _json(x: Any) -> Any:
    if x is None or isinstance(x, (bool, int, str)):
        return x
    if isinstance(x, float):
        return x if math.isfinite(x) else str(x)
    return str(x)


def scope_of(paper: Setting, test: Setting) -> tuple[str, list[str]]:
    """The computed scope of a test setting against the paper's, and the differences in words.

    A field present in both and different is a difference: in a :data:`SCALE_FIELDS` field it
    makes the check ``reduced`` (same setting, another scale), in any other field ``variant``.
    A test field with several values covers the paper's value when it is among them.  A field
    the paper states and the test leaves out is a difference in the setting.
    """
    pv, tv = paper.values, test.values
    diffs: list[str] = []
    setting_diff = scale_diff = False
    for name, p in paper.fields:
        if name not in tv:
            diffs.append(f"{name}: paper {_show(p)}, not part of the test")
            setting_diff = True
            continue
        t = tv[name]
        p_vals, t_vals = _values(p), _values(t)
        if all(x in t_vals for x in p_vals):
            continue
        diffs.append(f"{name}: paper {_show(p)}, test {_show(t)}")
        if name in SCALE_FIELDS:
            scale_diff = True
        else:
            setting_diff = True
    for name, t in test.fields:
        if name not in pv:
            diffs.append(f"{name}: test {_show(t)} (the paper states no {name})")
    if setting_diff:
        return "variant", diffs
    if scale_diff:
        return "reduced", diffs
    return "paper", diffs


@dataclass(frozen=True)
class ProofStatus:
    """How firmly a result stands: ``all`` (proven for all parameters), ``range`` (proven for
    a stated range, e.g. ``H = 1..12``), ``numeric`` (checked numerically, not proven),
    ``none`` (neither: an empirical statement)."""

    level: str
    range: str = ""
    note: str = ""

    def __post_init__(self) -> None:
        if self.level not in ("all", "range", "numeric", "none"):
            raise InvalidArgument("proof level", self.level, "one of all, range, numeric, none")
        if self.level == "range" and not self.range:
            raise InvalidArgument("proof range", self.range, "the range the proof covers")

    def text(self) -> str:
        base = {"all": "proven for all parameters",
                "range": f"proven for {self.range} only",
                "numeric": "checked numerically, not proven",
                "none": "empirical: no proof applies"}[self.level]
        return base + (f" ({self.note})" if self.note else "")

    def as_dict(self) -> dict:
        d = {"level": self.level, "text": self.text()}
        if self.range:
            d["range"] = self.range
        return d


PROVEN_ALL = ProofStatus("all")
NUMERIC = ProofStatus("numeric")


@dataclass(frozen=True)
class Card:
    """The claim card: the paper's setting and the test's, the declared kind (``claim``,
    ``proxy`` or ``machinery``) and the proof status.  ``differences`` adds differences in words
    that the fields do not show (a different estimator, say); they are reported with the
    computed ones and, unless ``scale_only``, make a ``claim`` card a ``variant``.
    ``implementation`` lists differences of implementation that keep the setting (posbias'
    re-implementation of a paper's public code, say): reported among the differences as
    ``implementation: ...``, the scope unchanged."""

    paper: Setting
    test: Setting
    kind: str = "claim"
    proof: ProofStatus = NUMERIC
    differences: tuple = ()
    scale_only: bool = True  # the extra differences are of scale (reduced), not of setting
    implementation: tuple = ()

    def __post_init__(self) -> None:
        if self.kind not in ("claim", "proxy", "machinery"):
            raise InvalidArgument("card kind", self.kind, "one of claim, proxy, machinery")
        if not self.paper.source:
            raise InvalidArgument("setting.paper.source", "", "the paper's section, figure or table")

    def resolve(self, test_override: Mapping | None = None) -> dict:
        """The card with the test setting refined by ``test_override`` (fields from the
        evidence), its computed scope and differences."""
        test = self.test
        if test_override:
            over = dict(test_override)
            src = over.pop("source", None)
            test = test.replace(source=src, **over)
        scope, diffs = scope_of(self.paper, test)
        diffs = (diffs + list(self.differences)
                 + [f"implementation: {x}" for x in self.implementation])
        if self.kind != "claim":
            scope = self.kind
        elif self.differences and scope == "paper":
            scope = "reduced" if self.scale_only else "variant"
        elif self.differences and not self.scale_only:
            scope = "variant"
        return {"scope": scope, "paper": self.paper, "test": test, "differences": diffs,
                "proof": self.proof}


# ----------------------------------------------------------------------------- rules
@dataclass(frozen=True)
class Threshold:
    """A threshold of a rule, as data.

    ``scale`` says how to move it when looking for the flip point: ``log`` (a positive number,
    moved by factors), ``linear`` (moved by steps of ``step``), ``int`` (moved by 1).
    ``sensitive``: a verdict whose flip point is within this distance (a factor for ``log``, an
    absolute difference for ``linear``/``int``) is ``threshold-sensitive``; ``domain`` bounds
    the values the search may try.
    """

    value: Any
    meaning: str
    scale: str = "log"
    step: float = 0.0
    sensitive: float = 2.0
    domain: tuple = (None, None)

    def __post_init__(self) -> None:
        if self.scale not in ("log", "linear", "int", "fixed"):
            raise InvalidArgument("threshold scale", self.scale, "log, linear, int or fixed")
        if self.scale == "log" and not (self.value > 0):
            raise InvalidArgument("threshold value", self.value, "a positive number on a log scale")
        if self.scale == "linear" and not self.step > 0:
            raise InvalidArgument("threshold step", self.step, "a positive step on a linear scale")

    def _inside(self, v: float) -> bool:
        lo, hi = self.domain
        return (lo is None or v >= lo) and (hi is None or v <= hi)

    def candidates(self, direction: int) -> Iterator[float]:
        """Values moving away from :attr:`value` in ``direction`` (+1 up, -1 down)."""
        if self.scale == "fixed":
            return
        v = self.value
        for k in range(1, 161):
            if self.scale == "log":
                c = float(v) * 10 ** (direction * k / 20)  # up to 8 decades
            elif self.scale == "linear":
                c = float(v) + direction * k * self.step * (1 if k <= 40 else (k - 39))
            else:
                c = int(v) + direction * k
            if not self._inside(c):
                return
            yield c

    def distance(self, other: float) -> float:
        """Distance from the threshold's value to ``other`` in the units of ``sensitive``."""
        if self.scale == "log":
            return max(float(other) / float(self.value), float(self.value) / float(other))
        return abs(float(other) - float(self.value))

    def as_dict(self) -> dict:
        d = {"value": _json(self.value) if not isinstance(self.value, Fraction) else str(self.value),
             "meaning": self.meaning, "scale": self.scale}
        if self.scale != "fixed":
            d["sensitive_within"] = (f"a factor {self.sensitive:g}" if self.scale == "log"
                                     else f"±{self.sensitive:g}")
        return d


@dataclass(frozen=True)
class Example:
    """An input of a rule with the verdict it must give: ``kind`` is ``paper`` (the paper's own
    reported figures), ``false`` (a plausible false version of the claim) or ``realistic``
    (another realistic input, e.g. a measured profile)."""

    label: str
    figures: Mapping
    verdict: str
    kind: str = "realistic"

    def __post_init__(self) -> None:
        if self.kind not in ("paper", "false", "realistic"):
            raise InvalidArgument("example kind", self.kind, "paper, false or realistic")


@dataclass(frozen=True)
class Decision:
    """What a rule decided on a set of figures, with the nearest flip point."""

    verdict: str
    figures: Mapping
    thresholds: Mapping
    flip: dict | None
    sensitive: bool

    def as_dict(self) -> dict:
        return {"verdict": self.verdict, "thresholds": {k: _json(v) if not isinstance(v, Fraction)
                                                        else str(v) for k, v in self.thresholds.items()},
                "flip": self.flip, "threshold_sensitive": self.sensitive}


@dataclass(frozen=True)
class Rule:
    """How numbers map to a verdict.

    ``decide(figures, t)`` receives the figures the check computed (a mapping) and the
    threshold values (a mapping name -> value) and returns a verdict.  ``outcomes`` lists the
    verdicts the rule can give; ``examples`` are inputs that reach them (see :class:`Example`).
    ``fixed`` is the date of the commit that fixed the rule, before the result it decides.
    """

    text: str
    decide: Callable[[Mapping, Mapping], str]
    thresholds: Mapping[str, Threshold] = field(default_factory=dict)
    outcomes: tuple = ("verified", "refuted")
    examples: tuple = ()
    fixed: str = ""
    #: names of the figures that decide, printed first on the claim's line of the text report
    #: and in full in every report; a name may be a path into a nested figure, steps joined by
    #: ``/``, ``*`` for every item of a list or value of a mapping (``runs/*/BN/peak_share``)
    deciding: tuple = ()
    #: why no example is of kind ``paper`` (the paper reports no figure this rule could take)
    no_paper_figures: str = ""

    def values(self, **overrides: Any) -> dict:
        vals = {k: t.value for k, t in self.thresholds.items()}
        for k, v in overrides.items():
            if k not in vals:
                raise InvalidArgument("threshold", k, "one of " + ", ".join(vals) if vals else "none")
            vals[k] = v
        return vals

    def apply(self, figures: Mapping, **overrides: Any) -> Decision:
        """Decide on ``figures`` (thresholds at their values, or ``overrides``) and find the
        nearest flip point."""
        vals = self.values(**overrides)
        verdict = self.decide(figures, vals)
        if verdict not in self.outcomes:
            raise InvalidArgument("rule verdict", verdict, "one of the rule's outcomes "
                                  + ", ".join(self.outcomes))
        flip = flip_point(self, figures, vals, verdict)
        sensitive = bool(flip and flip.get("sensitive"))
        return Decision(verdict, figures, vals, flip, sensitive)

    def as_dict(self) -> dict:
        return {"text": self.text, "thresholds": {k: t.as_dict() for k, t in self.thresholds.items()},
                "outcomes": list(self.outcomes), "fixed": self.fixed}


def flip_point(rule: Rule, figures: Mapping, values: Mapping, verdict: str) -> dict | None:
    """The nearest threshold value at which ``rule`` would give another verdict on ``figures``.

    Each threshold in turn is moved away from its value (the others held), up and down, on its
    own scale until the verdict changes; the change is then located by bisection (to 1e-6
    relative on a log scale, 1e-9 of a step on a linear one, exactly on an integer one).
    Returns the nearest such point over all thresholds, as a dict (``threshold``, ``value``,
    ``flips_at``, ``to``, ``distance``, ``sensitive``), or None when no threshold can change
    the verdict within its domain (a verdict that no threshold decides, e.g. an exact identity).
    """
    best: dict[str, Any] | None = None
    for name, th in rule.thresholds.items():
        for direction in (1, -1):
            prev = values[name]
            found = None
            for cand in th.candidates(direction):
                other = rule.decide(figures, {**values, name: cand})
                if other != verdict:
                    found = (prev, cand, other)
                    break
                prev = cand
            if found is None:
                continue
            lo, hi, other = found
            if th.scale == "int":
                point = hi
            else:
                for _ in range(60):
                    mid = math.sqrt(float(lo) * float(hi)) if th.scale == "log" else (float(lo) + float(hi)) / 2
                    o = rule.decide(figures, {**values, name: mid})
                    if o != verdict:
                        hi, other = mid, o
                    else:
                        lo = mid
                    if th.scale == "log" and abs(float(hi) / float(lo) - 1) < 1e-6:
                        break
                    if th.scale == "linear" and abs(float(hi) - float(lo)) < 1e-9 * th.step:
                        break
                point = hi
            dist = th.distance(point)
            norm = (math.log(dist) / math.log(th.sensitive) if th.scale == "log"
                    else dist / th.sensitive if th.sensitive else math.inf)
            rec = {"threshold": name, "value": _json(values[name]) if not isinstance(values[name], Fraction)
                   else str(values[name]),
                   "flips_at": rounded(point, 6) if isinstance(point, float) else point,
                   "to": other,
                   "distance": (f"a factor {significant(dist, 3)}" if th.scale == "log" else significant(dist, 4)),
                   "sensitive": norm <= 1, "_norm": norm}
            if best is None or norm < best["_norm"]:
                best = rec
    if best is not None:
        best.pop("_norm")
    return best
