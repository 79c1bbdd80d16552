"""Real-model rollout configs: reproduction of the reference code's own profiles, the conventions,
the broadcast of single scores, and the loader's bad-input table.

Reference profiles: tests/data/ml-uhh/reference (the float64 output of github ml-uhh/position-bias
on all its configs, commits a514e09 and 37cffcf, MIT; see the README there).  The configs are read from the package copy
(posbias/proofs_checks/data/ml-uhh), so there is one copy of each.
"""

import dataclasses
import os
import re
import sys

import numpy as np
import pytest

from posbias.errors import InvalidArgument, NeedsExtra
from posbias.numerics.alibi import alibi_kernel_dense, alibi_rollout_dense, alibi_slopes
from posbias.numerics.configs import (
    conventions_for,
    load_config,
    parse_config,
    rollout_summary,
)
from posbias.proofs_checks.data import (
    builtin_config_name,
    builtin_config_path,
    builtin_configs,
    config_record,
    is_builtin_config,
    noresidual_configs,
    residual_configs,
)

REF = os.path.join(os.path.dirname(__file__), "..", "data", "ml-uhh", "reference")
#: the names of posbias 0.2 (aliases of the fineweb-edu configs) and the configs first compared
OLD_NAMES = [
    "no_content/bloom-7b1", "no_content/bloom-7b1-noresidual", "no_content/mpt-7b",
    "no_content/mpt-7b-noresidual", "all_content/bloom-7b1", "all_content/mpt-7b",
]
#: every shipped config: the 32 of commit a514e09 and the 5 added later at L = 2048
ALL_NAMES = builtin_configs(include_later=True)
MEAN_CONTENT = [n for n in builtin_configs() if n.startswith("mean_content/")]

#: agreement with the public code's float64 profiles, position by position: 12 of float64's
#: ~16 significant digits (T <= 70 layers, each a sum of up to L terms, computed by two different
#: algorithms; measured worst over the 37 configs: 1.13e-13, an attention-only BLOOM tail of 4e-55)
REL_DIGITS = 12
REL_TOL = 10.0 ** -REL_DIGITS

_ROW = re.compile(r"(\d+),(?:np\.float64\()?([-+0-9.eE]+)\)?")


def read_reference_profile(path):
    """Parse ``position,p`` rows (0-indexed; values as ``repr`` of a float64, or as
    ``np.float64(...)``), never eval."""
    with open(path, encoding="utf-8") as fh:
        lines = [ln.strip() for ln in fh if ln.strip()]
    assert lines[0] == "position,p"
    out = []
    for k, ln in enumerate(lines[1:]):
        m = _ROW.fullmatch(ln)
        assert m and int(m.group(1)) == k, ln
        out.append(float(m.group(2)))
    return np.array(out)


def reference_profile(name):
    return read_reference_profile(os.path.join(REF, *name.split("/")) + ".profile.csv")


def worst_relative_difference(p, ref):
    """``max_j |p(j) - ref(j)| / ref(j)`` (every stored value is positive)."""
    assert (ref > 0).all()
    return float(np.max(np.abs(p - ref) / ref))


def test_reference_parser_rejects_code():
    assert _ROW.fullmatch("0,np.float64(__import__('os'))") is None


def test_every_shipped_config_has_its_reference_profile():
    stored = []
    for root, _dirs, files in os.walk(REF):
        rel = os.path.relpath(root, REF)
        stored += [f"{rel.replace(os.sep, '/')}/{f.removesuffix('.profile.csv')}" for f in files
                   if f.endswith(".profile.csv")]
    assert sorted(stored) == ALL_NAMES and len(ALL_NAMES) == 37


@pytest.mark.parametrize("name", ALL_NAMES)
def test_reproduces_reference_profiles(name):
    # the public code's own output (every position, float64) against the reference convention
    ref = reference_profile(name)
    cfg = load_config(builtin_config_path(name))
    assert cfg.conventions.name == "reference" and cfg.conventions.content_head0_only
    p = cfg.profile()
    assert p.size == ref.size == config_record(name).sequence_length
    assert worst_relative_difference(p, ref) <= REL_TOL


