"""Tests of posbias.measurements.measure: the Jacobian routes, the lambda hooks against a hand
computation of the first block of every supported family, and the RoPE identity patch.

All models are tiny (3 blocks or fewer, hidden 32, L = 32) and built in float64 where values are
compared.  GPT-2 then computes entirely in float64 (tolerance 1e-10 relative, for rounding
accumulated through softmax, norms and products).  The other families compute their attention
softmax (and LLaMA/Qwen2 their RMSNorm) in float32 inside transformers even in a float64 model,
so a hand computation in float64 agrees with them to float32 precision only: tolerance 1e-5
relative (a few hundred float32 ulps, 2^-24 ~ 6e-8 each).
"""

import math
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from posbias.errors import InvalidArgument, NeedsExtra  # noqa: E402
from posbias.measurements import measure as ms  # noqa: E402
from posbias.measurements.presets import PRESETS, resolve_settings  # noqa: E402
from posbias.proofs_checks import measured as mc  # noqa: E402

L = 32
FLOAT64_TOL = 1e-10
FLOAT32_TOL = 1e-5


def _tol(arch):
    return FLOAT64_TOL if "gpt2" in arch else FLOAT32_TOL


@pytest.fixture(autouse=True)
def _offline(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")


@pytest.fixture(autouse=True, scope="module")
def _one_thread():
    """Tiny shapes run fastest on one thread, and two OpenMP threads on a shared 2-core machine
    stall each other (measure_influence does the same internally)."""
    previous = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(previous)


def _ids(vocab, length=L, seed=7):
    g = torch.Generator().manual_seed(seed)
    return torch.randint(0, vocab, (length,), generator=g)


# ----------------------------------------------------------------------------------------------
# Jacobian: exact route against torch.autograd.functional.jacobian, probe route unbiased

@pytest.fixture(scope="module")
def llama64():
    model, settings = ms.build_model("tiny-llama", length=L, seed=3, dtype="float64")
    return model, settings


def _full_jacobian_norms(model, ids):
    """||d h_L / d e_j||_F from the full Jacobian tensor (an independent route)."""
    emb = model.get_input_embeddings()(ids.view(1, -1)).detach()

    def f(e):
        return model.base_model(inputs_embeds=e, use_cache=False).last_hidden_state[0, -1, :]

    jac = torch.autograd.functional.jacobian(f, emb)  # d x 1 x L x d
    return jac[:, 0].pow(2).sum(dim=(0, 2)).sqrt().numpy()


def test_exact_route_equals_full_jacobian(llama64):
    model, settings = llama64
    ids = _ids(settings["vocab_size"])
    exact = ms.influence_profile(model, ids, exact=True)
    full = _full_jacobian_norms(model, ids)
    np.testing.assert_allclose(exact, full, rtol=FLOAT64_TOL, atol=0)
    # the exact route in batch chunks gives the same numbers
    for chunk in (5, 1):  # batch copies of 5, and one forward with one backward per probe
        chunked = ms.influence_profile(model, ids, exact=True, chunk=chunk)
        np.testing.assert_allclose(chunked, exact, rtol=FLOAT64_TOL, atol=0)


@pytest.mark.parametrize("dist", ["rademacher", "gaussian"])
def test_probe_estimate_is_unbiased(llama64, dist):
    """E ||v^T J_j||^2 = ||J_j||_F^2 for E[v v^T] = I: the mean of K single-probe estimates
    lies within 5 standard errors of the exact value at every position (the standard error is
    estimated from the same K draws; 5 sigma over 32 positions fails by chance with
    probability below 1e-4)."""
    model, settings = llama64
    ids = _ids(settings["vocab_size"])
    exact_sq = ms.influence_profile(model, ids, exact=True, per_probe=True).sum(0)
    K = 400
    gen = torch.Generator().manual_seed(11)
    single = ms.influence_profile(model, ids, probes=K, probe_dist=dist, generator=gen,
                                  per_probe=True)
    assert single.shape == (K, L)
    mean = single.mean(0)
    se = single.std(0, ddof=1) / math.sqrt(K)
    z = np.abs(mean - exact_sq) / se
    assert z.max() < 5, (dist, z.max())
    # and the estimate is not trivially exact (the probes really are random)
    assert np.all(single.std(0) > 0)


def test_probe_profile_converges_to_exact(llama64):
    """With K = 512 Rademacher probes the normalized profile is within 6 standard errors of
    the exact normalized profile (delta method: relative error of p_j about half that of
    ||J_j||^2)."""
    model, settings = llama64
    ids = _ids(settings["vocab_size"])
    exact = ms.influence_profile(model, ids, exact=True)
    gen = torch.Generator().manual_seed(5)
    single = ms.influence_profile(model, ids, probes=512, generator=gen, per_probe=True)
    est = np.sqrt(single.mean(0))
    rel_se = single.std(0, ddof=1) / math.sqrt(512) / single.mean(0)
    p_exact = exact / exact.sum()
    p_est = est / est.sum()
    assert np.all(np.abs(p_est / p_exact - 1) < 6 * rel_se.max())
    assert np.abs(p_est / p_exact - 1).max() < 0.1


def test_top1_gradient_matches_finite_difference():
    """The top-1 probability gradient norm against a central finite difference along the
    gradient direction at one position (GPT-2 computes wholly in float64; step 1e-6: truncation
    O(h^2) and rounding ~1e-16 p / h, both far below the 1e-6 relative tolerance)."""
    model, settings = ms.build_model("tiny-gpt2", length=L, seed=3, dtype="float64")
    ids = _ids(settings["vocab_size"], length=8)
    norms = ms.influence_profile(model, ids, metric="top1-grad")
    emb = model.get_input_embeddings()(ids.view(1, -1)).detach()
    with torch.no_grad():
        def prob(e):
            h = model.base_model(inputs_embeds=e, use_cache=False).last_hidden_state[:, -1, :]
            return torch.softmax(model.get_output_embeddings()(h), -1).max().item()

        top = torch.softmax(model.get_output_embeddings()(
            model.base_model(inputs_embeds=emb, use_cache=False).last_hidden_state[:, -1, :]),
            -1).argmax().item()
    e = emb.clone().requires_grad_(True)
    h = model.base_model(inputs_embeds=e, use_cache=False).last_hidden_state[:, -1, :]
    p = torch.softmax(model.get_output_embeddings()(h), -1)[0, top]
    (g,) = torch.autograd.grad(p, e)
    j = 3
    direction = torch.zeros_like(emb)
    direction[0, j] = g[0, j] / g[0, j].norm()
    step = 1e-6
    fd = (prob(emb + step * direction) - prob(emb - step * direction)) / (2 * step)
    assert abs(fd - norms[j]) <= 1e-6 * norms[j]


# ----------------------------------------------------------------------------------------------
# lambda hooks against a hand computation of block 1 for each family

def _layer_norm(x, mod):
    mu = x.mean(-1, keepdim=True)
    var = ((x - mu) ** 2).mean(-1, keepdim=True)
    return (x - mu) / torch.sqrt(var + mod.eps) * mod.weight + mod.bias


def _rms_norm(x, mod):
    return x / torch.sqrt((x ** 2).mean(-1, keepdim=True) + mod.variance_epsilon) * mod.weight


def _causal_softmax(scores):
    n = scores.shape[-1]
    mask = torch.triu(torch.ones(n, n, dtype=torch.bool), diagonal=1)
    return torch.softmax(scores.masked_fill(mask, -math.inf), dim=-1)


def _rotate(x, theta, positions, ndims):
    """RoPE by hand on the first ``ndims`` features: pairs (i, i + ndims/2) rotated by angle
    position * theta^(-2i/ndims)."""
    half = ndims // 2
    inv = theta ** (-torch.arange(0, ndims, 2, dtype=torch.float64) / ndims)
    ang = positions[:, None].double() * inv[None, :]  # L x half
    c, s = torch.cos(ang), torch.sin(ang)
    x1, x2, rest = x[..., :half], x[..., half:ndims], x[..., ndims:]
    return torch.cat([x1 * c - x2 * s, x2 * c + x1 * s, rest], dim=-1)


def _attend(q, k, v, bias=None):
    """q, k, v: heads x L x hd -> L x (heads*hd)."""
    hd = q.shape[-1]
    scores = q @ k.transpose(-1, -2) / math.sqrt(hd)
    if bias is not None:
        scores = scores + bias
    out = _causal_softmax(scores) @ v
    return out.transpose(0, 1).reshape(q.shape[1], -1)


def _heads(x, n):
    return x.view(x.shape[0], n, -1).transpose(0, 1)


def _hand_first_block(model, settings, ids):
    """(x, a) for block 1: residual stream entering it and the attention output, by hand."""
    mt = settings["model_type"]
    H = settings["num_attention_heads"]
    pos = torch.arange(ids.shape[0])
    with torch.no_grad():
        if mt == "gpt2":
            tr = model.transformer
            x = tr.wte(ids) + tr.wpe(pos)
            blk = tr.h[0]
            y = _layer_norm(x, blk.ln_1)
            qkv = y @ blk.attn.c_attn.weight + blk.attn.c_attn.bias  # Conv1D: x W + b
            q, k, v = qkv.split(settings["hidden_size"], dim=-1)
            o = _attend(_heads(q, H), _heads(k, H), _heads(v, H))
            a = o @ blk.attn.c_proj.weight + blk.attn.c_proj.bias
        elif mt in ("llama", "qwen2"):
            inner = model.model
            x = inner.embed_tokens(ids)
            blk = inner.layers[0]
            y = _rms_norm(x, blk.input_layernorm)
            at = blk.self_attn
            q = torch.nn.functional.linear(y, at.q_proj.weight, at.q_proj.bias)
            k = torch.nn.functional.linear(y, at.k_proj.weight, at.k_proj.bias)
            v = torch.nn.functional.linear(y, at.v_proj.weight, at.v_proj.bias)
            kv = settings["num_key_value_heads"]
            hd = settings["head_dim"]
            theta = model.config.rope_parameters["rope_theta"]
            q = _rotate(_heads(q, H), theta, pos, hd)
            k = _rotate(_heads(k, kv), theta, pos, hd)
            v = _heads(v, kv)
            group = H // kv
            k = k.repeat_interleave(group, dim=0)
            v = v.repeat_interleave(group, dim=0)
            a = torch.nn.functional.linear(_attend(q, k, v), at.o_proj.weight, at.o_proj.bias)
        elif mt == "bloom":
            tr = model.transformer
            x = _layer_norm(tr.word_embeddings(ids), tr.word_embeddings_layernorm)
            blk = tr.h[0]
            y = _layer_norm(x, blk.input_layernorm)
            at = blk.self_attention
            hd = settings["head_dim"]
            fused = torch.nn.functional.linear(y, at.query_key_value.weight,
                                               at.query_key_value.bias)
            fused = fused.view(ids.shape[0], H, 3, hd)
            q, k, v = (fused[:, :, i].transpose(0, 1) for i in range(3))
            # ALiBi for a power-of-two head count: slope_h = 2^(-8 h / H), h = 1..H,
            # added as slope_h * (key position)
            slopes = torch.tensor([2.0 ** (-8 * h / H) for h in range(1, H + 1)],
                                  dtype=torch.float64)
            bias = slopes[:, None, None] * pos[None, None, :].double()
            a = torch.nn.functional.linear(_attend(q, k, v, bias), at.dense.weight, at.dense.bias)
        elif mt == "gpt_neox":
            inner = model.gpt_neox
            x = inner.embed_in(ids)
            blk = inner.layers[0]
            y = _layer_norm(x, blk.input_layernorm)
            at = blk.attention
            hd = settings["head_dim"]
            qkv = torch.nn.functional.linear(y, at.query_key_value.weight,
                                             at.query_key_value.bias)
            qkv = qkv.view(ids.shape[0], H, 3 * hd).transpose(0, 1)
            q, k, v = qkv[..., :hd], qkv[..., hd:2 * hd], qkv[..., 2 * hd:]
            rp = model.config.rope_parameters
            nd = int(hd * rp.get("partial_rotary_factor", 1.0))
            q = _rotate(q, rp["rope_theta"], pos, nd)
            k = _rotate(k, rp["rope_theta"], pos, nd)
            a = torch.nn.functional.linear(_attend(q, k, v), at.dense.weight, at.dense.bias)
            if model.config.use_parallel_residual:
                # x + a + MLP(LN2 x): the MLP enters with the attention; the unmixed part of
                # the block's output is x + MLP(LN2 x)
                x = x + blk.mlp(_layer_norm(x, blk.post_attention_layernorm))
        else:  # pragma: no cover
            raise AssertionError(mt)
    return x, a


FAMILIES = ["tiny-gpt2", "tiny-llama", "tiny-qwen2", "tiny-bloom", "tiny-gpt-neox"]


@pytest.mark.parametrize("arch", FAMILIES)
def test_lambda_hook_matches_hand_computation(arch):
    model, settings = ms.build_model(arch, length=L, seed=2, dtype="float64")
    ids = _ids(settings["vocab_size"])
    x, a = _hand_first_block(model, settings, ids)
    na, nx = a.norm(dim=-1), x.norm(dim=-1)
    lam_hand = float((na / (nx + na)).mean())
    with ms.lambda_hooks(model) as rec, torch.no_grad():
        model(input_ids=ids.view(1, -1), use_cache=False)
    assert rec.lambdas.shape == (settings["num_hidden_layers"],)
    assert abs(rec.lambdas[0] - lam_hand) <= _tol(arch) * lam_hand, (arch, rec.lambdas[0], lam_hand)
    assert np.all((rec.lambdas > 0) & (rec.lambdas < 1))


def test_bloom_residual_is_not_counted_as_attention():
    """BLOOM's attention returns x + a: the hook must read a, not x + a (which would give
    lambda near 1/2 instead of the small value of a fresh model)."""
    model, settings = ms.build_model("tiny-bloom", length=L, seed=2, dtype="float64")
    ids = _ids(settings["vocab_size"])
    x, a = _hand_first_block(model, settings, ids)
    wrong = float(((x + a).norm(dim=-1) / (x.norm(dim=-1) + (x + a).norm(dim=-1))).mean())
    with ms.lambda_hooks(model) as rec, torch.no_grad():
        model(input_ids=ids.view(1, -1), use_cache=False)
    assert abs(rec.lambdas[0] - wrong) > 0.1


# ----------------------------------------------------------------------------------------------
# RoPE patch against an explicit identity

@pytest.mark.parametrize("arch", ["tiny-qwen2", "tiny-llama"])
def test_rope_off_gives_plain_qk_scores(arch):
    results = {}
    for rope in (True, False):
        model, settings = ms.build_model(arch, length=L, seed=4, dtype="float64", rope=rope)
        ids = _ids(settings["vocab_size"])
        at = model.model.layers[0].self_attn
        seen = {}

        def keep(module, args, out, seen=seen):
            seen["w"] = out[1]  # returns None: the output is left unchanged

        h = at.register_forward_hook(keep)
        with torch.no_grad():
            model(input_ids=ids.view(1, -1), use_cache=False)
        h.remove()
        with torch.no_grad():
            y = _rms_norm(model.model.embed_tokens(ids), model.model.layers[0].input_layernorm)
            q = _heads(torch.nn.functional.linear(y, at.q_proj.weight, at.q_proj.bias),
                       settings["num_attention_heads"])
            k = _heads(torch.nn.functional.linear(y, at.k_proj.weight, at.k_proj.bias),
                       settings["num_key_value_heads"])
            k = k.repeat_interleave(settings["num_attention_heads"]
                                    // settings["num_key_value_heads"], dim=0)
            plain = _causal_softmax(q @ k.transpose(-1, -2) / math.sqrt(settings["head_dim"]))
        results[rope] = float((seen["w"][0] - plain).abs().max())
    assert results[False] <= FLOAT32_TOL * 1e-1  # RoPE off: scores are plain q . k
    assert results[True] > 1e-3  # RoPE on really rotates (the comparison can fail)


def test_rope_patch_counts_and_rejects_non_rotary():
    model, _ = ms.build_model("tiny-gpt-neox", length=L, rope=True)
    assert ms.rope_identity_patch(model) == 1
    model, _ = ms.build_model("tiny-gpt2", length=L)
    assert ms.rope_identity_patch(model) == 0
    with pytest.raises(InvalidArgument, match="rope"):
        ms.build_model("tiny-bloom", rope=False)


# ----------------------------------------------------------------------------------------------
# measurement, comparison, validation

def test_measure_influence_profile_and_determinism():
    a = ms.measure_influence("tiny-gpt-neox", length=L, probes=4, samples=2, seed=9)
    b = ms.measure_influence("tiny-gpt-neox", length=L, probes=4, samples=2, seed=9)
    assert a.profile.shape == (L,) and abs(a.profile.sum() - 1) < 1e-12
    assert np.all(a.profile > 0)
    assert a.sample_profiles.shape == (2, L)
    np.testing.assert_array_equal(a.profile, b.profile)
    np.testing.assert_array_equal(a.lambdas, b.lambdas)
    c = ms.measure_influence("tiny-gpt-neox", length=L, probes=4, samples=2, seed=10)
    assert np.abs(c.profile - a.profile).max() > 0
    d = a.as_dict()
    assert len(d["profile"]) == L and d["rope"] == "on" and len(d["lambdas"]) == 3


def test_compare_with_theory_recovers_a_planted_alpha():
    """A measurement whose profile is exactly a Cesàro rollout with alpha = 0.3 gives back
    alpha = 0.3 (to the search tolerance 1e-4, widened by the flatness of W1 near its minimum)
    with W1 ~ 0 and Spearman 1."""
    from posbias.numerics.cesaro import cesaro_profile

    planted = cesaro_profile(64, [0.3] * 6)
    alpha, w1 = mc.best_constant_alpha(planted, 6)
    assert abs(alpha - 0.3) < 1e-3 and w1 < 1e-5
    m = ms.Measurement(arch="x", settings={}, length=64, metric="jacobian", estimator="exact",
                       samples=1, seed=0, rope=True, dtype="float64", profile=planted / planted.sum(),
                       sample_profiles=planted[None, :], lambdas=np.array([0.3] * 6),
                       attention_tv=None, seconds=0.0)
    c = mc.compare_with_theory(m)
    assert c.w1_measured_lambda < 1e-12 and c.spearman_measured_lambda == 1.0
    assert c.measured["argmin"] == 63  # the minimum sits next to the final token (monotone part)


BAD = [
    (dict(arch="no-such-arch"), "arch"),
    (dict(arch="tiny-gpt2", hidden=30), "hidden"),
    (dict(arch="tiny-gpt2", length=0), "length"),
    (dict(arch="tiny-gpt2", length=1), "length"),
    (dict(arch="tiny-gpt2", probes=0), "probes"),
    (dict(arch="tiny-gpt2", samples=0), "samples"),
    (dict(arch="tiny-gpt2", seed=-1), "seed"),
    (dict(arch="tiny-gpt2", metric="nope"), "metric"),
    (dict(arch="tiny-gpt2", dtype="float16"), "dtype"),
    (dict(arch="tiny-gpt2", rope=False), "rope"),
    (dict(arch="tiny-qwen2", kv_heads=3), "kv_heads"),
    (dict(arch="tiny-gpt2", kv_heads=2), "kv_heads"),
    (dict(arch="tiny-gpt2", layers=2.5), "layers"),
    (dict(arch="tiny-qwen2", hidden=36, heads=12), "hidden"),  # head_dim 3: odd for RoPE
    (dict(arch="llama"), "arch"),  # transformers' llama defaults: 6.7e9 parameters
]


@pytest.mark.parametrize("kwargs,parameter", BAD)
def test_bad_arguments(kwargs, parameter):
    with pytest.raises(InvalidArgument) as info:
        ms.measure_influence(**kwargs)
    assert info.value.parameter == parameter


def test_overrides_adjust_dependent_settings():
    s = resolve_settings(PRESETS["qwen2-0.5b"], heads=7, hidden=448)
    assert s["num_key_value_heads"] == 1 and s["head_dim"] == 64
    s = resolve_settings(PRESETS["qwen2-0.5b"], heads=12, hidden=384)  # group 7 does not divide 12
    assert 12 % s["num_key_value_heads"] == 0 and s["num_key_value_heads"] == 1
    s = resolve_settings(PRESETS["qwen2-0.5b"], heads=28, hidden=896)
    assert s["num_key_value_heads"] == 4
    s = resolve_settings(PRESETS["gpt2"], length=2048)
    assert s["max_position_embeddings"] == 2048
    model, s = ms.build_model("gpt2", layers=1, hidden=64, heads=4, vocab=64, length=8)
    assert model.config.n_inner == 256 and model.config.n_layer == 1 and not model.training


@pytest.mark.parametrize("arch", ["gpt2", "llama", "bloom"])
def test_parameter_count_is_the_built_models(arch):
    """The planners' parameter count is the model's own (tied embeddings counted once), not a
    formula: GPT-2 ties its output layer to the embedding and LLaMA does not."""
    shape = dict(layers=2, hidden=32, heads=4, vocab=96, length=16)
    model, _ = ms.build_model(arch, **shape)
    assert ms.parameter_count(arch, **shape) == sum(p.numel() for p in model.parameters())
    formula = 96 * 32 * 2 + 2 * 12 * 32 ** 2 + 16 * 32  # the planners' former estimate
    assert ms.parameter_count(arch, **shape) != formula


def test_generic_model_type_is_supported():
    m = ms.measure_influence("mistral", layers=2, hidden=32, heads=4, kv_heads=2, vocab=64,
                             length=16, probes=2)
    assert m.lambdas.shape == (2,) and m.settings["rotary"]
    assert abs(m.profile.sum() - 1) < 1e-12


def test_needs_extra_without_torch(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)
    with pytest.raises(NeedsExtra) as info:
        ms.require_models_extra()
    assert info.value.extra == "models" and info.value.module == "torch"
    monkeypatch.setitem(sys.modules, "torch", torch)
    monkeypatch.setitem(sys.modules, "transformers", None)
    with pytest.raises(NeedsExtra) as info:
        ms.measure_influence("tiny-gpt2")
    assert info.value.module == "transformers"
