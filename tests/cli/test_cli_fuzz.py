"""Fuzzing the front door: every subcommand's parser and the YAML / CSV / schedule readers with
generated hostile input (huge and tiny numbers, deep nesting, special paths, unicode, binary).

The rule for every example: either exit status 2 with exactly one line on stderr and nothing on
stdout, or a valid result (exit 0 or 1, JSON output that parses strictly).  Never a traceback,
never exit 3 (an internal error), never a NaN or an infinity in JSON.  Every run carries a small
``--max-memory`` so that an accepted size that would take long is refused by its estimate.
"""

import contextlib
import io
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from posbias.cli import main
from posbias.errors import InvalidArgument
from posbias.proofs_checks import Evidence, registry

FUZZ = settings(max_examples=40, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])

HOSTILE_TEXT = st.one_of(
    st.sampled_from(["", " ", "-1", "0", "1", "1e-400", "1e400", "nan", "inf", "-inf", "9" * 5000,
                     "1_000", "+5", "0x10", "１２", "1/0", "3/2", "1/3", "-0", "1e-5", "\x00",
                     "../../etc/passwd", "/dev/zero", "/dev/null", "file:/dev/zero", "~",
                     "-", "--", "-o", "🙂", "a" * 300, "[" * 100, "{}", "null", "None"]),
    st.text(min_size=0, max_size=12),
    st.integers(-10**30, 10**30).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
)
SMALL = st.integers(0, 40).map(str)
PATHS = st.sampled_from(["-", "/dev/null", "/dev/zero", "", "out.json", "out.txt", "out.csv",
                         "out.png", "out.tex", "no/such/dir/x.json", ".", "/"])


def run(argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exc:  # --help / --version only
            code = 0 if exc.code in (0, None) else exc.code
    return code, out.getvalue(), err.getvalue()


def check_outcome(argv, code, out, err):
    assert "Traceback" not in err, (argv, err)
    assert code in (0, 1, 2), (argv, code, err)
    if code == 2:
        assert len(err.strip().splitlines()) == 1, (argv, err)
        assert out == "", (argv, out[:200])
    elif out.lstrip().startswith(("{", "[")):
        json.loads(out, parse_constant=lambda c: pytest.fail(f"{argv}: non-JSON constant {c}"))


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)


@pytest.fixture
def fuzz_claim():
    @registry.claim("fuzz:trivial", statement="1 = 1", latex="1 = 1", expected="verified")
    def _check(ctx):
        return Evidence("verified", method="exact", discrepancy="0 (exact)", parameters={"seed": ctx.seed})

    yield "fuzz:trivial"
    registry.unregister("fuzz:trivial")


@FUZZ
@given(length=st.one_of(SMALL, HOSTILE_TEXT), depth=st.one_of(SMALL, HOSTILE_TEXT),
       alpha=st.one_of(st.sampled_from(["1/2", "1", "0", "1e-400", "0.999"]), HOSTILE_TEXT),
       path=st.sampled_from([[], ["--exact"], ["--dps", "20"], ["--dps", "9" * 40]]),
       fmt=st.sampled_from(["text", "csv", "json", "table", "pdf", ""]),
       summary=st.booleans(), output=st.one_of(st.none(), PATHS),
       schedule=st.one_of(st.none(), HOSTILE_TEXT.map(lambda t: "list:" + t),
                          st.sampled_from(["file:/dev/zero", "file:", "power:1/2,1", "file:/"])))
def test_profile_parser(length, depth, alpha, path, fmt, summary, output, schedule):
    argv = ["profile", "--length", length, "--depth", depth, *path, "-f", fmt,
            "--max-memory", "60M"]
    argv += ["--schedule", schedule] if schedule is not None else ["--alpha", alpha]
    if summary:
        argv.append("--summary")
    if output is not None:
        argv += ["-o", output]
    check_outcome(argv, *run(argv))


@FUZZ
@given(config=st.one_of(st.sampled_from(["no_content/bloom-7b1", "all_content/mpt-7b", "/dev/zero",
                                         "/", "", "nosuch"]), HOSTILE_TEXT),
       length=st.one_of(st.none(), st.integers(1, 3000).map(str), HOSTILE_TEXT),
       convention=st.sampled_from(["reference", "corrected", "x"]),
       fmt=st.sampled_from(["text", "json", "csv", "md"]), output=st.one_of(st.none(), PATHS),
       compare=st.booleans(), d_head=st.one_of(st.none(), st.sampled_from(["0", "64", "-1", "x"])))
