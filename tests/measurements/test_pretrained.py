"""Pretrained-model measurements on tiny checkpoints of every family (saved with
``save_pretrained`` and a trained tokenizer, reloaded; nothing downloaded):

* lambda_t against a hand computation with hooks on one block (a_t = the residual stream after
  the attention sub-layer minus the block input, read at the next norm or around the MLP);
* the queries, keys, score scale and ALiBi slopes read by the probe rebuild the model's own
  attention (eager probabilities, or the attention output for Falcon with ALiBi);
* the content-score means against the dense L x L computation;
* gradient checkpointing leaves the top-1 gradient unchanged;
* text windows: exact length, BOS handling, determinism, .jsonl, errors;
* loading errors name the parameter and where posbias looked.
"""

import json
import math
import os
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
pytest.importorskip("tokenizers")

from posbias.errors import InvalidArgument  # noqa: E402
from posbias.measurements.attention import AttentionProbe, _fused_qkv  # noqa: E402
from posbias.measurements.checkpoint import block_checkpointing, load_checkpoint  # noqa: E402
from posbias.measurements.measure import influence_profile, lambda_hooks  # noqa: E402
from posbias.measurements.pretrained import measure_pretrained  # noqa: E402
from posbias.measurements.text import text_windows  # noqa: E402


def _tiny_checkpoints():
    """The shared helper tests/measurements/tiny_checkpoints.py (loaded by tests/conftest.py)."""
    import posbias_tests_tiny_checkpoints

    return posbias_tests_tiny_checkpoints


_tiny = _tiny_checkpoints()
FAMILIES, save_tiny, write_text = _tiny.FAMILIES, _tiny.save_tiny, _tiny.write_text
ALL = tuple(FAMILIES)