@pytest.mark.parametrize("name", MEAN_CONTENT)
def test_broadcasting_the_single_content_score_fails_the_comparison(name):
    # the reference convention of posbias 0.2 gave the single content score to every head: on the
    # mean_content configs that does not reproduce the public code (measured: 0.14 relative at
    # best, bloom-7b1; 239 for falcon-rw-7b), while head 0 only does (test above)
    ref = reference_profile(name)
    broadcast = load_config(builtin_config_path(name), content_head0_only=False)
    assert worst_relative_difference(broadcast.profile(), ref) > 1e9 * REL_TOL


def test_mean_content_mpt7b_figures_of_the_public_code():
    # valley (1-indexed) and end-to-valley ratios of MPT-7B with the mean content score: the
    # public code's profile, the reference convention, and the broadcast of posbias 0.2
    def figures(p):
        k = int(np.argmin(p))
        return k + 1, p[0] / p[k], p[-1] / p[k]

    name = "mean_content/fineweb-edu/mpt-7b"
    public = figures(reference_profile(name))
    ours = figures(load_config(builtin_config_path(name)).profile())
    old = figures(load_config(builtin_config_path(name), content_head0_only=False).profile())
    assert public[0] == ours[0] == 72 and old[0] == 59
    assert np.allclose(public[1:], [9.08852990292, 5.98115134424], rtol=1e-11)
    assert np.allclose(ours[1:], public[1:], rtol=REL_TOL)
    assert np.allclose(old[1:], [1.72909960280, 87.7621459419], rtol=1e-11)


def test_fast_path_equals_dense_rollout_on_a_real_config():
    cfg = load_config(builtin_config_path("all_content/mpt-7b"), length=64)
    dense = alibi_rollout_dense(cfg.length, cfg.layers, cfg.lambdas)
    assert np.allclose(cfg.profile(), dense, rtol=1e-13, atol=0)


def test_tabs_between_flow_items_load():
    text = (
        "sequence_length: 16\nnum_layers: 2\nattention_config:\n  num_heads: 2\n"
        "  alibi_slopes: [[0.5,\t0.25],\t[0.125,\t0.0625]]\n"
        "content_config:\n  diagonal_scores: [[1.0,\t-1.0]]\n  base_scores: [[0.0]]\n"
        "lambda_schedule_config:\n  schedule_type: custom\n  lambdas_custom: [0.5,\t0.25]\n"
    )
    cfg = parse_config(text)
    assert cfg.layers[1].slopes.tolist() == [0.125, 0.0625]
    assert cfg.layers[0].diagonal.tolist() == [1.0, -1.0]
    assert cfg.lambdas.tolist() == [0.5, 0.25]


def test_single_content_score_reaches_head0_in_reference_and_every_head_corrected():
    ref = load_config(builtin_config_path("mean_content/mpt-7b"))
    for lay in ref.layers:
        assert lay.diagonal.tolist() == [3.5367] + [0.0] * 31
    cor = load_config(builtin_config_path("mean_content/mpt-7b"), convention="corrected")
    for lay in cor.layers:
        assert np.allclose(lay.diagonal, 3.5367 / np.sqrt(128), rtol=1e-15) and lay.diagonal.size == 32
    # the head-0 fill is a switch of its own: the corrected convention with it, the reference without
    assert load_config(builtin_config_path("mean_content/mpt-7b"), convention="corrected",
                       content_head0_only=True).layers[0].diagonal[1:].tolist() == [0.0] * 31
    everyone = load_config(builtin_config_path("mean_content/mpt-7b"), content_head0_only=False)
    assert everyone.layers[0].diagonal.tolist() == [3.5367] * 32
    assert np.max(np.abs(ref.profile() - everyone.profile())) > 1e-3
    # per-head tables are read as they stand in both conventions
    per_head = load_config(builtin_config_path("all_content/mpt-7b"), length=16)
    assert np.count_nonzero(per_head.layers[0].diagonal) == 32
    with pytest.raises(InvalidArgument) as e:
        conventions_for("reference", content_head0_only="yes")
    assert e.value.parameter == "content_head0_only"


def test_head0_fill_follows_the_first_row():
    # the reference code sizes its head loop by the first row of the table: one number there
    # sends every layer's entry 0 to head 0, even where a later row lists every head
    text = _text(content="content_config:\n  diagonal_scores: [[1.0], [2.0, 3.0]]\n")
    assert [l.diagonal.tolist() for l in parse_config(text).layers] == [[1.0, 0.0], [2.0, 0.0]]
    assert [l.diagonal.tolist() for l in parse_config(text, content_head0_only=False).layers] == [
        [1.0, 1.0], [2.0, 3.0]]
    text = _text(content="content_config:\n  diagonal_scores: [[1.0, 3.0], [2.0]]\n")
    assert [l.diagonal.tolist() for l in parse_config(text).layers] == [[1.0, 3.0], [2.0, 2.0]]
    one_head = _text(attention="attention_config:\n  num_heads: 1\n  alibi_slopes: [[0.5]]\n")
    assert parse_config(one_head).layers[1].diagonal.tolist() == [1.0]