def test_rollout_parser(config, length, convention, fmt, output, compare, d_head):
    argv = ["rollout", config, "--convention", convention, "-f", fmt, "--max-memory", "60M"]
    if length is not None:
        argv += ["--length", length]
    if output is not None:
        argv += ["-o", output]
    if compare:
        argv.append("--compare")
    if d_head is not None:
        argv += ["--d-head", d_head]
    check_outcome(argv, *run(argv))


@FUZZ
@given(arch=st.one_of(st.sampled_from(["tiny-gpt2", "gpt2", ""]), HOSTILE_TEXT),
       option=st.sampled_from(["--length", "--layers", "--hidden", "--heads", "--kv-heads",
                               "--vocab", "--probes", "--samples", "--threads", "--seed"]),
       value=HOSTILE_TEXT, fmt=st.sampled_from(["text", "json", "junit"]),
       output=st.one_of(st.none(), PATHS))
def test_measure_parser_never_runs_a_model(arch, option, value, fmt, output):
    # --max-memory below the ~600 MB every measurement needs: a valid preset run is refused by
    # its estimate, so no model is ever built here
    argv = ["measure", "--arch", arch, option, value, "-f", fmt, "--max-memory", "60M"]
    if output is not None:
        argv += ["-o", output]
    code, out, err = run(argv)
    check_outcome(argv, code, out, err)
    if arch == "tiny-gpt2":
        assert code == 2


@FUZZ
@given(dps=st.one_of(st.sampled_from(["30", "15", "14", "100000", "100001"]), HOSTILE_TEXT),
       seed=st.one_of(st.sampled_from(["0", "20260", str(2**32 - 1), str(2**32)]), HOSTILE_TEXT),
       fmt=st.sampled_from(["text", "md", "json", "latex", "junit", "csv"]),
       output=st.one_of(st.none(), PATHS), verbose=st.booleans())
def test_check_parser(fuzz_claim, dps, seed, fmt, output, verbose):
    argv = ["check", fuzz_claim, "--dps", dps, "--seed", seed, "-f", fmt, "-q"]
    if output is not None:
        argv += ["-o", output]
    if verbose:
        argv.append("-v")
    check_outcome(argv, *run(argv))


@FUZZ
@given(only=st.one_of(st.just("hardy-kernel"), HOSTILE_TEXT), fmt=st.sampled_from(["latex", "json", "tex", "md"]),
       output=st.one_of(st.none(), PATHS), extra=st.sampled_from([[], ["--fragment"], ["--paper", "x"]]))
def test_latex_and_list_parsers(only, fmt, output, extra):
    argv = ["latex", "--only", only, "-f", fmt, "-q", *extra]
    if output is not None:
        argv += ["-o", output]
    check_outcome(argv, *run(argv))
    argv = ["list", "-f", "json" if fmt == "json" else "text", "--paper", only]
    check_outcome(argv, *run(argv))


# ----------------------------------------------------------------------------------- readers

def _nested(depth, flow):
    return ("a: " + "[" * depth + "1" + "]" * depth) if flow else \
        "".join(" " * i + "k:\n" for i in range(depth)) + " " * depth + "1\n"


YAML_TEXT = st.one_of(
    st.text(max_size=200),
    st.binary(max_size=200).map(lambda b: b.decode("utf-8", "replace")),
    st.integers(1, 3000).flatmap(lambda d: st.booleans().map(lambda f: _nested(d, f))),
    st.integers(1, 12000).map(lambda n: "sequence_length: " + "9" * n + "\nnum_layers: 2\n"),
    st.sampled_from(["sequence_length: 1e400\nnum_layers: 1\n", "a: &x [*x]\n", "!!python/object:os.system x",
                     "sequence_length: .nan\nnum_layers: 1\n", "- - - -\n", "{" * 5000]),
)


@FUZZ
@given(text=YAML_TEXT)
def test_yaml_reader(text):
    from posbias.numerics.configs import parse_config

    try:
        cfg = parse_config(text, source="fuzz.yaml")
    except InvalidArgument as exc:
        assert "\n" not in str(exc)
    else:  # a valid config: its sizes were validated
        assert cfg.length >= 1 and cfg.num_layers >= 0


@FUZZ
@given(body=st.one_of(HOSTILE_TEXT, st.lists(HOSTILE_TEXT, max_size=5).map(",".join)),
       raw=st.binary(max_size=100))
