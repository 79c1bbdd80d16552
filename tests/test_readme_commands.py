"""Every ``posbias`` command in the command blocks of the README and of the Markdown pages of
``docs/`` runs as written: each is extracted (a line starting with ``$ posbias`` or ``posbias``
inside a fenced block, with its ``\\`` continuation lines, comments dropped) and run in a fresh
temporary directory, as a new user would type it; a command that several pages show runs once.
Files of the repository a command names (``docs/peak-valley-map.yaml``) are copied there first,
as a fresh clone has them.  The fast commands run by default; the long
ones (every ``check`` run, measuring and a short training, minutes or the ``models`` extra)
are marked slow; a command that needs another command's output, a cluster or hours, or is a
placeholder (``...``), is listed with its reason and not run.

Run: ``python -m pytest tests/test_readme_commands.py`` (fast ones) and ``-m slow`` (the rest)."""

from __future__ import annotations

import itertools
import pathlib
import re
import shlex
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
#: the README first, then the Markdown pages of the documentation
SOURCES = [README, *sorted(p for p in (ROOT / "docs").rglob("*.md") if "_build" not in p.parts)]

#: commands that are not run, with the reason (matched by prefix)
NOT_RUN = {
    "posbias train ... ": "a placeholder: '...' stands for the options of the command above it",
    "posbias train --mask decay:0.2231 ...": "a placeholder: '...' stands for the other options",
    "posbias rollout bloom-560m.yaml": "reads the config the measure command before it exports",
    "posbias check --data-dir mydata": "reads the data the measure command before it saves",
    "posbias measure --model ./": "needs a checkpoint and a text of the user's on disk",
    "posbias sweep grid.yaml --scheduler": "needs a running Dask cluster",
    "posbias check --thorough --scheduler": "needs a running Dask cluster",
    "posbias measure --arch qwen2-0.5b --length 512 --device cuda": "needs a CUDA device",
    "posbias check --thorough": "re-measures and re-trains: hours (the slow tests cover its parts)",
    "posbias check --import mylab_claims": "needs the claim module the page has the user save; "
                                           "tests/test_docs_pages.py saves and runs it",
    "posbias train --merge": "merges the outputs of the two training commands above it (the "
                             "merge is tested in tests/cli/test_cli_train.py)",
    "posbias train --task": "100000, 1500 or 2000 iterations of training: an hour or more (the "
                            "slow tests re-train the first iterations and compare)",
}
#: long commands (minutes, or the models extra): run with -m slow
SLOW = ("posbias check", "posbias measure", "posbias train")


def readme_commands(path: pathlib.Path = README) -> list[str]:
    """The posbias commands of the fenced blocks of ``path`` (the README by default),
    continuation lines joined."""
    commands, block, pending = [], False, None
    for raw in path.read_text(encoding="utf-8").splitlines():
        if raw.lstrip().startswith("```"):
            block = not block
            continue
        if not block:
            continue
        line = raw.strip()
        if pending is not None:
            pending += " " + line
        elif re.match(r"^(\$ )?posbias\s", line):
            pending = line[2:] if line.startswith("$ ") else line
        else:
            continue
        if pending.endswith("\\"):
            pending = pending[:-1].rstrip()
            continue
        commands.append(re.sub(r"\s+#.*$", "", pending).strip())
        pending = None
    return commands


#: every command with the pages that show it, in the order of SOURCES
WHERE: dict[str, list[str]] = {}
for _source in SOURCES:
    for _command in readme_commands(_source):
        WHERE.setdefault(_command, []).append(_source.relative_to(ROOT).as_posix())
COMMANDS = list(WHERE)


def test_the_readme_and_the_pages_have_their_commands():
    assert len(readme_commands()) >= 10
    assert len(COMMANDS) >= 30
    assert "posbias profile --length 8 --depth 3 --alpha 1/2 --exact -f json" in readme_commands()
    # continuation lines are joined: the measure command of "Measure your own checkpoint" is whole
    assert any(c.startswith("posbias measure --model ./bloom-560m") and "--plot measured.png" in c
               for c in COMMANDS)
    # every page with a command block is read
    assert {"docs/tutorial/first-session.md", "docs/howto/gpu-and-clusters.md"} <= {
        s for sources in WHERE.values() for s in sources}


def _reason(command):
    return next((r for prefix, r in NOT_RUN.items() if command.startswith(prefix)), None)


def _params():
    out = []
    for c in COMMANDS:
        marks = []
        reason = _reason(c)
        if reason:
            marks.append(pytest.mark.skip(reason=reason))
        elif c.startswith(SLOW):
            marks.append(pytest.mark.slow)
        out.append(pytest.param(c, marks=marks, id=f"{WHERE[c][0]}: {c[:70]}"))
    return out


@pytest.mark.parametrize("command", _params())
def test_readme_command_runs_as_written(command, tmp_path):
    argv = shlex.split(command)
    if any(a in ("--plot",) for a in argv):
        pytest.importorskip("matplotlib")
    if argv[1] in ("sweep",):
        pytest.importorskip("ruamel.yaml")
    if argv[1] in ("measure", "train") or "--thorough" in argv:
        pytest.importorskip("torch")
    for a in argv[2:]:  # files of the repository the command names: a fresh clone has them
        source = ROOT / a
        if "/" in a and not a.startswith("-") and source.is_file():
            (tmp_path / a).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(source, tmp_path / a)
    out = subprocess.run([sys.executable, "-m", "posbias", *argv[1:]], cwd=tmp_path,
                         capture_output=True, text=True, timeout=1800, check=False)
    # the README says it: `check --strict` fails the run (exit 1) exactly when a claim reports
    # needs-data (the summary line "N claims: ..." counts the verdicts)
    strict_fails = False
    if argv[1] == "check" and "--strict" in argv:
        summary = re.findall(r"^\d+ claims: .*$", out.stdout + out.stderr, re.MULTILINE)
        assert summary, f"{command}: no summary line\n{out.stdout[-2000:]}"
        strict_fails = "needs-data" in summary[-1]
    assert out.returncode == (1 if strict_fails else 0), f"{command}\n{out.stderr[-2000:]}"
    # every file it names after -o or --plot was written
    for flag, value in itertools.pairwise(argv):
        if flag in ("-o", "--output", "--plot") and value != "-":
            assert (tmp_path / value).exists(), f"{command}: {value} was not written"
