"""Ablations of a randomly initialized model (:mod:`posbias.measurements.ablation`): names
checked and ordered, each ablation changing exactly the tensors it names and nothing else (the
rest of the weights, the inputs and the probes stay paired with the unablated run), uniform
attention exactly the Cesàro matrix, the settings recording what was ablated."""

import numpy as np
import pytest

from posbias.errors import InvalidArgument
from posbias.measurements.ablation import ABLATIONS, ablate, check_ablations, check_ablations_for

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from posbias.measurements import measure as ms  # noqa: E402


def test_names_checked_and_ordered():
    assert check_ablations(" no-mlp , uniform-attention,no-mlp") == ("uniform-attention", "no-mlp")
    assert check_ablations(["identity-activation"]) == ("identity-activation",)
    assert check_ablations("") == () and check_ablations(None) == ()
    assert check_ablations(",".join(reversed(ABLATIONS))) == ABLATIONS
    with pytest.raises(InvalidArgument, match="ablate = no-attention"):
        check_ablations("no-mlp,no-attention")
    with pytest.raises(InvalidArgument, match="ablate = no-positions"):
        check_ablations_for("qwen2", "no-positions")
    with pytest.raises(InvalidArgument, match="no ablation for bloom"):
        check_ablations_for("bloom", "no-mlp")
    assert check_ablations_for("gpt2", "no-positions") == ("no-positions",)


def _changed(arch, parts):
    """Names of the parameters that ``parts`` changes, and the ablated model."""
    base, _ = ms.build_model(arch, length=16, seed=3)
    model, _ = ms.build_model(arch, length=16, seed=3)
    assert ablate(model, parts) == check_ablations(parts)
    b = dict(base.named_parameters())
    changed = {n for n, p in model.named_parameters() if not torch.equal(p, b[n])}
    return changed, model


@pytest.mark.parametrize("arch,parts,expected", [
    ("tiny-gpt2", "uniform-attention", {"c_attn.weight", "c_attn.bias"}),
    ("tiny-gpt2", "no-mlp", {"mlp.c_proj.weight", "mlp.c_proj.bias"}),
    ("tiny-gpt2", "no-positions", {"wpe.weight"}),
    ("tiny-qwen2", "uniform-attention", {"k_proj.weight", "k_proj.bias"}),
    ("tiny-qwen2", "no-mlp", {"mlp.down_proj.weight"}),
])
def test_each_ablation_changes_only_its_tensors(arch, parts, expected):
    changed, model = _changed(arch, parts)
    assert changed and all(any(n.endswith(e) for e in expected) for n in changed), changed
    layers = model.config.num_hidden_layers
    if parts != "no-positions":  # every block's weight changed (biases start at zero)
        weight = next(e for e in expected if e.endswith("weight"))
        assert sum(n.endswith(weight) for n in changed) == layers, changed
    if parts == "uniform-attention" and arch == "tiny-gpt2":
        d = model.config.n_embd
        for blk in model.transformer.h:  # the keys are zero, the queries and values are not
            w = blk.attn.c_attn.weight
            assert not w[:, d:2 * d].any() and w[:, :d].any() and w[:, 2 * d:].any()


def test_identity_activation_and_no_mlp_act_on_the_mlp():
    _, model = _changed("tiny-gpt2", "identity-activation")
    x = torch.randn(1, 3, model.config.n_embd)
    mlp = model.transformer.h[0].mlp
    assert isinstance(mlp.act, torch.nn.Identity)
    assert torch.allclose(mlp(x), mlp.c_proj(mlp.c_fc(x)))  # the linear map W_2 W_1
    _, model = _changed("tiny-qwen2", "no-mlp")
    mlp = model.model.layers[0].mlp
    assert not mlp(torch.randn(1, 3, model.config.hidden_size)).any()


@pytest.mark.parametrize("arch", ["tiny-gpt2", "tiny-qwen2"])
def test_uniform_attention_is_exactly_cesaro(arch):
    """With the keys zeroed every row of causal attention is uniform: the measured TV from the
    Cesàro matrix is zero in every layer (and it is not without the ablation)."""
    m = ms.measure_influence(arch, length=16, probes=2, samples=1, seed=1,
                             ablate="uniform-attention")
    assert m.settings["ablate"] == ["uniform-attention"]
    assert np.max(m.attention_tv) < 1e-6
    plain = ms.measure_influence(arch, length=16, probes=2, samples=1, seed=1)
    assert "ablate" not in plain.settings and np.max(plain.attention_tv) > 1e-3