def test_schedule_reader(body, raw, tmp_path_factory):
    from posbias.numerics.schedules import parse_schedule

    path = tmp_path_factory.mktemp("s") / "lam.txt"
    path.write_bytes(raw)
    for spec in ("list:" + body, "const:" + body, "power:" + body, f"file:{path}", body):
        try:
            s = parse_schedule(spec, depth=3 if spec.split(":")[0] in ("const", "power") else None)
        except InvalidArgument as exc:
            assert "\n" not in str(exc)
        else:
            assert all(0 <= v <= 1 for v in s.floats())


@FUZZ
@given(raw=st.one_of(st.binary(max_size=120),
                     st.text(max_size=120).map(lambda t: ("position,influence\n" + t).encode()),
                     st.lists(st.tuples(st.integers(-2, 5), HOSTILE_TEXT), max_size=6).map(
                         lambda rows: ("position,influence\n" + "\n".join(f"{p},{v}" for p, v in rows)).encode())))
def test_measured_csv_reader_through_check(raw, tmp_path_factory):
    """The measured-influence CSV of ``check --data-dir``: a bad file is a usage error (exit 2,
    one line) or the check runs; never a traceback."""
    folder = tmp_path_factory.mktemp("data")
    (folder / "measured-influence").mkdir()
    (folder / "measured-influence" / "bloom-7b1.csv").write_bytes(raw)
    argv = ["check", "empirical-match", "--data-dir", str(folder), "-q", "-f", "json"]
    code, out, err = run(argv)
    assert "Traceback" not in err
    assert code != 3, err  # bad data is the user's input: exit 2 naming the file, never internal
    check_outcome(argv, code, out, err)
    if code == 2:
        assert "bloom-7b1.csv" in err or "--data-dir" in err, err


SWEEP_VALUES = st.one_of(HOSTILE_TEXT, st.integers(-5, 10**9), st.floats(allow_nan=True),
                         st.lists(st.one_of(HOSTILE_TEXT, st.integers(-5, 3000), st.floats()),
                                  max_size=4))


@FUZZ
@given(command=st.one_of(st.sampled_from(["profile", "rollout", "measure"]), HOSTILE_TEXT),
       grid=st.dictionaries(st.sampled_from(["length", "depth", "alpha", "config", "schedule",
                                             "arch", "seed", "x"]), SWEEP_VALUES, max_size=3),
       raw=st.one_of(st.none(), YAML_TEXT))
def test_sweep_spec_reader(command, grid, raw, tmp_path_factory):
    """A sweep spec: exit 2 with one line naming the spec or the grid entry, or a table."""
    folder = tmp_path_factory.mktemp("sweep")
    spec = folder / "grid.yaml"
    if raw is None:
        body = "\n".join(f"  {k}: {json.dumps(v)}" for k, v in grid.items())
        spec.write_text(f"command: {json.dumps(command)}\ngrid:\n{body or '  {}'}\n"
                        "fixed:\n  length: 8\n  depth: 2\n", encoding="utf-8")
    else:
        spec.write_text(raw, encoding="utf-8")
    argv = ["sweep", str(spec), "-o", str(folder / "t.csv"), "--quiet", "--max-memory", "1G"]
    code, out, err = run(argv)
    check_outcome(argv, code, out, err)


RECORDS = st.one_of(
    st.binary(max_size=80),
    st.recursive(st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.floats(), HOSTILE_TEXT),
                 lambda inner: st.one_of(st.lists(inner, max_size=3),
                                         st.dictionaries(st.sampled_from(
                                             ["stage", "architecture", "model_type", "num_layers",
                                              "profile", "x"]), inner, max_size=3)),
                 max_leaves=8).map(lambda v: json.dumps(v).encode()),
    # nesting deeper than the JSON reader's stack (it ended as an internal RecursionError)
    st.just(b"[" * 100_000 + b"]" * 100_000),
)


@FUZZ
@given(record=RECORDS)
def test_measurement_record_reader(record, tmp_path_factory):
    """A ``<name>.measurement.json`` beside measured influence: exit 2 naming it, or a verdict."""
    folder = tmp_path_factory.mktemp("rec")
    (folder / "measured-influence").mkdir()
    (folder / "measured-influence" / "m.csv").write_text("position,influence\n1,0.6\n2,0.4\n")
    (folder / "measured-influence" / "m.measurement.json").write_bytes(record)
    argv = ["check", "u-persists-pretrained", "peak-valley-pretrained", "--data-dir", str(folder),
            "-q", "-f", "json"]
    code, out, err = run(argv)
    assert code != 3, err
    check_outcome(argv, code, out, err)