@pytest.fixture(autouse=True)
def _offline(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """{family: checkpoint directory}, the text file and the jsonl file."""
    root = tmp_path_factory.mktemp("ckpt")
    dirs = {fam: save_tiny(fam, root) for fam in ALL}
    return dirs, write_text(root / "text"), write_text(root / "jsonl", jsonl=True)


def _ids(n=24, vocab=30):
    return torch.arange(n).remainder(vocab - 3).add(3).view(1, -1)


# ----------------------------------------------------------------------------------------------
# lambda_t by hand

# the module whose input is x + a (the stream after the attention sub-layer), per family
_AFTER_ATTENTION = {"bloom": "post_attention_layernorm", "mpt": "norm_2",
                    "falcon": "post_attention_layernorm", "gpt2": "ln_2",
                    "llama": "post_attention_layernorm", "qwen2": "post_attention_layernorm"}


def _blocks(model):
    base = model.base_model
    for name in ("h", "blocks", "layers"):
        if hasattr(base, name):
            return list(getattr(base, name))
    raise AssertionError("no block list")


@pytest.mark.parametrize("family", ALL)
def test_lambda_matches_hand_computation(tiny, family):
    model = load_checkpoint(tiny[0][family]).model
    block = _blocks(model)[1]
    seen = {}
    hooks = [block.register_forward_pre_hook(
        lambda m, a, k: seen.__setitem__("x", (a[0] if a else k["hidden_states"]).clone()),
        with_kwargs=True)]
    if family == "falcon-rope":   # parallel block: out = x + attn(ln x) + mlp(ln x)
        hooks.append(block.mlp.register_forward_hook(
            lambda m, a, o: seen.__setitem__("mlp", o.clone())))  # the block adds to it in place
        hooks.append(block.register_forward_hook(
            lambda m, a, o: seen.__setitem__("out", o[0] if isinstance(o, tuple) else o)))
    else:
        norm = getattr(block, _AFTER_ATTENTION[model.config.model_type])
        hooks.append(norm.register_forward_pre_hook(
            lambda m, a: seen.__setitem__("mid", a[0].clone())))
    with torch.no_grad(), lambda_hooks(model) as rec:
        model(_ids(), use_cache=False)
    for h in hooks:
        h.remove()
    x = seen["x"][0].double()
    if family == "falcon-rope":
        a = (seen["out"] - seen["x"] - seen["mlp"])[0].double()
    else:
        a = (seen["mid"] - seen["x"])[0].double()
    na, nx = a.norm(dim=-1), x.norm(dim=-1)
    hand = float((na / (nx + na)).mean())
    assert 0 < hand < 1
    # float32 model: the subtraction loses ~1e-6 relative of ||x||
    assert rec.lambdas[1] == pytest.approx(hand, rel=2e-5, abs=2e-6)


# ----------------------------------------------------------------------------------------------
# queries, keys, scale and slopes rebuild the model's attention

def _rebuilt_probs(q, k, scale, slopes, alibi_scale):
    L = q.shape[1]
    logits = scale * torch.einsum("hid,hjd->hij", q, k)
    i = torch.arange(L).view(-1, 1)
    j = torch.arange(L).view(1, -1)
    if slopes is not None:
        logits = logits - alibi_scale * torch.as_tensor(slopes).view(-1, 1, 1) * (i - j)
    logits = logits.masked_fill(j > i, -math.inf)
    return torch.softmax(logits, dim=-1)


@pytest.mark.parametrize("family", ("bloom", "mpt", "gpt2", "llama", "qwen2", "falcon-rope"))
def test_probe_rebuilds_eager_attention(tiny, family):
    model = load_checkpoint(tiny[0][family], attn_implementation="eager").model
    with torch.no_grad(), AttentionProbe(model, keep_last=True) as probe:
        out = model(_ids(), use_cache=False, output_attentions=True)
    res = probe.results()
    for t, weights in enumerate(out.attentions):
        q, k = probe.last[t]
        slopes = None if res["alibi_slopes"] is None else res["alibi_slopes"][t]
        ascale = None if res["alibi_scale"] is None else res["alibi_scale"][t]
        rebuilt = _rebuilt_probs(q, k, res["score_scale"][t], slopes, ascale)
        assert float((rebuilt - weights[0].double()).abs().max()) < 1e-5
    if family in ("bloom", "mpt"):
        heads = model.config.num_attention_heads if family == "bloom" else model.config.n_heads
        expected = [2.0 ** (-8 * (h + 1) / heads) for h in range(heads)]  # power-of-two heads
        assert np.allclose(res["alibi_slopes"], expected, rtol=0, atol=1e-7)
        assert np.all(res["alibi_scale"] == 1.0)
    else:
        assert res["alibi_slopes"] is None


@pytest.mark.parametrize("layout", ("grouped", "multi-query", "per-head"))
def test_probe_reads_each_falcon_qkv_layout(layout):
    """Falcon's fused projection comes in three layouts (grouped key heads, one key head, a key
    per head); the probe's split of each rebuilds the model's eager attention weights."""
    settings = dict(num_hidden_layers=1, num_attention_heads=4, hidden_size=32, alibi=False,
                    vocab_size=30, new_decoder_architecture=(layout == "grouped"),
                    multi_query=(layout == "multi-query"),
                    num_kv_heads=2 if layout == "grouped" else None,
                    parallel_attn=True, bias=False)
    config = transformers.AutoConfig.for_model("falcon", **settings)
    torch.manual_seed(0)
    model = transformers.AutoModelForCausalLM.from_config(config, attn_implementation="eager")
    with torch.no_grad():
        for p in model.parameters():
            if p.ndim == 2:
                p.mul_(3.0)  # scores far from uniform, so a wrong split shows
        with AttentionProbe(model, keep_last=True) as probe:
            out = model(_ids(), use_cache=False, output_attentions=True)
    res = probe.results()
    q, k = probe.last[0]
    rebuilt = _rebuilt_probs(q, k, res["score_scale"][0], None, None)
    weights = out.attentions[0][0].double()
    assert float((rebuilt - weights).abs().max()) < 1e-5
    assert float((weights - weights.mean(-1, keepdim=True)).abs().max()) > 0.05  # not flat


def test_probe_rebuilds_falcon_alibi_attention_output(tiny):
    """Falcon with ALiBi: the model's sdpa path adds the bias once, scaled by 1/sqrt(d_head)
    (the eager path of transformers 5.0-5.24 adds it a second time through the mask, so the two
    implementations disagree there; 5.25 folds it into the mask once for both); the probe must
    rebuild the sdpa attention output."""
    model = load_checkpoint(tiny[0]["falcon"], attn_implementation="sdpa").model
    attn = _blocks(model)[0].self_attention
    seen = {}
    handle = attn.register_forward_hook(
        lambda m, a, kw, o: seen.update(h=kw.get("hidden_states", a[0] if a else None), out=o[0]),
        with_kwargs=True)
    with torch.no_grad(), AttentionProbe(model, keep_last=True) as probe:
        model(_ids(), use_cache=False)
    handle.remove()
    res = probe.results()
    q, k = probe.last[0]
    d = q.shape[-1]
    assert res["score_scale"][0] == pytest.approx(1 / math.sqrt(d))
    assert np.allclose(res["alibi_scale"], 1 / math.sqrt(d))
    probs = _rebuilt_probs(q, k, res["score_scale"][0], res["alibi_slopes"][0],
                           res["alibi_scale"][0])
    with torch.no_grad():
        _, _, v = _fused_qkv(attn.query_key_value(seen["h"]), attn.num_heads, attn.num_heads)
        v = v[0].double()                                         # heads x L x d
        ctx = torch.einsum("hij,hjd->ihd", probs, v).reshape(v.shape[1], -1)
        rebuilt = attn.dense(ctx.float())
    assert float((rebuilt - seen["out"][0]).abs().max()) < 1e-4 * float(seen["out"].abs().max())
    # the two attention implementations of this transformers version disagree with ALiBi
    eager = load_checkpoint(tiny[0]["falcon"], attn_implementation="eager").model
    with torch.no_grad():
        gap = (eager(_ids()).logits - model(_ids()).logits).abs().max()
    print(f"falcon ALiBi eager vs sdpa logits: max difference {float(gap):.3g}")


@pytest.mark.parametrize("family", ("llama", "bloom"))
def test_content_means_against_dense_scores(tiny, family):
    model = load_checkpoint(tiny[0][family]).model
    with torch.no_grad(), AttentionProbe(model, keep_last=True) as probe:
        model(_ids(), use_cache=False)
    res = probe.results()
    q, k = probe.last[1]
    s = torch.einsum("hid,hjd->hij", q, k)
    L = s.shape[-1]
    lower = torch.tril(torch.ones(L, L, dtype=torch.bool), -1)
    diag = s.diagonal(dim1=-2, dim2=-1).mean(-1)
    low = s[:, lower].mean(-1)
    assert np.allclose(res["qk_diagonal"][1], diag.numpy(), rtol=1e-12, atol=1e-12)
    assert np.allclose(res["qk_lower"][1], low.numpy(), rtol=1e-10, atol=1e-12)


# ----------------------------------------------------------------------------------------------
# influence and checkpointing

@pytest.mark.parametrize("family", ("gpt2", "falcon"))
def test_checkpointing_keeps_the_gradient(tiny, family):
    model = load_checkpoint(tiny[0][family]).model
    ids = _ids(20)[0]
    plain = influence_profile(model, ids, metric="top1-grad")
    with block_checkpointing(model) as n:
        ckpt = influence_profile(model, ids, metric="top1-grad")
    assert n == 2
    assert np.allclose(plain, ckpt, rtol=1e-6, atol=0)
    assert "forward" not in vars(_blocks(model)[0])  # restored


def test_measurement_record(tiny):
    dirs, text, _ = tiny
    loaded = load_checkpoint(dirs["mpt"])
    w = text_windows(loaded.tokenizer, text, length=32, samples=3, seed=5)
    m = measure_pretrained(loaded, w.ids, inputs=w.describe())
    assert m.profile.shape == (32,) and m.sample_profiles.shape == (3, 32)
    assert abs(m.profile.sum() - 1) < 1e-12 and (m.profile > 0).all()
    assert m.lambdas.shape == (2,) and ((m.lambdas > 0) & (m.lambdas < 1)).all()
    assert m.qk_diagonal.shape == (2, 4) and m.alibi_slopes.shape == (2, 4)
    assert np.allclose(m.diagonal_scores + m.base_scores, m.qk_diagonal)
    assert m.positional == "alibi" and m.metric == "top1-grad"
    again = measure_pretrained(loaded, w.ids)
    assert np.array_equal(again.profile, m.profile)      # deterministic
    # lambda and q.k are read in the gradient pass (recording paused for the recomputation in
    # the backward pass): the same numbers as a separate forward pass without gradients
    with torch.no_grad(), lambda_hooks(loaded.model) as rec, AttentionProbe(loaded.model) as pr:
        for row in w.ids:
            loaded.model(torch.as_tensor(row).view(1, -1), use_cache=False)
    separate = pr.results()
    assert np.allclose(m.lambdas, rec.lambdas, rtol=1e-6, atol=0)
    assert np.allclose(m.qk_diagonal, separate["qk_diagonal"], rtol=1e-6, atol=1e-9)
    assert np.allclose(m.qk_lower, separate["qk_lower"], rtol=1e-6, atol=1e-9)
    assert np.array_equal(m.alibi_slopes, separate["alibi_slopes"])
    jac = measure_pretrained(loaded, w.ids[:1], metric="jacobian", probes=2)
    assert np.allclose(jac.lambdas, measure_pretrained(loaded, w.ids[:1]).lambdas, rtol=1e-6)
    rand = measure_pretrained(loaded, None, length=16, samples=2, seed=3)
    assert rand.profile.shape == (16,) and "random token ids" in rand.inputs


def test_random_init_gives_the_same_architecture(tiny):
    pre = load_checkpoint(tiny[0]["llama"]).model
    init = load_checkpoint(tiny[0]["llama"], random_init=True, seed=0).model
    assert type(pre) is type(init) and pre.config.num_hidden_layers == init.config.num_hidden_layers
    w_pre = pre.model.layers[0].self_attn.q_proj.weight
    w_init = init.model.layers[0].self_attn.q_proj.weight
    assert w_pre.shape == w_init.shape and not torch.equal(w_pre, w_init)


# ----------------------------------------------------------------------------------------------
# text windows

def test_windows_exact_length_and_no_bos(tiny):
    dirs, text, _ = tiny
    tok = load_checkpoint(dirs["gpt2"]).tokenizer      # this tokenizer adds no BOS
    w = text_windows(tok, text, length=40, samples=5, seed=1)
    assert w.ids.shape == (5, 40) and w.prefix == []
    stream = tok(Path(text).read_text(encoding="utf-8"), add_special_tokens=False)["input_ids"]
    starts = [next(s for s in range(0, len(stream), 40) if stream[s:s + 40] == list(row))
              for row in w.ids]                         # each window is a 40-token slice
    assert starts == sorted(starts)
    assert np.array_equal(w.ids, text_windows(tok, text, length=40, samples=5, seed=1).ids)
    assert not np.array_equal(w.ids, text_windows(tok, text, length=40, samples=5, seed=2).ids)


def test_windows_keep_the_tokenizers_bos(tiny):
    dirs, _, jsonl = tiny
    tok = load_checkpoint(dirs["llama"]).tokenizer     # adds <s> in front of a text
    w = text_windows(tok, jsonl, length=24, samples=4, seed=0)
    bos = tok.convert_tokens_to_ids("<s>")
    assert w.prefix == [bos] and (w.ids[:, 0] == bos).all() and (w.ids[:, 1:] != bos).all()
    assert w.documents >= 1 and w.ids.shape == (4, 24)


def test_windows_from_a_directory(tiny, tmp_path):
    dirs, text, jsonl = tiny
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "a.txt").write_text(Path(text).read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "b.jsonl").write_text(Path(jsonl).read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "ignored.bin").write_bytes(b"\xff\xfe")
    tok = load_checkpoint(dirs["gpt2"]).tokenizer
    w = text_windows(tok, tmp_path, length=32, samples=6, seed=0)
    assert w.files == 2 and w.ids.shape == (6, 32)