def test_head0_bug_emulation_matches_a_dense_emulation_of_the_reference():
    # the reference fills content only into head 0 when one score is given for all heads:
    # emulate that densely, entry by entry, and compare with the reference convention
    cfg = load_config(builtin_config_path("mean_content/mpt-7b"), length=40)
    slopes = cfg.layers[0].slopes
    L = 40
    i = np.arange(L)[:, None]
    j = np.arange(L)[None, :]
    v = np.zeros(L)
    v[-1] = 1.0
    for t in range(cfg.num_layers - 1, -1, -1):
        A = np.zeros((L, L))
        for h in range(32):
            content = np.full((L, L), 7.0117) + (3.5367 * np.eye(L) if h == 0 else 0.0)
            s = np.where(j <= i, content - slopes[h] * (i - j), -1e30)
            e = np.exp(s - s.max(axis=1, keepdims=True))
            A += e / e.sum(axis=1, keepdims=True) / 32
        v = (1 - cfg.lambdas[t]) * v + cfg.lambdas[t] * (v @ A)
    assert np.allclose(cfg.profile(), v, rtol=1e-12, atol=0)


def test_corrected_convention_per_model():
    c = conventions_for("corrected", "bloom-7b1")
    assert (c.slope_rule, c.alibi_scale, c.content_scale, c.d_head) == ("bloom", "none", "sqrt-d-head", 128)
    c = conventions_for("corrected", "mpt-30b")
    assert (c.slope_rule, c.d_head) == ("power-of-two", 112)
    ref = load_config(builtin_config_path("all_content/bloom-7b1"))
    cor = load_config(builtin_config_path("all_content/bloom-7b1"), convention="corrected")
    assert np.allclose(cor.layers[3].diagonal, ref.layers[3].diagonal / np.sqrt(128), rtol=1e-15)
    assert np.array_equal(cor.layers[0].slopes, alibi_slopes(32, "bloom"))
    # Falcon-style: the ALiBi bias is scaled by 1/sqrt(d_head) as well
    fal = load_config(builtin_config_path("no_content/bloom-7b1"), convention="corrected",
                      model="falcon-rw-7b")
    assert np.allclose(fal.layers[0].slopes, alibi_slopes(32, "bloom") / 8.0, rtol=1e-15)


def test_explicit_overrides():
    cfg = load_config(builtin_config_path("all_content/mpt-7b"), content_scale="sqrt-d-head", d_head=64)
    ref = load_config(builtin_config_path("all_content/mpt-7b"))
    assert np.allclose(cfg.layers[0].diagonal, ref.layers[0].diagonal / 8.0, rtol=1e-15)
    with pytest.raises(InvalidArgument) as e:
        load_config(builtin_config_path("all_content/mpt-7b"), content_scale="sqrt-d-head")
    assert e.value.parameter == "d_head"
    with pytest.raises(InvalidArgument) as e:
        load_config(builtin_config_path("all_content/mpt-7b"), convention="corrected", model="gpt-9")
    assert e.value.parameter == "model"


def test_length_override_and_deltas():
    cfg = load_config(builtin_config_path("no_content/bloom-7b1"), length=1000)
    assert cfg.length == 1000 and cfg.profile().size == 1000
    small = load_config(builtin_config_path("no_content/bloom-7b1"), length=12)
    A = alibi_kernel_dense(12, small.layers[0])
    assert abs(small.deltas()[0] - np.max(1 - np.diag(A))) < 1e-14


def test_power_decay_and_constant_schedules():
    base = ("sequence_length: 8\nnum_layers: 4\nattention_config: {num_heads: 1, alibi_slopes: [[0.5]]}\n"
            "lambda_schedule_config: ")
    cfg = parse_config(base + "{schedule_type: power_decay, lambda_0: 0.8, beta: 0.5}")
    assert np.allclose(cfg.lambdas, [0.8 / (t + 1) ** 0.5 for t in range(4)], rtol=1e-15)
    cfg = parse_config(base + "{schedule_type: constant, lambda_const: 0}")
    assert cfg.lambdas.tolist() == [0.0] * 4
    assert np.array_equal(cfg.profile(), np.eye(8)[-1])


