"""Reports of claim checks: text, Markdown, JSON, LaTeX (compiles with pdflatex) and JUnit XML."""

from __future__ import annotations

import json
import platform
import re
import shutil
import textwrap
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Sequence

from posbias import __version__
from posbias.numbers import figure_text
from posbias.proofs_checks.cards import PAPER_SCOPES, SCOPES
from posbias.proofs_checks.registry import Evidence, Result
from posbias.render.tex import latex_escape, prose_to_latex

__all__ = ["FORMATS", "decided_by", "decided_line", "deciding_figures", "headline", "latex_escape",
           "render", "summary"]

FORMATS = ("text", "md", "json", "latex", "junit")


def summary(results: Sequence[Result], strict: bool = False) -> dict:
    """Counts by verdict and by scope, the paper's verdicts (scopes ``paper`` and ``reduced``
    only), and the ids whose verdict differs from the expected one.  With ``strict``
    (``posbias check --strict``) a needs-data verdict fails too, and ``needs_data_failed``
    names each such claim with what it needed."""
    counts = Counter(r.evidence.verdict for r in results)
    failed = [r.claim.id for r in results if not r.passes(strict)]
    order = {s: n for n, s in enumerate((*SCOPES, "unscoped"))}
    by_scope: dict = {}
    for r in results:
        by_scope.setdefault(r.scope, Counter())[r.evidence.verdict] += 1
    by_scope = {s: dict(sorted(c.items())) for s, c in sorted(by_scope.items(), key=lambda kv: order.get(kv[0], 99))}
    papers: dict = {}
    for r in results:  # posbias's own results are not a paper's verdicts
        if r.scope in PAPER_SCOPES and r.claim.paper != "posbias":
            papers.setdefault(r.claim.paper, Counter())[r.evidence.verdict] += 1
    out = {
        "total": len(results),
        "by_verdict": dict(sorted(counts.items())),
        "by_scope": by_scope,
        "papers_verdicts": {p: dict(sorted(c.items())) for p, c in papers.items()},
        "threshold_sensitive": [r.claim.id for r in results if r.threshold_sensitive],
        "matching_expected": sum(1 for r in results if r.evidence.verdict == r.expected),
        "needs_data": counts.get("needs-data", 0),
        # claims with no expected verdict (never computed where posbias was built) that gave one
        "new": [r.claim.id for r in results if r.never_computed and r.evidence.verdict != "needs-data"],
        "failed": failed,
        "ok": not failed,
        "seconds": round(sum(r.seconds for r in results), 3),
        "posbias": __version__,
        "python": platform.python_version(),
    }
    if strict:
        out["strict"] = True
        out["needs_data_failed"] = [{"id": r.claim.id, "needed": r.needed}
                                    for r in results if r.evidence.verdict == "needs-data"]
    return out


def _cut(text: str, width: int | None) -> str:
    text = " ".join(str(text).split())
    if width is None:
        return text
    return text if len(text) <= width else text[: width - 1] + "…"


def _part_summary(part: dict) -> str:
    keys = ("correction", "counterexample", "discrepancy", "tolerance")
    return "; ".join(f"{k} {part[k]}" for k in keys if part.get(k))


def decided_by(ev: Evidence) -> str:
    """The number (or case) that decided the verdict of Evidence ``ev``, as one line.

    The rule, in order: a correction decides a qualified verdict, a counterexample a refuted
    one; a verdict taken over from a part of the check (a dict in ``details`` with its own
    ``verdict``, e.g. the measured part of a claim) is shown with that part's numbers; an error
    decides an inconclusive verdict; otherwise the discrepancy against the tolerance.
    """
    if ev.correction:
        return "correction: " + str(ev.correction)
    if ev.counterexample:
        return "counterexample: " + str(ev.counterexample)
    if ev.verdict != "verified":
        for key, part in ev.details.items():
            # "decision" is the rule's record of the verdict (thresholds, flip), not a part
            if key == "decision" or not isinstance(part, dict) or part.get("verdict") != ev.verdict:
                continue
            said = _part_summary(part) or part.get("method", "")
            if said:
                return f"{key} is {ev.verdict}: {said}"
    if ev.verdict == "inconclusive" and ev.details.get("error"):
        return "error: " + str(ev.details["error"])
    if ev.verdict == "needs-data" and ev.details.get("needed"):
        return "needs " + str(ev.details["needed"])
    text = ev.summary()
    if ev.tolerance and ev.discrepancy is not None:
        text += f" (tolerance {ev.tolerance})"
    return text or ev.method


