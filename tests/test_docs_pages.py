"""The README and the documentation pages hold what they promise, without building them:

* the README is a five-minute read: at most 12 KiB, its sections in the order a newcomer needs
  them, every line of its tour with a run time, its two set-up commands the ones CI runs;
* every relative link of the README and of the Markdown pages points to a file that exists;
* every picture a page shows exists, and every picture under ``docs/`` is shown by some page;
* the example claim module of the how-to on one's own claims runs and gives its stated verdict.

The commands of the fenced blocks are run by ``tests/test_readme_commands.py``, the findings
compared with the check by ``tests/test_findings_docs.py``, and the Sphinx build by
``tests/test_docs_build.py`` (slow)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = ROOT / "docs"
PAGES = sorted(p for p in DOCS.rglob("*.md") if "_build" not in p.parts)
RST_PAGES = sorted(p for p in DOCS.rglob("*.rst") if "_build" not in p.parts)
MARKDOWN = [README, ROOT / "CHANGELOG.md", ROOT / "tests" / "benchmarks" / "README.md", *PAGES]

#: a run time: a number and a unit (seconds, minutes, hours), e.g. "2 s", "1.7 s", "2.5 min", "≈ 11 h"
RUN_TIME = re.compile(r"(?<![\w.])\d+(\.\d+)?\s*(s|min|h)\b")

SECTIONS = ["What posbias could read of each paper", "Set-up: two commands", "Tour",
            "Verdicts and exit codes", "Where each claim's rule and test live", "Tests and docs",
            "Documentation"]


def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def _section(text: str, title: str) -> str:
    m = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", text, flags=re.MULTILINE | re.DOTALL)
    assert m, f"no section '## {title}'"
    return m.group(1)


def _fenced(text: str) -> list[str]:
    return re.findall(r"^```[^\n]*\n(.*?)^```", text, flags=re.MULTILINE | re.DOTALL)


def test_the_readme_is_at_most_12_kib():
    assert len(README.read_text(encoding="utf-8").encode()) <= 12 * 1024


def test_the_readme_has_its_sections_in_order():
    titles = re.findall(r"^## (.*)$", _text(README), flags=re.MULTILINE)
    assert titles == SECTIONS


def tour_lines(text: str) -> list[str]:
    """The commands of the README's tour (one per ``$ posbias`` line, continuations joined)."""
    blocks = _fenced(_section(text, "Tour"))
    assert blocks, "the tour has no command block"
    lines: list[str] = []
    for block in blocks:
        for line in block.splitlines():
            if lines and lines[-1].endswith("\\"):
                lines[-1] = lines[-1][:-1] + " " + line.strip()
            elif line.strip():
                lines.append(line.strip())
    return lines


def test_every_tour_line_carries_a_run_time():
    lines = tour_lines(_text(README))
    assert len(lines) >= 10
    for line in lines:
        assert line.startswith("$ posbias "), f"not a command: {line}"
        comment = line.partition(" # ")[2]
        assert RUN_TIME.search(comment), f"no run time (N s, N min or N h) in: {line}"


def test_the_tour_time_rule_can_fail():
    """The rule that holds the tour finds a line without a time, and reads hours as a time."""
    bare = "## Tour\n\n```\n$ posbias list                # every claim\n```\n"
    line = tour_lines(bare)[0]
    assert not RUN_TIME.search(line.partition(" # ")[2])
    assert RUN_TIME.search("re-measures, re-trains: ≈ 11 h (its own estimate)")
    assert not RUN_TIME.search("verdicts for 51 claims")


def test_the_two_set_up_commands_are_the_ones_ci_runs():
    blocks = [b.strip() for b in _fenced(_section(_text(README), "Set-up: two commands"))]
    assert blocks == [
        'pip install torch==2.13.0 && pip install ".[yaml,plot,models]" && posbias check',
        'pip install torch==2.13.0 && pip install ".[test,models]" && python -m pytest',
    ]
    ci = _text(ROOT / ".ci" / "run")
    assert blocks[1] in ci.splitlines(), ".ci/run no longer runs the README's test command verbatim"