def test_summary_of_a_real_config():
    cfg = load_config(builtin_config_path("no_content/bloom-7b1"))
    s = rollout_summary(cfg.profile(), cfg.lambdas, cfg.deltas())
    assert s["argmin"] == 62 and 1 < s["argmin"] < 256
    assert s["first_over_min"] > 1 and s["last_over_min"] > 1
    assert abs(s["sum_lambda"] - float(np.sum(cfg.lambdas))) == 0


def test_builtin_names():
    names = builtin_configs()
    # the 32 rollout configs of the reference code (config/rollout/alibi at commit a514e09)
    assert len(names) == 32 and len(residual_configs()) == 25 and len(noresidual_configs()) == 7
    models = ("bloom", "bloom-7b1", "falcon-rw-7b", "mpt-7b", "mpt-30b")
    for m in models:
        assert f"no_content/{m}" in names and f"no_content/{m}-noresidual" in names
        assert f"mean_content/fineweb-edu/{m}" in names
        for ds in ("dclm", "fineweb-edu", "wikipedia"):
            assert f"all_content/{ds}/{m}" in names
    assert {"all_content/fineweb-edu/bloom-noresidual", "mean_content/fineweb-edu/bloom-noresidual"} <= set(names)
    # the names of posbias 0.2 stay valid as aliases of the fineweb-edu configs
    for old in [*OLD_NAMES, "mean_content/mpt-7b"]:
        assert is_builtin_config(old)
        assert os.path.exists(builtin_config_path(old))
    assert builtin_config_path("all_content/mpt-7b") == builtin_config_path("all_content/fineweb-edu/mpt-7b")
    with pytest.raises(InvalidArgument):
        builtin_config_path("no_content/gpt-2")


def test_later_configs_are_listed_apart_with_their_lambda_provenance():
    models = ("bloom", "bloom-7b1", "falcon-rw-7b", "mpt-30b", "mpt-7b")
    later = [n for n in ALL_NAMES if n not in builtin_configs()]
    assert later == [f"no_content_2048/{m}" for m in models]
    assert all(is_builtin_config(n) for n in later)
    for name in later:
        rec = config_record(name)
        assert rec.commit == "37cffcfd490e40cd90d17111660b37f9372d5b66" and rec.license == "MIT"
        assert (rec.sequence_length, rec.lambda_length) == (2048, 256) and not rec.lambda_measured_for_length
        assert rec.lambda_copied_from == "no_content/" + name.split("/")[1]
        assert "not measured at L = 2048" in rec.note and rec.lambda_copied_from in rec.note
        cfg = load_config(builtin_config_path(name))
        src = load_config(builtin_config_path(rec.lambda_copied_from))
        assert (cfg.length, src.length) == (2048, 256)
        # the lambda list (and every layer) is the L = 256 config's, unchanged
        assert np.array_equal(cfg.lambdas, src.lambdas)
        assert all(np.array_equal(a.slopes, b.slopes) and np.array_equal(a.diagonal, b.diagonal)
                   for a, b in zip(cfg.layers, src.layers, strict=True))
        # and the file differs from its source in two lines: sequence_length and save_dir
        with open(builtin_config_path(name), encoding="utf-8") as fa, \
                open(builtin_config_path(rec.lambda_copied_from), encoding="utf-8") as fb:
            a, b = fa.read().splitlines(), fb.read().splitlines()
        assert len(a) == len(b)
        assert [x.split(":")[0] for x, y in zip(a, b) if x != y] == ["sequence_length", "save_dir"]
    for name in builtin_configs():
        rec = config_record(name)
        assert rec.commit == "a514e09cb3e0688974a63816530e5849d5c2b8ba" and rec.note == ""
        assert rec.sequence_length == rec.lambda_length == 256 and rec.lambda_measured_for_length
    assert config_record("mean_content/mpt-7b").name == "mean_content/fineweb-edu/mpt-7b"
    with pytest.raises(InvalidArgument):
        config_record("no_content_2048/gpt-2")