def decided_line(r: Result) -> str:
    """The deciding figure of a result in full: the rule's deciding figures when the claim
    names them, then :func:`decided_by`, then the flip point when the verdict is near it."""
    ev = r.evidence
    parts = []
    figs = deciding_figures(r)
    if figs and ev.verdict not in ("needs-data",) and not ev.details.get("error"):
        parts.append("; ".join(figs))
    parts.append(decided_by(ev))
    parts.append(_flip(r))
    parts.append(_caveat(ev))
    return " | ".join(p for p in parts if p)


def _flip(r: Result) -> str:
    """The nearest flip point of the rule's decision, or ''."""
    d = r.decision
    if not (d and d.get("flip")):
        return ""
    f = d["flip"]
    tag = "THRESHOLD-SENSITIVE: " if d.get("threshold_sensitive") else ""
    return (f"{tag}flips to {f['to']} at {f['threshold']} = {f['flips_at']} "
            f"(rule: {f['value']}; {f['distance']})")


def deciding_figures(r: Result) -> list[str]:
    """``name = value`` for each figure the claim's rule names as deciding
    (:attr:`~posbias.proofs_checks.cards.Rule.deciding`).  A name may be a path into a nested
    figure, its steps joined by ``/`` and ``*`` standing for every item of a list or value of a
    mapping (``runs/*/BN/peak_share``): the value is then shown per item, labelled by the
    mapping's key or the item's ``run`` or ``seed``."""
    names = getattr(r.claim.rule, "deciding", ()) or ()
    figures = r.evidence.figures
    out = []
    for name in names:
        if name in figures:
            out.append(f"{name} = {figure_text(figures[name], 4)}")
            continue
        steps = name.split("/")
        if steps[0] not in figures or "*" not in steps:
            continue
        items = _walk(figures[steps[0]], steps[1:], "")
        if items:
            shown = " ".join(s for s in steps[1:] if s != "*")
            out.append(f"{shown} = " + ", ".join(f"{label}: {figure_text(v, 4)}" if label else figure_text(v, 4)
                                                  for label, v in items))
    return out


def _label(key: object, item: object) -> str:
    if isinstance(item, dict):
        for name in ("run", "name"):
            if name in item:
                return str(item[name])
        if "seed" in item:
            return f"seed {item['seed']}"
    return str(key)


def _walk(value: object, steps: list[str], label: str) -> list[tuple[str, object]]:
    """(label, value) of every end of the path ``steps`` in ``value``; missing steps give
    nothing."""
    if not steps:
        return [(label, value)]
    step, rest = steps[0], steps[1:]
    if step == "*":
        pairs = (list(value.items()) if isinstance(value, dict)
                 else list(enumerate(value)) if isinstance(value, (list, tuple)) else [])
        out = []
        for key, item in pairs:
            here = _label(key, item)
            out += _walk(item, rest, f"{label} {here}".strip())
        return out
    if isinstance(value, dict) and step in value:
        return _walk(value[step], rest, label)
    return []


def headline(r: Result) -> str:
    """The one line of a claim in the text report: its deciding figures first (or, for a claim
    that names none, what decided it), then the flip point; a needs-data result says what it
    needed, a check that raised its error."""
    ev = r.evidence
    if ev.verdict == "needs-data":
        return "needs " + r.needed
    if ev.details.get("error"):
        return "error: " + str(ev.details["error"])
    figs = deciding_figures(r)
    return " | ".join(p for p in ("; ".join(figs) or decided_by(ev), _flip(r), _caveat(ev)) if p)


def _caveat(ev: Evidence) -> str:
    """What the verdict does not support, where the check states it (``details["caveat"]``:
    e.g. a claim about pretrained models decided on a model at initialization)."""
    said = ev.details.get("caveat") if isinstance(ev.details, dict) else None
    return f"NOTE: {said}" if said else ""


