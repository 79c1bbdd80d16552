"""Hardening of the command line: the one atomic writer, exit codes 0/1/2/3, the shared
grammar (-o/-f/-q/-v/--seed/--dps/--version), resource refusals, strict JSON, no warnings."""

import json
import os
import stat
import subprocess
import sys

import pytest

import posbias
from posbias.cli import main
from posbias.errors import InvalidArgument
from posbias.files import check_target, read_bounded, write_output
from posbias.proofs_checks import Evidence, registry

SUBCOMMANDS = ("list", "check", "profile", "latex", "rollout", "measure")
PROFILE = ["profile", "--length", "8", "--depth", "3", "--alpha", "1/2", "--summary"]


def run(argv, capsys):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def one_line(err):
    return len(err.strip().splitlines()) == 1 and "Traceback" not in err


# ----------------------------------------------------------------------------------- writer

def test_symlink_is_followed_not_replaced(tmp_path, capsys):
    target = tmp_path / "real.txt"
    target.write_text("old")
    link = tmp_path / "link.txt"
    link.symlink_to(target)
    code, _, _ = run([*PROFILE, "-o", str(link)], capsys)
    assert code == 0
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_text().startswith("# posbias profile")


@pytest.mark.parametrize("special", ["/dev/null", "/dev/zero"])
def test_special_files_refused_as_output(special, capsys):
    if not os.path.exists(special):
        pytest.skip(f"{special} missing")
    code, _, err = run([*PROFILE, "-o", special], capsys)
    assert code == 2 and one_line(err) and "regular file" in err
    assert stat.S_ISCHR(os.stat(special).st_mode)


def test_fifo_refused_for_reading_and_writing(tmp_path, capsys):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    code, _, err = run(["profile", "--length", "4", "--schedule", f"file:{fifo}"], capsys)
    assert code == 2 and one_line(err) and "regular file" in err
    with pytest.raises(InvalidArgument):
        read_bounded(str(fifo), 100)
    with pytest.raises(InvalidArgument, match="regular file"):
        check_target(str(fifo), None)


@pytest.mark.parametrize("mask, mode", [(0o022, 0o644), (0o077, 0o600)])
def test_permissions_follow_the_umask(tmp_path, mask, mode):
    old = os.umask(mask)
    try:
        write_output("x", str(tmp_path / "r.txt"))
        write_output(b"\x89PNG", str(tmp_path / "p.png"), fmt="png")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "r.txt").stat().st_mode) == mode
    assert stat.S_IMODE((tmp_path / "p.png").stat().st_mode) == mode


def test_existing_file_keeps_its_mode(tmp_path):
    f = tmp_path / "r.json"
    f.write_text("{}")
    os.chmod(f, 0o640)
    write_output("[]", str(f), fmt="json")
    assert stat.S_IMODE(f.stat().st_mode) == 0o640 and f.read_text() == "[]"