@settings(max_examples=12, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(raw=st.one_of(st.binary(max_size=200), st.just(b"PK\x03\x04" + b"\x00" * 60)))
def test_checkpoint_reader(raw, tmp_path_factory):
    """Arbitrary bytes as a training checkpoint: refused in one line (exit 2), never unpickled."""
    pytest.importorskip("torch")
    from posbias.measurements import training as tr

    out = tmp_path_factory.mktemp("train")
    cfg = tr.TrainConfig(iterations=2, eval_every=2, test_size=20)
    (out / "checkpoints").mkdir()
    (out / "checkpoints" / f"{cfg.name}_seed0.pt").write_bytes(raw)
    argv = ["train", "--iterations", "2", "--eval-every", "2", "--test-size", "20", "--seeds", "0",
            "-o", str(out), "--resume", "-q"]
    code, _, err = run(argv)
    assert code == 2 and len(err.strip().splitlines()) == 1 and "resume" in err, err


# ----------------------------------------------------------------------------- silently wrong
# Values that float64 carries only as 0, as a subnormal number or as an infinity never reach a
# fast-path computation: the command refuses them (exit 2, one line) instead of writing inf or
# computing another model (decay:1e-400 is not the Cesàro kernel).

@pytest.mark.parametrize("argv, named", [
    (["profile", "--length", "8", "--depth", "2", "--alpha", "1/2", "--kernel", "decay:1e-400"],
     "--kernel"),
    (["profile", "--length", "8", "--depth", "2", "--alpha", "1/2", "--kernel", "alibi:5e-324"],
     "--kernel"),
    (["profile", "--length", "8", "--depth", "2", "--alpha", "1/2", "--kernel", "decay:1e400"],
     "--kernel"),
])
def test_tiny_and_huge_numbers_are_refused_not_rounded(argv, named):
    code, out, err = run(argv)
    check_outcome(argv, code, out, err)
    assert code == 2 and named in err, (argv, err)


@pytest.mark.parametrize("body, named", [
    ("command: profile\ngrid:\n  alpha: [1e-310, 0.5]\nfixed:\n  length: 16\n  depth: 2\n",
     "grid.alpha[0]"),
    ("command: kinetic\ngrid:\n  lambda: ['1e400', 0.5]\nfixed:\n  length: 16\n",
     "grid.lambda[0]"),
    ("command: kinetic\ngrid:\n  lambda: ['1e-310', 0.5]\nfixed:\n  length: 16\n",
     "grid.lambda[0]"),
    # an integer beyond Python's conversion limit, nesting beyond the parser's stack
    ("sequence_length: " + "9" * 4301 + "\nnum_layers: 2\n", "an integer of more than 4300 digits"),
    ("a: " + "[" * 5000 + "]" * 5000 + "\n", "nested less deeply"),
])
def test_sweep_refuses_values_it_cannot_read_or_carry(body, named, tmp_path):
    pytest.importorskip("ruamel.yaml")
    spec = tmp_path / "sweep.yaml"
    spec.write_text(body)
    argv = ["sweep", str(spec), "-q", "-o", str(tmp_path / "t.csv")]
    code, out, err = run(argv)
    check_outcome(argv, code, out, err)
    assert code == 2 and named in err and not (tmp_path / "t.csv").exists(), err


def test_api_refuses_instead_of_returning_inf_or_another_kernel():
    from posbias.numerics import DecayKernel, kernel_profile, kernel_profile_blocks, parse_kernel
    from posbias.numerics.kinetic import kinetic_log_profile, kinetic_profile, parse_kinetic

    for spec in ("decay:1e-400", "alibi:1e-320", "decay:1e309"):
        with pytest.raises(InvalidArgument, match="kernel"):
            parse_kernel(spec)
    for call in (lambda: kernel_profile(8, "cesaro", [1e-310]),
                 lambda: kernel_profile_blocks(8, "cesaro", [1e-310, 0.5]),
                 lambda: kernel_profile(8, "window:2", ["1e-400"])):
        with pytest.raises(InvalidArgument, match="float64"):
            call()
    for spec in ("kinetic:lambda=0,c=1e400", "kinetic:lambda=1e-400,c=1",
                 "kinetic:lambda=1,beta=1e-310,t=1.5"):
        for f in (kinetic_profile, kinetic_log_profile):
            with pytest.raises(InvalidArgument, match="fast path"):
                f(4, parse_kinetic(spec))
    # a subnormal slope given as a float is the Cesàro kernel to float64 precision, computed
    # (the flat-tail bound of the ALiBi recurrence no longer overflows)
    tiny = kernel_profile(8, DecayKernel(1e-310), [0.5])
    assert (tiny == kernel_profile(8, "cesaro", [0.5])).all()


# ----------------------------------------------------------------------------- reports
@pytest.fixture
def control_claim():
    """A failing claim whose evidence holds every character XML 1.0 does not allow."""
    hostile = "".join(map(chr, [*range(9), 11, 12, *range(14, 32), 0xFFFE, 0xFFFF]))

    @registry.claim("fuzz:control", statement="a\x01b", latex="1 = 1", expected="verified")
    def _check(ctx):
        return Evidence("refuted", method="exact " + hostile, discrepancy="1" + hostile,
                        parameters={"text": hostile})

    yield "fuzz:control"
    registry.unregister("fuzz:control")


def test_junit_report_is_well_formed_with_control_characters(control_claim, tmp_path):
    import xml.etree.ElementTree as ET

    argv = ["check", control_claim, "-f", "junit", "-q", "-o", str(tmp_path / "r.xml")]
    code, _, err = run(argv)
    assert code == 1, err  # the claim is refuted: a valid report, exit 1
    root = ET.parse(tmp_path / "r.xml").getroot()  # raises on a document that is not XML
    assert root.find("testsuite/testcase/failure") is not None
    said = root.find("testsuite/testcase/system-out").text
    assert "exact \\x00\\x01" in said and "\\ufffe\\uffff" in said


# ----------------------------------------------------------------------------- train --merge
_KEYS = st.sampled_from(["format", "name", "task", "config", "runs", "provenance", "gate",
                         "seed", "history", "iteration", "margins", "nats", "created",
                         "command", "below_bigram", "difference", "mask", "x"])
_JSON = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.floats(-2, 2),
              st.sampled_from(["", "n", "lm-text", "wu2025-icl", "lm-synthetic"])),
    lambda inner: st.one_of(st.lists(inner, max_size=3),
                            st.dictionaries(_KEYS, inner, max_size=5)),
    max_leaves=20)