def _mark(r: Result, strict: bool = False) -> str:
    if r.evidence.verdict == "needs-data":
        if strict:
            return "FAIL"
        return "ok" if r.expected == "needs-data" else "skip"
    if r.never_computed:
        return "new"  # no expected verdict: never computed where posbias was built
    if r.evidence.verdict == r.expected:
        return "ok"
    return "FAIL"


def _width() -> int:
    return max(60, shutil.get_terminal_size((100, 24)).columns)


def _text(results: Sequence[Result], verbose: bool = False, width: int | None = None,
          strict: bool = False) -> str:
    """The table: one line per claim (id, scope, verdict, match) with its deciding figure
    first (:func:`headline`), never cut or wrapped, however long; ``-v`` gives every claim's
    evidence in full.  The lines around the table are wrapped to the terminal width (100
    columns when it is not known)."""
    if verbose:
        return _text_verbose(results, strict)
    width = width or _width()
    head = ("id", "scope", "verdict", "match")
    rows = [head] + [(r.claim.id, r.scope, r.evidence.verdict
                      + ("*" if r.threshold_sensitive else ""), _mark(r, strict))
                     for r in results]
    widths = [max(len(row[i]) for row in rows) for i in range(len(head))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(head, widths))
             + "  deciding figure (-v: the evidence in full)"]
    lines.append("-" * min(width, sum(widths) + 2 * len(widths) + 42))
    for row, r in zip(rows[1:], results):
        text = " ".join(headline(r).split())
        lines.append("  ".join(c.ljust(w) for c, w in zip(row, widths)) + "  " + text)
    lines.append("")
    footer = []
    for line in ["* threshold-sensitive: the verdict is within its rule's stated factor of a "
                 "flip point (the flip is on the claim's line)",
                 *_text_footer(results, strict).splitlines()]:
        footer.extend(textwrap.wrap(line, width=width, subsequent_indent="  ",
                                    break_long_words=True, break_on_hyphens=False)
                      if len(line) > width else [line])
    return "\n".join(lines + footer) + "\n"


def _text_verbose(results: Sequence[Result], strict: bool = False) -> str:
    """Every claim with its full method, evidence and correction (no truncation)."""
    lines = []
    fields = ("method", "discrepancy", "precision", "tolerance", "correction", "counterexample",
              "cases", "worst_margin")
    for r in results:
        ev = r.evidence
        lines.append(f"{r.claim.id}: {ev.verdict} (expected {r.expected}, {_mark(r, strict)}, "
                     f"{r.seconds:.2f} s)")
        lines.append(f"  scope: {r.scope}")
        card = r.card
        if card:
            lines.append(f"  paper setting: {card['paper'].line()}")
            lines.append(f"  test setting: {card['test'].line()}")
            if card["differences"]:
                lines.append("  differences: " + "; ".join(card["differences"]))
            lines.append(f"  proof: {card['proof'].text()}")
        lines.append(f"  decided by: {_cut(decided_line(r), None)}")
        if r.claim.rule_text:
            lines.append(f"  rule: {_cut(r.claim.rule_text, None)}")
        if ev.figures:
            lines.append("  figures: " + "; ".join(f"{k} = {figure_text(v, 4)}" for k, v in ev.figures.items()))
        if ev.alternatives:
            lines.append("  alternatives: " + "; ".join(f"{k}: {figure_text(v, 4)}" for k, v in ev.alternatives.items()))
        for name in fields:
            value = getattr(ev, name)
            if value not in (None, ""):
                lines.append(f"  {name}: {_cut(value, None)}")
        if ev.parameters:
            lines.append(f"  parameters: {json.dumps(ev.as_dict()['parameters'], ensure_ascii=False)}")
        lines.append("")
    return "\n".join(lines) + _text_footer(results, strict)


