"""The generic transformers route of the checkpoint measurement: on a family that has its own
route (GPT-2, LLaMA) it gives the same profile, lambdas, scores and scales; GPT-NeoX (Pythia's
architecture, parallel residual), OPT, Phi and Gemma checkpoints measure; a parallel-residual
block's lambda is ``||a|| / (||x + m|| + ||a||)`` by hand; a model whose blocks cannot be found is
refused naming what is missing.  Tiny random-weight models saved locally, nothing downloaded."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
pytest.importorskip("tokenizers")

import posbias_tests_tiny_checkpoints as tiny  # noqa: E402

from posbias.cli import main  # noqa: E402
from posbias.errors import InvalidArgument  # noqa: E402
from posbias.measurements.checkpoint import load_checkpoint  # noqa: E402
from posbias.measurements.measure import lambda_hooks  # noqa: E402
from posbias.measurements.pretrained import measure_pretrained  # noqa: E402

#: tiny configurations of families without a route of their own (2 layers, hidden 16)
OTHERS = {
    "gpt_neox": dict(num_hidden_layers=2, hidden_size=16, num_attention_heads=2,
                     intermediate_size=32),
    "opt": dict(num_hidden_layers=2, hidden_size=16, num_attention_heads=2, ffn_dim=32,
                word_embed_proj_dim=16),
    "phi": dict(num_hidden_layers=2, hidden_size=16, num_attention_heads=2, intermediate_size=32),
    "gemma": dict(num_hidden_layers=2, hidden_size=16, num_attention_heads=2,
                  num_key_value_heads=1, head_dim=8, intermediate_size=32),
}


@pytest.fixture(autouse=True)
def _offline_one_thread(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    old = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(old)


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """{model type: checkpoint directory} for the OTHERS, with a word-level tokenizer."""
    root = tmp_path_factory.mktemp("generic")
    tok = tiny.train_tokenizer(tiny.generated_text(300), bos=False)
    out = {}
    for model_type, settings in OTHERS.items():
        config = transformers.AutoConfig.for_model(model_type, vocab_size=len(tok),
                                                   bos_token_id=1, eos_token_id=2,
                                                   pad_token_id=None, **settings)
        torch.manual_seed(0)
        path = os.path.join(root, model_type)
        transformers.AutoModelForCausalLM.from_config(config).save_pretrained(path)
        tok.save_pretrained(path)
        out[model_type] = path
    return out


@pytest.mark.parametrize("family", ["gpt2", "llama"])
def test_generic_route_equals_the_family_route(family, tmp_path):
    loaded = load_checkpoint(tiny.save_tiny(family, tmp_path))
    a = measure_pretrained(loaded, None, length=12, route="family")
    b = measure_pretrained(loaded, None, length=12, route="generic")
    assert a.details["route"] == "family" and b.details["route"] == "generic"
    np.testing.assert_array_equal(a.profile, b.profile)
    np.testing.assert_array_equal(a.lambdas, b.lambdas)
    np.testing.assert_array_equal(a.score_scale, b.score_scale)
    # the same queries and keys, computed by the model instead of recomputed by posbias
    np.testing.assert_allclose(b.qk_diagonal, a.qk_diagonal, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(b.qk_lower, a.qk_lower, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("model_type", sorted(OTHERS))
def test_other_families_measure(model_type, saved):
    m = measure_pretrained(load_checkpoint(saved[model_type]), None, length=12, samples=2)
    assert m.details["route"] == "generic" and m.model_type == model_type
    assert m.profile.shape == (12,) and abs(m.profile.sum() - 1) < 1e-12
    assert np.all(m.profile > 0)
    assert m.lambdas.shape == (2,) and np.all((m.lambdas > 0) & (m.lambdas < 1))
    assert m.qk_diagonal.shape == (2, 2) and np.all(np.isfinite(m.qk_diagonal))
    assert np.all(m.score_scale > 0)
    parallel = model_type in ("gpt_neox", "phi")
    assert m.details["lambda"].startswith("parallel") == parallel


def test_parallel_residual_lambda_by_hand(saved):
    """GPT-NeoX (use_parallel_residual): lambda_1 = mean ||a|| / (||x + m|| + ||a||) with
    a = Attn(LN1 x), m = MLP(LN2 x) read from the block's own modules."""
    model = load_checkpoint(saved["gpt_neox"], dtype="float32").model
    assert model.config.use_parallel_residual
    ids = torch.arange(3, 13).view(1, -1)
    blk = model.gpt_neox.layers[0]
    seen = {}

    def block_input(mod, args, kwargs):
        seen["x"] = kwargs["hidden_states"] if "hidden_states" in kwargs else args[0]

    def attention_output(mod, args, out):
        seen["a"] = out[0]

    def mlp_output(mod, args, out):
        seen["m"] = out

    handles = [blk.register_forward_pre_hook(block_input, with_kwargs=True),
               blk.attention.register_forward_hook(attention_output),
               blk.mlp.register_forward_hook(mlp_output)]
    with torch.no_grad():
        model(input_ids=ids, use_cache=False)
    for h in handles:
        h.remove()
    x, a = seen["x"][0].double(), seen["a"][0].double()
    with torch.no_grad():  # the MLP reads the block input, not x + a
        m = blk.mlp(blk.post_attention_layernorm(seen["x"]))[0].double()
    assert torch.allclose(m, seen["m"][0].double())
    na = a.norm(dim=-1)
    hand = float((na / ((x + m).norm(dim=-1) + na)).mean())
    sequential = float((na / (x.norm(dim=-1) + na)).mean())
    with lambda_hooks(model) as rec, torch.no_grad():
        model(input_ids=ids, use_cache=False)
    assert abs(rec.lambdas[0] - hand) <= 1e-6 * hand  # x + m summed in float32 by the hook
    assert abs(hand - sequential) > 1e-6 * hand  # the two definitions differ on this model


def test_a_model_without_findable_blocks_is_refused(saved):
    loaded = load_checkpoint(saved["opt"])
    for layer in loaded.model.model.decoder.layers:
        layer.mixer = layer.self_attn
        del layer.self_attn
    with pytest.raises(InvalidArgument, match=r"^model = .*decoder blocks .*no ModuleList of 2 "
                       r"modules with an attention child named self_attn"):
        measure_pretrained(loaded, None, length=8)


def test_family_route_refused_where_there_is_none(saved):
    with pytest.raises(InvalidArgument, match=r"^route = family .*auto or generic for opt"):
        measure_pretrained(load_checkpoint(saved["opt"]), None, length=8, route="family")


def test_cli_measures_a_gpt_neox_checkpoint(saved, capsys):
    rc = main(["measure", "--model", saved["gpt_neox"], "--length", "8", "-f", "json", "-q"])
    out, err = capsys.readouterr()
    assert rc == 0, err
    doc = json.loads(out)
    assert doc["measurement"]["model_type"] == "gpt_neox"
    assert doc["measurement"]["details"]["route"] == "generic"
    assert len(doc["measurement"]["profile"]) == 8