def _merge_doc(draw_runs, extra):
    doc = {"format": "posbias-train/1", "name": "n", "task": "wu2025-icl", "config": {},
           "runs": draw_runs, "provenance": {}}
    doc.update(extra)
    return doc


@settings(max_examples=60, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(runs=st.tuples(_JSON, _JSON), extra=st.tuples(st.dictionaries(_KEYS, _JSON, max_size=3),
                                                     st.dictionaries(_KEYS, _JSON, max_size=3)))
def test_train_merge_documents(runs, extra, tmp_path_factory):
    """Arbitrary JSON in the documents to merge: a merged result or one line, exit 2; never an
    internal error."""
    d = tmp_path_factory.mktemp("merge")
    paths = []
    for i in range(2):
        r = runs[i] if isinstance(runs[i], list) else [runs[i]]
        (d / f"{i}.json").write_text(json.dumps(_merge_doc(r, extra[i])))
        paths.append(str(d / f"{i}.json"))
    argv = ["train", "--merge", *paths, "-o", str(d / "out"), "-q"]
    check_outcome(argv, *run(argv))


@settings(max_examples=100, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(entries=st.lists(st.dictionaries(_KEYS, _JSON, max_size=6), min_size=1, max_size=2),
       task=st.sampled_from(["wu2025-icl", "lm-synthetic", "lm-text", "x"]),
       fmt=st.sampled_from(["table", "json"]), extra=st.dictionaries(_KEYS, _JSON, max_size=3),
       parts=st.dictionaries(st.sampled_from(["gate", "provenance", "config", "format"]),
                             st.one_of(_JSON, st.fixed_dictionaries(
                                 {"margins": st.just([0.0]), "nats": _JSON})), max_size=2))
def test_train_merge_runs_past_the_checks(entries, task, fmt, extra, parts, tmp_path_factory):
    """Runs that pass the merge's checks (integer seeds, a history) but whose evaluations hold
    arbitrary fields: rendering them is a merged result or one line, exit 2."""
    d = tmp_path_factory.mktemp("merge")
    paths = []
    for seed in range(2):
        doc = _merge_doc([{"seed": seed, "history": entries, **extra}], {"task": task, **parts})
        (d / f"{seed}.json").write_text(json.dumps(doc))
        paths.append(str(d / f"{seed}.json"))
    argv = ["train", "--merge", *paths, "-o", str(d / "out"), "-q", "-f", fmt]
    code, out, err = run(argv)
    check_outcome(argv, code, out, err)
    if code == 2:
        assert not (d / "out").exists()