def test_window_errors(tiny, tmp_path):
    dirs, text, _ = tiny
    tok = load_checkpoint(dirs["gpt2"]).tokenizer
    with pytest.raises(InvalidArgument, match=r"^samples = 100000 .*at most"):
        text_windows(tok, text, length=64, samples=100000)
    with pytest.raises(InvalidArgument, match=r"^text = .*one document of 100000 tokens"):
        text_windows(tok, text, length=100000, samples=1)
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"text": "a b"}) + "\n" + json.dumps({"body": "x"}) + "\n")
    with pytest.raises(InvalidArgument, match=r"bad.jsonl:2 .*string field 'text'"):
        text_windows(tok, bad, length=2, samples=1)
    with pytest.raises(InvalidArgument, match=r"^text = "):
        text_windows(tok, tmp_path / "missing.txt", length=8, samples=1)
    with pytest.raises(InvalidArgument, match=r"^length = 1 "):
        text_windows(tok, text, length=1, samples=1)


# ----------------------------------------------------------------------------------------------
# loading errors

def test_missing_model_names_where_it_looked(tmp_path):
    with pytest.raises(InvalidArgument, match=r"looked at .*nowhere"):
        load_checkpoint(str(tmp_path / "nowhere"))
    with pytest.raises(InvalidArgument, match=r"config\.json"):
        load_checkpoint(str(tmp_path))
    with pytest.raises(InvalidArgument, match=r"Hugging Face cache .*--allow-download") as info:
        load_checkpoint("posbias-test-org/no-such-model")
    assert "\n" not in str(info.value)
    with pytest.raises(InvalidArgument, match=r"^dtype = float16 "):
        load_checkpoint(str(tmp_path), dtype="float16")