def _text_footer(results: Sequence[Result], strict: bool = False) -> str:
    lines = []
    s = summary(results, strict)
    lines.append("")
    lines.append(
        f"{s['total']} claims: "
        + ", ".join(f"{n} {v}" for v, n in s["by_verdict"].items())
        + f"; {s['matching_expected']} match their expected verdict"
        + (f", {s['needs_data']} need data" if s["needs_data"] else "")
        + f" ({s['seconds']:.1f} s)"
    )
    lines.append("by scope: " + "; ".join(
        f"{scope} " + ", ".join(f"{n} {v}" for v, n in c.items()) for scope, c in s["by_scope"].items()))
    if s["papers_verdicts"]:
        lines.append("the papers' verdicts (scopes paper and reduced only): " + "; ".join(
            f"{p} " + ", ".join(f"{n} {v}" for v, n in c.items())
            for p, c in s["papers_verdicts"].items()))
    if s["threshold_sensitive"]:
        lines.append("threshold-sensitive: " + ", ".join(s["threshold_sensitive"]))
    if s["new"]:
        lines.append("new (no expected verdict; computed from the data given): " + ", ".join(
            f"{r.claim.id} {r.evidence.verdict}" for r in results if r.claim.id in s["new"]))
    for r in results:
        if not r.ok:
            why = r.evidence.details.get("error") or r.evidence.summary() or r.evidence.method
            lines.append(
                f"FAILED {r.claim.id}: expected {r.expected}, got {r.evidence.verdict}: {why}"
            )
    if strict and s["needs_data_failed"]:
        lines.append(f"--strict: {len(s['needs_data_failed'])} claim(s) lacking data fail the run:")
        lines.extend(f"FAILED {r.claim.id} (needs-data): needs {r.needed_in_full}"
                     for r in results if r.evidence.verdict == "needs-data")
    return "\n".join(lines) + "\n"


def _md_cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def _verdict_note(r: Result) -> str:
    """What the verdict column adds to a verdict: ``(new)`` for a claim with no expected verdict
    of its own that gave one, ``(threshold-sensitive)`` near a flip point."""
    notes = []
    if r.never_computed and r.evidence.verdict != "needs-data":
        notes.append("new")
    if r.threshold_sensitive:
        notes.append("threshold-sensitive")
    return "".join(f" ({n})" for n in notes)


def _closing(s: dict) -> str:
    """The sentence after a table: counts, the failed ids, the new verdicts and, with
    ``--strict``, the claims lacking data."""
    return (f"{s['total']} claims, {s['matching_expected']} match their expected verdict"
            + (f"; failed: {', '.join(s['failed'])}" if s["failed"] else "")
            + (f"; new (no expected verdict): {', '.join(s['new'])}" if s["new"] else "")
            + "".join(f"; {d['id']} needs {d['needed']} (fails under --strict)"
                      for d in s.get("needs_data_failed", ()))
            + ".")