def test_builtin_config_name_of_a_path(tmp_path):
    for name in ("no_content/mpt-7b", "no_content_2048/bloom", "all_content/dclm/bloom"):
        assert builtin_config_name(builtin_config_path(name)) == name
    copy = tmp_path / "mpt-7b.yaml"
    with open(builtin_config_path("no_content/mpt-7b"), encoding="utf-8") as fh:
        copy.write_text(fh.read())
    assert builtin_config_name(copy) is None
    assert builtin_config_name(os.path.dirname(builtin_config_path("no_content/mpt-7b"))) is None


SMALL_CONFIGS = [n for n in ALL_NAMES if not n.startswith("all_content/")]


@pytest.mark.parametrize("name", SMALL_CONFIGS)
def test_every_small_shipped_config_loads(name):
    # the no- and mean-content configs parse in well under a second each
    _check_loaded(name)


@pytest.mark.slow
@pytest.mark.parametrize("name", [n for n in builtin_configs() if n.startswith("all_content/")])
def test_every_content_config_loads(name):
    # per-head content tables: up to 315 kB of YAML (BLOOM-176B), about 1.5 s each to parse
    _check_loaded(name)


def _check_loaded(name):
    expect = {"bloom": (70, 112), "bloom-7b1": (30, 32), "falcon-rw-7b": (36, 64), "mpt-7b": (32, 32),
              "mpt-30b": (48, 64)}
    model = name.rsplit("/", 1)[1].removesuffix("-noresidual")
    L = config_record(name).sequence_length
    for conv in ("reference", "corrected"):
        cfg = load_config(builtin_config_path(name), convention=conv)
        assert (cfg.num_layers, cfg.num_heads) == expect[model] and cfg.length == L
        assert cfg.model == model
        if name.endswith("-noresidual"):
            assert cfg.lambdas.tolist() == [1.0] * cfg.num_layers
        else:
            assert cfg.schedule == "custom (measured)" and 0 < cfg.lambdas.min() <= cfg.lambdas.max() < 1
        p = cfg.profile()
        assert p.size == L and abs(p.sum() - 1) < 1e-12 and p.min() >= 0


GOOD = {
    "sequence_length": "16",
    "num_layers": "2",
    "attention": "attention_config:\n  num_heads: 2\n  alibi_slopes: [[0.5, 0.25]]\n  head_weights: null\n  softmax_temperature: 1.0\n",
    "content": "content_config:\n  diagonal_scores: [[1.0]]\n  base_scores: [[0.0]]\n",
    "lambda": "lambda_schedule_config:\n  schedule_type: custom\n  lambdas_custom: [0.5, 0.25]\n",
}


def _text(**changes):
    parts = dict(GOOD)
    parts.update(changes)
    out = ""
    for key in ("sequence_length", "num_layers"):
        if parts[key] is not None:
            out += f"{key}: {parts[key]}\n"
    for key in ("attention", "content", "lambda"):
        if parts[key] is not None:
            out += parts[key]
    return out + parts.get("extra", "")


def test_good_text_loads():
    cfg = parse_config(_text())
    assert cfg.num_heads == 2 and cfg.layers[0].diagonal.tolist() == [1.0, 0.0]
    assert parse_config(_text(), content_head0_only=False).layers[0].diagonal.tolist() == [1.0, 1.0]