def test_a_family_without_its_own_route_goes_the_generic_route(tmp_path):
    """GPT-NeoX has no family route: it is measured through the generic one (see
    test_generic_route.py), and asking for a family route is refused naming the choice."""
    config = transformers.AutoConfig.for_model("gpt_neox", num_hidden_layers=1, hidden_size=16,
                                               num_attention_heads=2, intermediate_size=32,
                                               vocab_size=40)
    transformers.AutoModelForCausalLM.from_config(config).save_pretrained(tmp_path / "neox")
    _tiny.train_tokenizer(_tiny.generated_text(200), bos=False).save_pretrained(tmp_path / "neox")
    loaded = load_checkpoint(str(tmp_path / "neox"))
    with pytest.raises(InvalidArgument, match=r"^route = family .*gpt_neox"):
        measure_pretrained(loaded, None, length=8, route="family")
    assert measure_pretrained(loaded, None, length=8).details["route"] == "generic"
    assert os.path.isdir(tmp_path / "neox")


def test_broken_model_folders_are_named(tiny, tmp_path):
    """A folder without a tokenizer is blamed on the model (not on --text), and a config that
    contradicts the weights is refused naming the model, both in one line."""
    import json
    import shutil

    dirs, _, _ = tiny
    src = dirs["gpt2"]
    bare = tmp_path / "no-tokenizer"
    shutil.copytree(src, bare)
    for f in os.listdir(bare):
        if "token" in f or f in ("vocab.json", "merges.txt", "special_tokens_map.json"):
            os.unlink(bare / f)
    with pytest.raises(InvalidArgument, match=r"^model = .*tokenizer files") as info:
        load_checkpoint(str(bare))
    assert "\n" not in str(info.value)
    wrong = tmp_path / "wrong-config"
    shutil.copytree(src, wrong)
    cfg = json.loads((wrong / "config.json").read_text())
    cfg["n_embd"] = cfg["n_embd"] * 2
    (wrong / "config.json").write_text(json.dumps(cfg))
    with pytest.raises(InvalidArgument, match=r"^model = .*weights fit its config\.json") as info:
        load_checkpoint(str(wrong))
    assert "\n" not in str(info.value)