@pytest.mark.parametrize("argv", [
    [*PROFILE, "-o", "x.png"],
    [*PROFILE, "-f", "json", "-o", "x.csv"],
    [*PROFILE, "--plot", "x.txt"],
    ["latex", "-o", "x.json"],
    ["rollout", "no_content/bloom-7b1", "-f", "csv", "-o", "r.json"],
    ["measure", "--arch", "tiny-gpt2", "--plot", "m.txt"],
    ["check", "-f", "junit", "-o", "r.json"],
])
def test_extension_must_match_format_before_work(argv, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = run(argv, capsys)
    assert code == 2 and one_line(err) and out == ""
    assert list(tmp_path.iterdir()) == []


def test_empty_output_and_write_errors_are_one_line(tmp_path, capsys, monkeypatch):
    code, _, err = run([*PROFILE, "-o", ""], capsys)
    assert code == 2 and one_line(err) and "--output" in err

    def full(*a, **k):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", full)
    code, _, err = run([*PROFILE, "-o", str(tmp_path / "r.txt")], capsys)
    assert code == 2 and one_line(err) and "No space left" in err
    assert list(tmp_path.iterdir()) == []


def test_read_bounded_counts_bytes(tmp_path):
    f = tmp_path / "a.txt"
    f.write_bytes(b"x" * 101)
    with pytest.raises(InvalidArgument, match="at most"):
        read_bounded(str(f), 100)
    assert read_bounded(str(f), 101) == b"x" * 101


# ------------------------------------------------------------------------------- exit codes

@pytest.fixture
def claims_for_exit_codes():
    @registry.claim("hardening:ok", statement="holds", latex="x", expected="verified")
    def _ok(ctx):
        return Evidence("verified", method="exact", discrepancy="0 (exact)", tolerance="exact")

    @registry.claim("hardening:crash", statement="crashes", latex="x", expected="verified")
    def _crash(ctx):
        raise ZeroDivisionError("division by zero inside the check")

    @registry.claim("hardening:differs", statement="qualified by a part", latex="x",
                    expected="verified")
    def _differs(ctx):
        return Evidence("qualified", method="two parts", discrepancy="KS 0.0079 (critical 0.0138)",
                        details={"measured_part": {"verdict": "qualified",
                                                   "correction": "Spearman 0.61 < 0.9 at full width"}})

    yield
    for cid in ("hardening:ok", "hardening:crash", "hardening:differs"):
        registry.unregister(cid)


def test_crashing_check_exits_3_in_one_line(claims_for_exit_codes, capsys):
    code, out, err = run(["check", "hardening:ok", "hardening:crash", "-q"], capsys)
    assert code == 3 and one_line(err) and "hardening:crash" in err and "ZeroDivisionError" in err
    assert "hardening:ok" in out  # the report is still written
    code, _, err = run(["check", "hardening:crash", "-q", "--debug"], capsys)
    assert code == 3 and "Traceback" in err


def test_verdict_differs_exits_1_and_says_what_decided(claims_for_exit_codes, capsys):
    code, out, _ = run(["check", "hardening:ok", "hardening:differs", "-q"], capsys)
    assert code == 1
    assert "measured_part is qualified" in out and "Spearman 0.61" in out
    code, out, _ = run(["check", "hardening:ok", "-q"], capsys)
    assert code == 0 and "0 (exact) (tolerance exact)" in out


def test_verbose_report_has_no_truncation(claims_for_exit_codes, capsys):
    long = "a" * 300

    @registry.claim("hardening:long", statement="long", latex="x", expected="verified")
    def _long(ctx):
        return Evidence("verified", method=long, discrepancy=long)

    try:
        _, out, _ = run(["check", "hardening:long", "-q"], capsys)
        # the table gives each claim one line, its deciding figure never cut
        assert "…" not in out
        assert next(line for line in out.splitlines() if long in line).startswith("hardening:long")
        _, out, _ = run(["check", "hardening:long", "-q", "-v"], capsys)
        assert "…" not in out and long in out
    finally:
        registry.unregister("hardening:long")


def test_user_module_raising_on_import_exits_3(tmp_path, capsys, monkeypatch):
    (tmp_path / "broken_claims_mod.py").write_text("raise RuntimeError('broken on purpose')\n")
    (tmp_path / "needs_missing_mod.py").write_text("import no_such_dependency_xyz\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    code, _, err = run(["list", "--import", "broken_claims_mod"], capsys)
    assert code == 3 and one_line(err) and "broken on purpose" in err
    code, _, err = run(["list", "--import", "needs_missing_mod"], capsys)
    assert code == 3 and one_line(err) and "no_such_dependency_xyz" in err
    code, _, err = run(["list", "--import", "no_such_module_at_all"], capsys)
    assert code == 2 and one_line(err)


def test_user_module_that_exits_or_registers_twice_exits_3(tmp_path, capsys, monkeypatch):
    (tmp_path / "exiting_claims_mod.py").write_text("import sys\nsys.exit(0)\n")
    (tmp_path / "twice_claims_mod.py").write_text(
        "from posbias.proofs_checks import claim, Evidence\n"
        "for n in (1, 2):\n"
        "    @claim('twice:same', statement='s', latex='x', expected='verified')\n"
        "    def _c(ctx):\n"
        "        return Evidence('verified')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    code, _, err = run(["check", "--import", "exiting_claims_mod", "-q"], capsys)
    assert code == 3 and one_line(err) and "exiting_claims_mod" in err and "sys.exit(0)" in err
    code, _, err = run(["list", "--import", "twice_claims_mod"], capsys)
    assert code == 3 and one_line(err) and "twice_claims_mod" in err and "twice:same" in err
    registry.unregister("twice:same")


def test_import_finds_modules_in_the_working_directory(tmp_path, capsys, monkeypatch):
    pkg = tmp_path / "mylab_cwd"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "claims.py").write_text(
        "from posbias.proofs_checks import claim, Evidence\n"
        "@claim('mylabcwd:one', statement='s', latex='x', expected='verified')\n"
        "def _c(ctx):\n"
        "    return Evidence('verified', method='exact', discrepancy='0')\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", str(tmp_path))])
    try:
        code, out, _ = run(["check", "--import", "mylab_cwd.claims", "mylabcwd:one", "-q"], capsys)
        assert code == 0 and "mylabcwd:one" in out
    finally:
        registry.unregister("mylabcwd:one")


