"""One table maps the library's parameter names to the flags of the command line
(:data:`posbias.cli.OPTION`): no other module keeps a table of its own, and every flag in it is
a flag some subcommand takes."""

from __future__ import annotations

import ast
import pathlib

import posbias.cli as cli
from posbias.cli._common import flag_error, flag_of
from posbias.errors import InvalidArgument

CLI = pathlib.Path(cli.__file__).parent


def _flag_tables(tree: ast.AST) -> list[int]:
    """Lines of dict literals with three or more string keys all mapped to ``--flags``."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict) and len(node.keys) >= 3 and all(
                isinstance(k, ast.Constant) and isinstance(k.value, str)
                and isinstance(v, ast.Constant) and isinstance(v.value, str)
                and v.value.startswith("--") for k, v in zip(node.keys, node.values)):
            found.append(node.lineno)
    return found


def test_the_command_line_has_one_flag_table():
    tables = {path.name: _flag_tables(ast.parse(path.read_text()))
              for path in sorted(CLI.glob("*.py"))}
    assert {name: lines for name, lines in tables.items() if lines} == {
        "_common.py": tables["_common.py"]}
    assert len(tables["_common.py"]) == 1


def test_the_scan_sees_a_second_table():
    assert _flag_tables(ast.parse('T = {"a": "--a", "b": "--b", "c": "--c"}')) == [1]


def test_every_flag_of_the_table_is_taken_by_a_subcommand():
    parser = cli.build_parser()
    flags = set()
    for action in parser._subparsers._group_actions:
        for sub in action.choices.values():
            for a in sub._actions:
                flags.update(a.option_strings)
    assert set(cli.OPTION.values()) <= flags, sorted(set(cli.OPTION.values()) - flags)


def test_errors_name_the_flag():
    assert str(flag_error(InvalidArgument("influence_samples", -1, "an integer >= 0"))) == \
        "--record-influence = -1 is invalid: expected an integer >= 0"
    assert flag_error(InvalidArgument("seed", -1, "x"), {"seed": "--seeds"}).parameter == "--seeds"
    assert flag_error(InvalidArgument("unknown_name", 1, "x")).parameter == "unknown_name"
    assert flag_of("no_checkpointing") == "--no-checkpointing"
    assert flag_of("boundary_samples") == "--boundary-windows"