def test_checkpoint_measurement_is_planned_and_creates_its_folders(tiny, tmp_path, capsys):
    """`measure --model` sizes the run from config.json before loading any weight (refused in
    one line beyond --max-memory), and --save-influence creates a missing directory."""
    from posbias.cli import main

    dirs, text, _ = tiny
    code = main(["measure", "--model", dirs["gpt2"], "--length", "16", "--samples", "1",
                 "--max-memory", "10M", "-q"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "needs about" in err
    out = tmp_path / "new" / "mydata"
    code = main(["measure", "--model", dirs["gpt2"], "--text", text, "--length", "16",
                 "--samples", "1", "--save-influence", str(out), "-q", "-o", str(tmp_path / "m.txt")])
    capsys.readouterr()
    assert code == 0 and any((out / "measured-influence").iterdir())


def _attention_modules(loaded):
    from posbias.measurements.hooks import locate_blocks

    return locate_blocks(loaded.model)[1]


@pytest.mark.parametrize("family, attribute, generic", [
    ("llama", "head_dim", True), ("gpt2", "split_size", True),
    ("bloom", "inv_norm_factor", False), ("mpt", "softmax_scale", False)])
def test_an_attention_module_without_what_the_family_route_reads_is_refused(
        tiny, family, attribute, generic):
    """A transformers release that renames an attribute the family route reads (as 5.25 did
    for Falcon) gets one line naming the attribute, the installed release and, where the model
    has no ALiBi bias, the generic route (which reads what the model computes instead)."""
    dirs, _, _ = tiny
    loaded = load_checkpoint(dirs[family])
    for attn in _attention_modules(loaded):
        delattr(attn, attribute)  # as a rewritten module would not have it
    owner = type(_attention_modules(loaded)[0]).__name__
    with pytest.raises(InvalidArgument, match=rf"^model = {dirs[family]} is invalid: expected a "
                                              rf"{family} model .*\({owner} has no "
                                              rf"'{attribute}' under transformers") as info:
        measure_pretrained(loaded, None, length=8, route="family")
    text = str(info.value)
    assert "\n" not in text and f"transformers {transformers.__version__}" in text
    assert ("--route generic" in text) is generic and ("ALiBi" in text) is not generic
    assert isinstance(info.value.__cause__, AttributeError)  # the traceback stays chained


def test_a_refusal_says_whether_the_release_was_tested_and_names_a_missing_function(
        tiny, monkeypatch):
    """A release outside the tested range is named as such (an ALiBi model is then told to
    install a tested one); a missing module function is named with its module."""
    import sys

    dirs, _, _ = tiny
    loaded = load_checkpoint(dirs["llama"])
    module = sys.modules[type(_attention_modules(loaded)[0]).__module__]
    monkeypatch.delattr(module, "apply_rotary_pos_emb")
    with pytest.raises(InvalidArgument, match=rf"\({module.__name__} has no "
                                              r"'apply_rotary_pos_emb' under transformers "
                                              rf"{transformers.__version__};"):
        measure_pretrained(loaded, None, length=8)
    import posbias.measurements.attention as pm

    monkeypatch.setattr(pm, "_transformers_version", lambda: "5.99.0")
    loaded = load_checkpoint(dirs["bloom"])
    for attn in _attention_modules(loaded):
        del attn.inv_norm_factor
    with pytest.raises(InvalidArgument, match=r"under transformers 5\.99\.0, not among the "
                                              r"releases tested \(5\.17 to 5\.25\); its ALiBi "
                                              r"bias is read by the family route only: install "
                                              r"a tested release\)$"):
        measure_pretrained(loaded, None, length=8)
    # a version string without a major.minor (a source build) is not taken as tested
    monkeypatch.setattr(pm, "_transformers_version", lambda: "unknown")
    with pytest.raises(InvalidArgument, match=r"under transformers unknown, not among the "
                                              r"releases tested"):
        measure_pretrained(loaded, None, length=8)


def test_an_attention_call_without_an_argument_the_family_route_reads_is_refused(
        tiny, monkeypatch):
    """A release that stops passing a call argument the family route reads (the rotary
    ``position_embeddings`` here) is refused naming the argument."""
    import posbias.measurements.attention as pm

    dirs, _, _ = tiny
    loaded = load_checkpoint(dirs["qwen2"])
    bind = pm._bind
    monkeypatch.setattr(pm, "_bind", lambda *a: {k: v for k, v in bind(*a).items()
                                                 if k != "position_embeddings"})
    with pytest.raises(InvalidArgument, match=r"is called without 'position_embeddings'.*"
                                              r"--route generic"):
        measure_pretrained(loaded, None, length=8)


def test_the_route_is_chosen_on_the_command_line(tiny, tmp_path, capsys):
    """`measure --model --route generic` reads a family model through the attention interface
    (the same profile as the family route; with -q nothing on standard error); `--route`
    without --model, and the family route of a model without one, are one line and exit 2."""
    from posbias.cli import main

    dirs, _, _ = tiny
    profiles = {}
    for route in ("family", "generic"):
        out = tmp_path / f"{route}.json"
        code = main(["measure", "--model", dirs["llama"], "--length", "12", "--route", route,
                     "-q", "-f", "json", "-o", str(out)])
        assert code == 0, capsys.readouterr().err
        data = json.loads(out.read_text())["measurement"]
        assert data["details"]["route"] == route
        profiles[route] = data["profile"]
    assert profiles["family"] == profiles["generic"]
    code = main(["measure", "--arch", "gpt2", "--route", "generic", "-q"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "--route" in err
    config = transformers.AutoConfig.for_model("gpt_neox", num_hidden_layers=1, hidden_size=16,
                                               num_attention_heads=2, intermediate_size=32,
                                               vocab_size=40)
    transformers.AutoModelForCausalLM.from_config(config).save_pretrained(tmp_path / "neox")
    _tiny.train_tokenizer(_tiny.generated_text(200), bos=False).save_pretrained(tmp_path / "neox")
    capsys.readouterr()
    code = main(["measure", "--model", str(tmp_path / "neox"), "--length", "8", "--route",
                 "family", "-q", "-o", str(tmp_path / "never.txt")])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and err.startswith("posbias: error: --route = family")
    assert not (tmp_path / "never.txt").exists()