BAD = [
    (dict(sequence_length=None), "sequence_length"),
    (dict(sequence_length="-4"), "sequence_length"),
    (dict(sequence_length="0"), "sequence_length"),
    (dict(sequence_length="16.5"), "sequence_length"),
    (dict(num_layers="true"), "num_layers"),
    (dict(attention=None), "attention_config"),
    (dict(attention="attention_config:\n  alibi_slopes: [[0.5]]\n"), "attention_config.num_heads"),
    (dict(attention="attention_config:\n  num_heads: 2\n"), "attention_config.alibi_slopes"),
    (dict(attention="attention_config:\n  num_heads: 2\n  alibi_slopes: [[0.5, 0.25, 0.1]]\n"),
     "attention_config.alibi_slopes[0]"),
    (dict(attention="attention_config:\n  num_heads: 2\n  alibi_slopes: [[0.5], [0.4], [0.3]]\n"),
     "attention_config.alibi_slopes"),
    (dict(attention="attention_config:\n  num_heads: 2\n  alibi_slopes: [[0.5, -0.25]]\n"),
     "attention_config.alibi_slopes[0][1]"),
    (dict(attention="attention_config:\n  num_heads: 2\n  alibi_slopes: [[0.5, .nan]]\n"),
     "attention_config.alibi_slopes[0][1]"),
    (dict(attention="attention_config:\n  num_heads: 2\n  alibi_slopes: [[0.5, .inf]]\n"),
     "attention_config.alibi_slopes[0][1]"),
    (dict(attention="attention_config:\n  num_heads: 2\n  alibi_slopes: \"0.5\"\n"),
     "attention_config.alibi_slopes"),
    (dict(attention="attention_config:\n  num_heads: 2\n  alibi_slopes: [[0.5]]\n  head_weights: [[0, 0]]\n"),
     "attention_config.head_weights"),
    (dict(attention="attention_config:\n  num_heads: 2\n  alibi_slopes: [[0.5]]\n  softmax_temperature: 0\n"),
     "attention_config.softmax_temperature"),
    (dict(attention="attention_config:\n  num_heads: 2\n  alibi_slopes: [[0.5]]\n  heads: 3\n"),
     "attention_config.heads"),
    (dict(content="content_config:\n  diagonal_scores: [[1.0, 2.0, 3.0]]\n"), "content_config.diagonal_scores[0]"),
    (dict(content="content_config:\n  diagonal_scores: [[1.0], [2.0], [3.0]]\n"), "content_config.diagonal_scores"),
    (dict(content="content_config:\n  diagonal_scores: [[1.0]]\n  base_scores: [[.nan]]\n"),
     "content_config.base_scores[0][0]"),
    (dict(content="content_config:\n  base_scores: [[1.0]]\n"), "content_config.diagonal_scores"),
    (dict(**{"lambda": None}), "lambda_schedule_config"),
    (dict(**{"lambda": "lambda_schedule_config:\n  schedule_type: custom\n  lambdas_custom: [0.5, 1.5]\n"}),
     "lambda_schedule_config.lambdas_custom[1]"),
    (dict(**{"lambda": "lambda_schedule_config:\n  schedule_type: custom\n  lambdas_custom: [0.5, -0.1]\n"}),
     "lambda_schedule_config.lambdas_custom[1]"),
    (dict(**{"lambda": "lambda_schedule_config:\n  schedule_type: custom\n  lambdas_custom: [0.5]\n"}),
     "lambda_schedule_config.lambdas_custom"),
    (dict(**{"lambda": "lambda_schedule_config:\n  schedule_type: constant\n  lambda_const: 2\n"}),
     "lambda_schedule_config.lambda_const"),
    (dict(**{"lambda": "lambda_schedule_config:\n  schedule_type: constant\n"}),
     "lambda_schedule_config.lambda_const"),
    (dict(**{"lambda": "lambda_schedule_config:\n  schedule_type: power_decay\n  lambda_0: 0.5\n  beta: -1\n"}),
     "lambda_schedule_config.beta"),
    (dict(**{"lambda": "lambda_schedule_config:\n  schedule_type: cosine\n"}),
     "lambda_schedule_config.schedule_type"),
    (dict(extra="mask_config:\n  mask_type: full\n"), "mask_config.mask_type"),
    (dict(extra="colour: blue\n"), "colour"),
]


@pytest.mark.parametrize("changes, key", BAD)
def test_bad_input_names_the_key(changes, key):
    with pytest.raises(InvalidArgument) as e:
        parse_config(_text(**changes))
    assert e.value.parameter == key
    assert "\n" not in str(e.value)


@pytest.mark.parametrize(
    "text",
    ["a: [1, 2\nb: 3", "just a string", "- 1\n- 2", "!!python/object/apply:os.system ['echo hacked']",
     "a: !!python/name:os.system\n", "\t\tsequence_length: 3\n", ""],
)
def test_not_a_config_is_rejected_and_nothing_runs(text, capfd):
    with pytest.raises(InvalidArgument) as e:
        parse_config(text)
    assert e.value.parameter in ("config", "sequence_length")
    assert "hacked" not in capfd.readouterr().out


def test_unreadable_and_binary_files(tmp_path):
    with pytest.raises(InvalidArgument) as e:
        load_config(tmp_path / "missing.yaml")
    assert e.value.parameter == "config"
    f = tmp_path / "bin.yaml"
    f.write_bytes(b"\xff\xfe\x00\x01")
    with pytest.raises(InvalidArgument) as e:
        load_config(f)
    assert e.value.parameter == "config"


def test_missing_ruamel_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "ruamel.yaml", None)
    monkeypatch.setitem(sys.modules, "ruamel", None)
    with pytest.raises(NeedsExtra) as e:
        parse_config(_text())
    assert e.value.extra == "yaml"