def test_bad_file_in_data_dir_is_named(tmp_path, capsys):
    folder = tmp_path / "measured-influence"
    folder.mkdir()
    (folder / "bloom-7b1.csv").write_bytes(b"position,influence\n1,\xff\xfe\n")
    code, _, err = run(["check", "empirical-match", "--data-dir", str(tmp_path), "-q"], capsys)
    assert code == 2 and one_line(err) and "bloom-7b1.csv" in err


# ---------------------------------------------------------------------------------- grammar

@pytest.mark.parametrize("name", SUBCOMMANDS)
def test_version_and_help_on_every_subcommand(name, capsys):
    with pytest.raises(SystemExit) as e:
        main([name, "--version"])
    assert e.value.code == 0 and f"posbias {posbias.__version__}" in capsys.readouterr().out
    with pytest.raises(SystemExit) as e:
        main([name, "--help"])
    text = capsys.readouterr().out
    assert e.value.code == 0 and "example:" in text and f"posbias {name}" in text
    for flag in ("-o", "--output", "-f", "--format", "-q", "-v", "--max-memory", "--debug"):
        assert flag in text, (name, flag)


@pytest.mark.parametrize("argv", [
    ["check", "--dps", "14"], ["check", "--dps", "100001"], ["profile", "--length", "4",
                                                              "--depth", "1", "--alpha", "1", "--dps", "14"],
    ["check", "--seed", "-1"], ["measure", "--arch", "tiny-gpt2", "--seed", str(2**32)],
    ["check", "--max-memory", "lots"],
])
def test_dps_and_seed_share_one_range(argv, capsys):
    code, _, err = run(argv, capsys)
    assert code == 2 and one_line(err)


def test_dps_range_is_the_validation_range(capsys):
    from posbias.validation import MAX_DPS, MIN_DPS

    code, out, _ = run(["profile", "--length", "3", "--depth", "1", "--alpha", "1/2", "--dps",
                        str(MIN_DPS), "-f", "json", "--summary"], capsys)
    assert code == 0 and json.loads(out)["dps"] == MIN_DPS
    code, _, err = run(["check", "--dps", str(MAX_DPS + 1)], capsys)
    assert code == 2 and str(MAX_DPS) in err


def test_old_format_names_still_accepted(capsys):
    assert run([*PROFILE, "-f", "table"], capsys)[0] == 0
    assert run(["latex", "--only", "hardy-kernel", "-f", "tex", "-q"], capsys)[0] == 0


# ------------------------------------------------------------------------------ numbers

