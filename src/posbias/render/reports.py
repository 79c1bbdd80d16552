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

__all__ = ["FORMATS", "decided_by", "decided_line", "latex_escape", "render", "summary"]

FORMATS = ("text", "md", "json", "latex", "junit")


def summary(results: Sequence[Result]) -> dict:
    """Counts by verdict and by scope, the paper's verdicts (scopes ``paper`` and ``reduced``
    only), and the ids whose verdict differs from the expected one."""
    counts = Counter(r.evidence.verdict for r in results)
    failed = [r.claim.id for r in results if not r.ok]
    order = {s: n for n, s in enumerate((*SCOPES, "unscoped"))}
    by_scope: dict = {}
    for r in results:
        by_scope.setdefault(r.scope, Counter())[r.evidence.verdict] += 1
    by_scope = {s: dict(sorted(c.items())) for s, c in sorted(by_scope.items(), key=lambda kv: order.get(kv[0], 99))}
    papers: dict = {}
    for r in results:  # posbias's own results are not a paper's verdicts
        if r.scope in PAPER_SCOPES and r.claim.paper != "posbias":
            papers.setdefault(r.claim.paper, Counter())[r.evidence.verdict] += 1
    return {
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
            if isinstance(part, dict) and part.get("verdict") == ev.verdict:
                return f"{key} is {ev.verdict}: {_part_summary(part) or part.get('method', '')}"
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
    rule = r.claim.rule
    names = getattr(rule, "deciding", ()) or ()
    figs = [f"{n} = {figure_text(ev.figures[n], 4)}" for n in names if n in ev.figures]
    if figs and ev.verdict not in ("needs-data",) and not ev.details.get("error"):
        parts.append("; ".join(figs))
    parts.append(decided_by(ev))
    d = r.decision
    if d and d.get("flip"):
        f = d["flip"]
        tag = "THRESHOLD-SENSITIVE: " if d.get("threshold_sensitive") else ""
        parts.append(f"{tag}flips to {f['to']} at {f['threshold']} = {f['flips_at']} "
                     f"(rule: {f['value']}; {f['distance']})")
    return " | ".join(p for p in parts if p)


def _mark(r: Result) -> str:
    if r.evidence.verdict == "needs-data":
        return "ok" if r.expected == "needs-data" else "skip"
    if r.never_computed:
        return "new"  # no expected verdict: never computed where posbias was built
    if r.evidence.verdict == r.expected:
        return "ok"
    return "FAIL"


def _width() -> int:
    return max(60, shutil.get_terminal_size((100, 24)).columns)


def _text(results: Sequence[Result], verbose: bool = False, width: int | None = None) -> str:
    """The table: one row per claim, the deciding figure in full, wrapped (never cut) to the
    terminal width (100 columns when it is not known)."""
    if verbose:
        return _text_verbose(results)
    width = width or _width()
    head = ("id", "scope", "verdict", "expected", "match", "s")
    rows = [head] + [(r.claim.id, r.scope, r.evidence.verdict
                      + ("*" if r.threshold_sensitive else ""), r.expected, _mark(r),
                      f"{r.seconds:.2f}") for r in results]
    widths = [max(len(row[i]) for row in rows) for i in range(len(head))]
    indent = 4
    lines = ["  ".join(c.ljust(w) for c, w in zip(head, widths)).rstrip(),
             " " * indent + "decided by (the deciding figure, in full)",
             "-" * min(width, sum(widths) + 2 * (len(widths) - 1))]
    for row, r in zip(rows[1:], results):
        lines.append("  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip())
        text = " ".join(decided_line(r).split())
        lines.extend(textwrap.wrap(text, width=width, initial_indent=" " * indent,
                                   subsequent_indent=" " * indent, break_long_words=True,
                                   break_on_hyphens=False))
    lines.append("")
    lines.append("* threshold-sensitive: the verdict is within its rule's stated factor of a flip "
                 "point (see the decided-by line)")
    lines.extend(_text_footer(results).splitlines())
    out = []
    for line in lines:
        out.extend(textwrap.wrap(line, width=width, subsequent_indent="  ", break_long_words=True,
                                 break_on_hyphens=False) if len(line) > width else [line])
    return "\n".join(out) + "\n"


def _text_verbose(results: Sequence[Result]) -> str:
    """Every claim with its full method, evidence and correction (no truncation)."""
    lines = []
    fields = ("method", "discrepancy", "precision", "tolerance", "correction", "counterexample",
              "cases", "worst_margin")
    for r in results:
        ev = r.evidence
        lines.append(f"{r.claim.id}: {ev.verdict} (expected {r.expected}, {_mark(r)}, {r.seconds:.2f} s)")
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
    return "\n".join(lines) + _text_footer(results)


def _text_footer(results: Sequence[Result]) -> str:
    lines = []
    s = summary(results)
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
    for r in results:
        if not r.ok:
            why = r.evidence.details.get("error") or r.evidence.summary() or r.evidence.method
            lines.append(
                f"FAILED {r.claim.id}: expected {r.expected}, got {r.evidence.verdict}: {why}"
            )
    return "\n".join(lines) + "\n"


def _md_cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def _md(results: Sequence[Result]) -> str:
    out = [
        "| id | scope | verdict | expected | method | decided by | seconds |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in results:
        verdict = r.evidence.verdict if r.ok else f"**{r.evidence.verdict}**"
        if r.threshold_sensitive:
            verdict += " (threshold-sensitive)"
        out.append(
            f"| `{r.claim.id}` | {r.scope} | {verdict} | {r.expected} | {_md_cell(r.evidence.method)} "
            f"| {_md_cell(decided_line(r))} | {r.seconds:.2f} |"
        )
    s = summary(results)
    out.append("")
    out.append(
        f"{s['total']} claims, {s['matching_expected']} match their expected verdict"
        + (f"; failed: {', '.join(s['failed'])}" if s["failed"] else "")
        + "."
    )
    return "\n".join(out) + "\n"


def _json(results: Sequence[Result]) -> str:
    return json.dumps(
        {"claims": [r.as_dict() for r in results], "summary": summary(results)},
        indent=2,
        ensure_ascii=False,
        allow_nan=False,  # RFC 8259: the registry turns non-finite floats into strings
    ) + "\n"


def _prose(text: str) -> str:
    """Text with its ASCII mathematics set as math (the LaTeX renderer's prose rule)."""
    return prose_to_latex(text)


def _latex(results: Sequence[Result]) -> str:
    s = summary(results)
    rows = []
    for r in results:
        verdict = latex_escape(r.evidence.verdict)
        if not r.ok:
            verdict = r"\textbf{" + verdict + "}"
        if r.threshold_sensitive:
            verdict += r" (threshold-sensitive)"
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
        f"{s['total']} claims; {s['matching_expected']} match their expected verdict"
        + (f"; failed: \\texttt{{{latex_escape(', '.join(s['failed']))}}}" if s["failed"] else "")
        + ".\n\n"
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


def _junit(results: Sequence[Result]) -> str:
    s = summary(results)
    failures = sum(1 for r in results if not r.ok)
    skipped = sum(1 for r in results if r.evidence.verdict == "needs-data")
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
        if r.evidence.verdict == "needs-data":
            ET.SubElement(case, "skipped",
                          message=_xml(r.evidence.summary() or r.evidence.method))
        elif not r.ok:
            f = ET.SubElement(
                case, "failure",
                message=_xml(f"expected {r.expected}, got {r.evidence.verdict}"),
            )
            f.text = _xml(json.dumps(r.evidence.as_dict(), indent=2, ensure_ascii=False))
        out = ET.SubElement(case, "system-out")
        out.text = _xml(f"{r.evidence.verdict} (scope {r.scope}): {r.evidence.method}; "
                        f"{decided_line(r)}")
    suites = ET.Element("testsuites")
    suites.append(suite)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"


def render(results: Sequence[Result], fmt: str, verbose: bool = False) -> str:
    """The report of ``results`` in format ``fmt`` (one of :data:`FORMATS`); ``verbose`` gives
    the full evidence in the text report."""
    if fmt == "text":
        return _text(results, verbose)
    return {"md": _md, "json": _json, "latex": _latex, "junit": _junit}[fmt](results)