def test_convention_name_is_validated():
    with pytest.raises(InvalidArgument) as e:
        load_config(builtin_config_path("no_content/mpt-7b"), convention="faithful")
    assert e.value.parameter == "convention"


def test_switching_forces_off():
    cfg = load_config(builtin_config_path("all_content/mpt-7b"), length=32)
    assert all((l.slopes == 0).all() for l in cfg.without_alibi().layers)
    assert all((l.diagonal == 0).all() for l in cfg.without_content().layers)
    assert (cfg.attention_only().lambdas == 1).all()
    assert dataclasses.replace(cfg).length == 32


def test_sliding_window_mask():
    text = _text(extra="mask_config:\n  mask_type: sliding_window\n  window_size: 5\n")
    cfg = parse_config(text)
    assert cfg.window == 5 and all(l.window == 5 for l in cfg.layers)
    dense = alibi_rollout_dense(cfg.length, cfg.layers, cfg.lambdas)
    assert np.allclose(cfg.profile(), dense, rtol=1e-13, atol=0)
    A = alibi_kernel_dense(16, cfg.layers[0])
    assert (np.tril(A, -5) == 0).all() and (A[np.tril_indices(16)][np.tril_indices(16)[0] - np.tril_indices(16)[1] < 5] > 0).all()
    for bad in ("mask_config:\n  mask_type: sliding_window\n", "mask_config:\n  mask_type: sliding_window\n  window_size: 0\n"):
        with pytest.raises(InvalidArgument) as e:
            parse_config(_text(extra=bad))
        assert e.value.parameter == "mask_config.window_size"
    with pytest.raises(InvalidArgument) as e:
        parse_config(_text(extra="mask_config:\n  mask_type: causal\n  window_size: 4\n"))
    assert e.value.parameter == "mask_config.window_size"


def _bomb(levels: int = 9) -> str:
    """A "billion laughs" YAML: 9**levels strings once the aliases are expanded."""
    out = "  - &l0 [x, x, x, x, x, x, x, x, x]\n"
    for i in range(1, levels):
        out += f"  - &l{i} [" + ", ".join([f"*l{i - 1}"] * 9) + "]\n"
    return out


@pytest.mark.parametrize("where", ["save_dir", "sequence_length", "colour"])
def test_yaml_bomb_is_rejected_quickly(where):
    import time

    t0 = time.perf_counter()
    with pytest.raises(InvalidArgument) as e:
        parse_config(_text(extra=f"{where}:\n" + _bomb()) if where != "sequence_length"
                     else _text(sequence_length="\n" + _bomb()))
    assert e.value.parameter == "config" and "aliases" in str(e.value)
    assert time.perf_counter() - t0 < 5


def test_recursive_alias_is_rejected():
    with pytest.raises(InvalidArgument) as e:
        parse_config(_text(extra="save_dir: &a [*a]\n"))
    assert e.value.parameter == "config"


@pytest.mark.parametrize("changes, key", [
    (dict(sequence_length="99999999999999"), "sequence_length"),
    (dict(num_layers="99999999999999"), "num_layers"),
    (dict(attention="attention_config:\n  num_heads: 99999999999999\n  alibi_slopes: [[0.5]]\n"),
     "attention_config.num_heads"),
    (dict(attention="attention_config:\n  num_heads: 2\n  alibi_slopes: [[0.5, " + "9" * 400 + "]]\n"),
     "attention_config.alibi_slopes[0][1]"),
    (dict(**{"lambda": "lambda_schedule_config:\n  schedule_type: constant\n  lambda_const: " + "9" * 400 + "\n"}),
     "lambda_schedule_config.lambda_const"),
])
def test_huge_values_are_rejected_with_a_short_message(changes, key):
    with pytest.raises(InvalidArgument) as e:
        parse_config(_text(**changes))
    assert e.value.parameter == key
    assert len(str(e.value)) < 300


def test_length_override_is_bounded():
    with pytest.raises(InvalidArgument) as e:
        parse_config(_text(), length=10**14)
    assert e.value.parameter == "length"
    with pytest.raises(InvalidArgument):
        parse_config(_text()).with_length(10**14)


def test_non_string_save_dir_is_ignored():
    cfg = parse_config(_text(extra="save_dir: [1, 2]\n"))
    assert cfg.model is None