def test_fast_path_refuses_lambda_below_float64(capsys):
    code, _, err = run(["profile", "--length", "8", "--depth", "3", "--alpha", "1e-400"], capsys)
    assert code == 2 and one_line(err) and "--alpha" in err and "--exact" in err
    code, _, _ = run(["profile", "--length", "8", "--depth", "3", "--alpha", "1e-400", "--dps", "20",
                      "--summary"], capsys)
    assert code == 0


def test_json_is_strict_with_exact_zeros(capsys):
    code, out, _ = run(["profile", "--length", "6", "--depth", "2", "--alpha", "0", "-f", "json"], capsys)
    assert code == 0
    doc = json.loads(out, parse_constant=lambda c: pytest.fail(f"non-JSON constant {c}"))
    assert doc["log_profile"][0] is None and doc["summary"]["log_min"] is None


def test_no_runtime_warning_reaches_the_user(tmp_path):
    f = tmp_path / "steep.yaml"
    f.write_text("sequence_length: 40\nnum_layers: 2\nattention_config: {num_heads: 1, alibi_slopes: "
                 "[[50.0]], softmax_temperature: 1e-300}\n"
                 "lambda_schedule_config: {schedule_type: constant, lambda_const: 1.0}\n")
    proc = subprocess.run([sys.executable, "-m", "posbias", "rollout", str(f), "-f", "json"],
                          capture_output=True, text=True, timeout=120, check=False)
    assert "Warning" not in proc.stderr and "site-packages" not in proc.stderr
    assert proc.returncode in (0, 2)
    if proc.returncode == 0:
        json.loads(proc.stdout, parse_constant=lambda c: pytest.fail(f"non-JSON constant {c}"))
    else:
        assert one_line(proc.stderr)


# ---------------------------------------------------------------------------- resources

@pytest.mark.parametrize("argv", [
    ["profile", "--length", "100000", "--depth", "24", "--alpha", "1/2", "--exact"],
    ["profile", "--length", "1000000", "--depth", "3", "--alpha", "1/2", "--dps", "100000"],
    ["rollout", "no_content/bloom-7b1", "--length", "100000000"],
    ["measure", "--arch", "tiny-gpt2", "--length", "100000000"],
    ["profile", "--length", "100000", "--depth", "3", "--alpha", "1/2", "--max-memory", "5M"],
])
def test_runs_that_cannot_fit_are_refused_up_front(argv, capsys):
    code, out, err = run(argv, capsys)
    assert code == 2 and one_line(err) and "needs about" in err and out == ""