def test_the_readme_says_where_claims_and_their_tests_live():
    text = _section(_text(README), "Where each claim's rule and test live")
    for needle in ("proofs_checks/claims/<paper>/<slug with _>.py", "decide", "RULE", "CARD",
                   "tests/proofs_checks/claims/<paper>/test_<slug with _>.py",
                   "posbias check ID -v"):
        assert needle in text, needle


def _links(path: Path) -> list[str]:
    text = _text(path)
    # inline code never holds a link
    text = re.sub(r"`[^`\n]*`", "", text)
    return re.findall(r"!?\[[^\]]*\]\(([^)\s]+)\)", text)


def anchors(path: Path) -> set[str]:
    """The anchors GitHub gives the headings of a Markdown file (the Sphinx build gives the
    same ones to these pages' sections)."""
    titles = re.findall(r"^#{1,6} (.*?)\s*$", re.sub(r"^```.*?^```", "", _text(path),
                                                      flags=re.MULTILINE | re.DOTALL),
                        flags=re.MULTILINE)
    return {re.sub(r"[^\w\- ]", "", title.lower()).replace(" ", "-") for title in titles}


@pytest.mark.parametrize("path", MARKDOWN, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_relative_link_points_to_a_file(path):
    for href in _links(path):
        if re.match(r"^[a-z][a-z0-9+.-]*:", href):
            continue
        file, _, anchor = href.partition("#")
        target = (path.parent / file).resolve() if file else path
        assert target.exists(), f"{path.relative_to(ROOT)}: {href} does not exist"
        if anchor and target.suffix == ".md":
            assert anchor in anchors(target), f"{path.relative_to(ROOT)}: no heading #{anchor}"


def test_the_anchor_rule_reads_headings_as_github_does(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("# Title\n\n## Set-up: two commands\n\n```\n# not a heading\n```\n"
                    "### The `scale` extra\n", encoding="utf-8")
    assert anchors(page) == {"title", "set-up-two-commands", "the-scale-extra"}


def _pictures_shown() -> dict[Path, list[Path]]:
    shown: dict[Path, list[Path]] = {}
    for path in MARKDOWN:
        for href in re.findall(r"!\[[^\]]*\]\(([^)\s]+)\)", _text(path)):
            shown.setdefault((path.parent / href).resolve(), []).append(path)
    for path in RST_PAGES:
        for href in re.findall(r"^\s*\.\. (?:image|figure):: (\S+)", _text(path), flags=re.MULTILINE):
            shown.setdefault((path.parent / href).resolve(), []).append(path)
    return shown


def test_every_picture_shown_exists_and_every_picture_is_shown():
    shown = _pictures_shown()
    missing = [f"{p.relative_to(ROOT)} (shown by {', '.join(s.name for s in by)})"
               for p, by in shown.items() if not p.is_file()]
    assert not missing, f"pictures that do not exist: {missing}"
    pictures = {p.resolve() for ext in ("png", "jpg", "svg", "gif") for p in DOCS.rglob(f"*.{ext}")
                if "_build" not in p.parts}
    unshown = sorted(p.relative_to(ROOT).as_posix() for p in pictures - set(shown))
    assert not unshown, f"pictures no page shows: {unshown}"
    assert len(pictures) >= 15


def test_the_example_claim_of_the_howto_runs(tmp_path):
    """The rule-and-card example of docs/howto/own-claims.md, saved as the page says, gives the
    verdict and the flip point the page states."""
    page = _text(DOCS / "howto" / "own-claims.md")
    blocks = re.findall(r"^```python\n(.*?)^```", page, flags=re.MULTILINE | re.DOTALL)
    example = next(b for b in blocks if "RULE = Rule(" in b)
    (tmp_path / "mylab_claims.py").write_text(example, encoding="utf-8")
    run = subprocess.run([sys.executable, "-m", "posbias", "check", "--import", "mylab_claims",
                          "mylab:first-token-share", "-v", "-q"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=300, check=False)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "mylab:first-token-share: verified" in run.stdout
    for stated in ("first_share = 0.8137", "flips to refuted at share = 0.813652"):
        assert stated in page, f"the page no longer states {stated!r}"
        assert stated in run.stdout, f"the check no longer prints {stated!r}:\n{run.stdout}"