def _md(results: Sequence[Result], strict: bool = False) -> str:
    out = [
        "| id | scope | verdict | expected | method | decided by | seconds |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in results:
        verdict = r.evidence.verdict if r.passes(strict) else f"**{r.evidence.verdict}**"
        verdict += _verdict_note(r)
        out.append(
            f"| `{r.claim.id}` | {r.scope} | {verdict} | {r.expected} | {_md_cell(r.evidence.method)} "
            f"| {_md_cell(decided_line(r))} | {r.seconds:.2f} |"
        )
    out.append("")
    out.append(_md_cell(_closing(summary(results, strict))))
    return "\n".join(out) + "\n"


def _json(results: Sequence[Result], strict: bool = False) -> str:
    return json.dumps(
        {"claims": [r.as_dict() for r in results], "summary": summary(results, strict)},
        indent=2,
        ensure_ascii=False,
        allow_nan=False,  # RFC 8259: the registry turns non-finite floats into strings
    ) + "\n"


def _prose(text: str) -> str:
    """Text with its ASCII mathematics set as math (the LaTeX renderer's prose rule)."""
    return prose_to_latex(text)


def _latex(results: Sequence[Result], strict: bool = False) -> str:
    s = summary(results, strict)
    rows = []
    for r in results:
        verdict = latex_escape(r.evidence.verdict)
        if not r.passes(strict):
            verdict = r"\textbf{" + verdict + "}"
        verdict += latex_escape(_verdict_note(r))
        rows.append(
            r"\texttt{" + latex_escape(r.claim.id).replace(":", r":\allowbreak{}") + "} & "
            + latex_escape(r.scope) + " & "
            + _prose(r.claim.statement) + " & "
            + verdict + " & " + latex_escape(r.expected) + " & "
            # the deciding figures are data (names with underscores, dicts): escaped as text,
            # never parsed as mathematics
            + latex_escape(decided_line(r)).replace("|", r"\textbar{}") + r" \\ \hline"
        )
    body = "\n".join(rows)
    return (
        "\\documentclass[10pt]{article}\n"
        "\\usepackage[T1]{fontenc}\n"
        "\\usepackage[margin=1.5cm,landscape]{geometry}\n"
        "\\usepackage{longtable,array}\n"
        "\\begin{document}\n"
        "\\section*{posbias check: claims and verdicts}\n"
        + latex_escape(_closing(s)) + "\n\n"
        + latex_escape("By scope: " + "; ".join(
            f"{scope} " + ", ".join(f"{n} {v}" for v, n in c.items())
            for scope, c in s["by_scope"].items()) + ". Only the scopes paper and reduced are "
            "the papers' verdicts.") + "\n\n"
        "\\begin{longtable}{|>{\\raggedright}p{3.6cm}|p{1.4cm}|>{\\raggedright}p{6.4cm}|p{1.7cm}|p{1.6cm}|"
        ">{\\raggedright\\arraybackslash}p{9cm}|}\n\\hline\n"
        "claim & scope & statement & verdict & expected & decided by \\\\ \\hline\\endhead\n"
        f"{body}\n"
        "\\end{longtable}\n"
        "\\end{document}\n"
    )


#: characters XML 1.0 does not allow in a document (control characters but tab, newline and
#: carriage return; lone surrogates; U+FFFE and U+FFFF)
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _xml(text: str) -> str:
    """``text`` with every character XML 1.0 does not allow written as its escape ``\\xNN``
    or ``\\uNNNN``: a claim's text with a control character still gives a well-formed
    report."""
    def esc(m: re.Match[str]) -> str:
        c = ord(m.group())
        return f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}"

    return _NOT_XML.sub(esc, text)


def _junit(results: Sequence[Result], strict: bool = False) -> str:
    s = summary(results, strict)
    failures = sum(1 for r in results if not r.passes(strict))
    skipped = sum(1 for r in results if r.evidence.verdict == "needs-data" and not strict)
    suite = ET.Element(
        "testsuite",
        name="posbias",
        tests=str(len(results)),
        failures=str(failures),
        errors="0",
        skipped=str(skipped),
        time=f"{s['seconds']:.3f}",
    )
    for r in results:
        case = ET.SubElement(
            suite, "testcase", classname=_xml(f"posbias.{r.claim.paper}"),
            name=_xml(r.claim.id), time=f"{r.seconds:.3f}",
        )
        if r.evidence.verdict == "needs-data" and strict:
            ET.SubElement(case, "failure", message=_xml("needs data (--strict): " + r.needed_in_full))
        elif r.evidence.verdict == "needs-data":
            ET.SubElement(case, "skipped", message=_xml("needs " + r.needed))
        elif not r.ok:
            f = ET.SubElement(
                case, "failure",
                message=_xml(f"expected {r.expected}, got {r.evidence.verdict}"),
            )
            f.text = _xml(json.dumps(r.evidence.as_dict(), indent=2, ensure_ascii=False))
        out = ET.SubElement(case, "system-out")
        out.text = _xml(f"{r.evidence.verdict}{_verdict_note(r)} (scope {r.scope}): "
                        f"{r.evidence.method}; {decided_line(r)}")
    suites = ET.Element("testsuites")
    suites.append(suite)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"


def render(results: Sequence[Result], fmt: str, verbose: bool = False,
           strict: bool = False) -> str:
    """The report of ``results`` in format ``fmt`` (one of :data:`FORMATS`); ``verbose`` gives
    the full evidence in the text report; ``strict`` (``posbias check --strict``) reports a
    needs-data verdict as a failure and names what each such claim needed."""
    if fmt == "text":
        return _text(results, verbose, strict=strict)
    return {"md": _md, "json": _json, "latex": _latex, "junit": _junit}[fmt](results, strict)