def test_measure_validates_before_torch_or_printing():
    code = ("import sys; from posbias.cli import main; "
            "rc = [main(['measure', '--arch', 'tiny-gpt2', *a]) for a in "
            "(['--length', '-4'], ['--threads', '100000'], ['--probes', '0'])]; "
            "print(rc, 'torch' in sys.modules)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False)
    assert proc.stdout.strip() == "[2, 2, 2] False", proc.stdout + proc.stderr
    assert "measuring" not in proc.stderr
    assert all(line.startswith("posbias") for line in proc.stderr.strip().splitlines())


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="ulimit -v is POSIX/Linux")
@pytest.mark.parametrize("argv", [
    ["profile", "--length", "30000", "--depth", "24", "--alpha", "1/2", "--exact"],
    ["rollout", "no_content/bloom-7b1", "--length", "10000000"],
    ["measure", "--arch", "tiny-gpt2", "--length", "100000"],
])
def test_refusals_under_an_address_space_limit(argv):
    """Under `ulimit -v` (2 GiB of address space) the estimate sees the limit and refuses in
    one line, quickly and without a MemoryError, a signal or a traceback."""
    cmd = "ulimit -v 2097152 && exec " + " ".join(
        [sys.executable, "-m", "posbias", *argv])
    proc = subprocess.run(["bash", "-c", cmd], capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 2, proc.stderr
    assert one_line(proc.stderr) and "needs about" in proc.stderr and "ulimit -v" in proc.stderr


def test_yaml_numbers_below_float64_are_refused(tmp_path, capsys):
    f = tmp_path / "tiny.yaml"
    f.write_text("sequence_length: 8\nnum_layers: 2\nattention_config: {num_heads: 1, alibi_slopes: "
                 "[[1e-400]]}\nlambda_schedule_config: {schedule_type: constant, lambda_const: 0.5}\n")
    code, out, err = run(["rollout", str(f)], capsys)
    assert code == 2 and one_line(err) and "1e-400" in err and out == ""
    f.write_text(f.read_text().replace("1e-400", "0e-400"))  # an exact zero is a zero
    assert run(["rollout", str(f)], capsys)[0] == 0


def test_check_raising_invalid_argument_without_data_is_internal(capsys):
    """Only a data check's refusal of a --data-dir file is a usage error; a check that raises
    InvalidArgument on its own is a crashing check (exit 3)."""
    @registry.claim("hardening:bad-call", statement="calls badly", latex="x", expected="verified")
    def _bad(ctx):
        raise InvalidArgument("length", 0, "an integer >= 1")

    try:
        code, _, err = run(["check", "hardening:bad-call", "-q"], capsys)
        assert code == 3 and one_line(err) and "hardening:bad-call" in err
    finally:
        registry.unregister("hardening:bad-call")


@pytest.mark.parametrize("record", ['[1, 2]', '{"stage": "pretrained", "architecture": 5}',
                                    '{"stage": "pretrained"', '{"stage": "trained"}'])
def test_malformed_measurement_record_is_named_exit_2(record, tmp_path, capsys):
    folder = tmp_path / "measured-influence"
    folder.mkdir()
    (folder / "m.csv").write_text("position,influence\n1,0.5\n2,0.5\n")
    (folder / "m.measurement.json").write_text(record)
    code, _, err = run(["check", "u-persists-pretrained", "--data-dir", str(tmp_path), "-q"], capsys)
    assert code == 2 and one_line(err) and "m.measurement.json" in err


@pytest.mark.parametrize("csv", ["position,influence\n", "position,influence\n1,nan\n2,1\n",
                                 "position,influence\n1,0.5\n", "position,influence\n2,0.5\n3,0.5\n"])
def test_malformed_measured_influence_is_named_exit_2(csv, tmp_path, capsys):
    folder = tmp_path / "measured-influence"
    folder.mkdir()
    (folder / "bloom-7b1.csv").write_text(csv)
    code, _, err = run(["check", "empirical-match", "--data-dir", str(tmp_path), "-q"], capsys)
    assert code == 2 and one_line(err) and "bloom-7b1.csv" in err


@pytest.mark.parametrize("fault", ["truncated", "nan", "shape", "array", "nested"])
def test_malformed_stored_step0_record_is_named_exit_2(fault, tmp_path, capsys):
    """A Step-0 record in --data-dir/step0 that is truncated, holds NaN, has a profile of the
    wrong shape or is not an object: exit 2 naming the file, never an internal error."""
    import shutil

    from posbias.proofs_checks import measured
    from posbias.proofs_checks.stored import step0_dir

    folder = tmp_path / "step0"
    shutil.copytree(step0_dir(), folder)
    target = folder / "gpt2-L256-seed0.json"
    doc = json.loads(target.read_text())
    if fault == "truncated":
        target.write_text(target.read_text()[:200])
    elif fault == "array":
        target.write_text("[1, 2, 3]")
    elif fault == "nested":  # deeper than the JSON reader's stack
        target.write_text("[" * 100_000 + "]" * 100_000)
    else:
        m = doc["result"]["measurement"]
        m["profile"] = ["nan", *m["profile"][1:]] if fault == "nan" else [[0.5], [0.5]]
        m.pop("sample_profiles", None)
        target.write_text(json.dumps(doc))
    measured._STEP0_CACHE.clear()
    code, _, err = run(["check", "peak-valley", "--data-dir", str(tmp_path), "-q"], capsys)
    measured._STEP0_CACHE.clear()
    assert code == 2 and one_line(err) and "gpt2-L256-seed0.json" in err, err
