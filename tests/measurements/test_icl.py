"""The vectorized in-context generator against the process it stands for (wu2025 section 5),
the network's masks and positional encodings, and the influence estimator."""

from __future__ import annotations

import math

import pytest

torch = pytest.importorskip("torch")

from posbias.errors import InvalidArgument  # noqa: E402
from posbias.measurements import icl  # noqa: E402

TASK = icl.ICLTask()


@pytest.fixture(autouse=True)
def _one_thread():
    """Small tensors: one thread is faster, and the machine is shared."""
    old = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(old)


def _world(seed=0):
    return icl.make_world(TASK, torch.Generator().manual_seed(seed))


def _items(x):
    return x[:, 0:2 * TASK.items:2], x[:, 1:2 * TASK.items:2], x[:, -1]


def _label_ids(w, labels):
    """Index of each label token among the label vectors (exact match)."""
    ids = torch.cdist(labels.reshape(-1, 64), w.label_vectors).argmin(-1)
    assert torch.equal(w.label_vectors[ids], labels.reshape(-1, 64))
    return ids.view(labels.shape[:2])


def test_sequence_layout_and_class_multiplicity():
    w = _world()
    x, y, pos, cls = icl.train_batch(w, 512, torch.Generator().manual_seed(1))
    assert x.shape == (512, 17, 64) and y.shape == (512,)
    _, labels, _ = _items(x)
    # two distinct classes per sequence, each exactly B = 4 times
    for row in cls:
        values, counts = row.unique(return_counts=True)
        assert len(values) == 2 and counts.tolist() == [4, 4]
    # every label token is the label vector of its item's class
    assert torch.equal(labels, w.label_vectors[w.class_labels[cls]])
    # the target is the label of the class at the answer position
    assert torch.equal(y, w.class_labels[cls.gather(1, pos.view(-1, 1)).squeeze(1)])


def test_world_label_multiplicity_is_uniform():
    # K = 2048 classes, L = 32 labels: counts multinomial with mean 64; chi-square, 31 dof,
    # below its 0.999 quantile 61.1
    w = _world(3)
    counts = torch.bincount(w.class_labels, minlength=TASK.labels).double()
    chi2 = float(((counts - 64) ** 2 / 64).sum())
    assert chi2 < 61.1
    # class means and label vectors have entries N(0, 1/d^2)
    assert abs(float(w.means.std()) * TASK.dim - 1) < 0.02


def test_answer_positions_uniform_and_biased():
    w = _world()
    g = torch.Generator().manual_seed(2)
    _, _, pos, _ = icl.train_batch(w, 16000, g)
    counts = torch.bincount(pos, minlength=8).double()
    chi2 = float(((counts - 2000) ** 2 / 2000).sum())
    assert chi2 < 24.3  # chi-square, 7 dof, 0.999 quantile
    for name, index in (("first", 0), ("middle", 4), ("last", 7)):
        _, _, pos, _ = icl.train_batch(w, 64, g, answer=name)
        assert (pos == index).all()


def test_cosine_of_same_class_items():
    # items (mu + gamma z)/sqrt(1 + gamma^2) with |mu|^2 ~ |z|^2: cos ~ 1/(1 + gamma^2) = 0.64
    w = _world()
    x, _, _, cls = icl.train_batch(w, 4000, torch.Generator().manual_seed(4))
    items, _, _query = _items(x)
    unit = items / items.norm(dim=-1, keepdim=True)
    same = cls[:, 0:1] == cls
    cos = (unit * unit[:, 0:1]).sum(-1)
    same_cos = cos[:, 1:][same[:, 1:]].mean()
    other_cos = cos[:, 1:][~same[:, 1:]].mean()
    assert abs(float(same_cos) - 1 / (1 + 0.75 ** 2)) < 0.02
    assert abs(float(other_cos)) < 0.01


def test_test_sets_copy_and_conflict_rate():
    w = _world()
    size = 20000
    (xy, t_xy), (yx, t_yx), conflict = icl.paired_test_sets(
        w, "first", "last", size, torch.Generator().manual_seed(5))
    ix, iy = 0, 7
    items, labels, _ = _items(xy)
    # item Y is an exact copy of item X; labels are left alone
    assert torch.equal(items[:, iy], items[:, ix])
    items2, labels2, _ = _items(yx)
    assert torch.equal(items2[:, ix], items2[:, iy])
    assert torch.equal(labels, labels2)
    # the target is the label at the answer position X (for IC_X_Y) and at Y (for IC_Y_X)
    lab_id = _label_ids(w, labels)
    assert torch.equal(t_xy, lab_id[:, ix]) and torch.equal(t_yx, lab_id[:, iy])
    # conflict: class at Y differs (4/7) and its label differs (31/32): 0.5536
    rate = float(conflict.double().mean())
    expected = 4 / 7 * 31 / 32
    assert abs(rate - expected) < 4 * math.sqrt(expected * (1 - expected) / size)
    assert abs(rate - 0.554) < 0.012


def test_in_context_set_uses_novel_classes():
    w = _world()
    x, t = icl.in_context_set(w, 2000, torch.Generator().manual_seed(6))
    items, labels, _query = _items(x)
    # novel means: no item is close to any training class mean (which the training items are)
    d = torch.cdist(items[:50].reshape(-1, 64), w.means).min(dim=1).values
    xt, _, _, _ = icl.train_batch(w, 50, torch.Generator().manual_seed(7))
    dt = torch.cdist(_items(xt)[0].reshape(-1, 64), w.means).min(dim=1).values
    assert float(d.mean()) > 1.2 * float(dt.mean())
    # the target label is present in the context
    lab_id = _label_ids(w, labels)
    assert (lab_id == t.view(-1, 1)).any(dim=1).all()


def test_generator_is_deterministic():
    w1, w2 = _world(9), _world(9)
    assert torch.equal(w1.means, w2.means) and torch.equal(w1.class_labels, w2.class_labels)
    a = icl.train_batch(w1, 8, torch.Generator().manual_seed(1))[0]
    b = icl.train_batch(w2, 8, torch.Generator().manual_seed(1))[0]
    assert torch.equal(a, b)


@pytest.mark.parametrize("text, kind, param", [
    ("causal", "causal", None), ("full", "full", None), ("window:3", "window", 3),
    ("prefix:2", "prefix", 2), ("decay:0.2231", "decay", 0.2231)])
def test_parse_mask(text, kind, param):
    assert icl.parse_mask(text) == (kind, param)


@pytest.mark.parametrize("text", ["causal:1", "window", "window:0", "window:1.5", "prefix:-1",
                                  "decay:0", "decay:nan", "decay:x", "", 3])
def test_parse_mask_rejects(text):
    with pytest.raises(InvalidArgument, match=r"^mask = "):
        icl.parse_mask(text)


def test_attention_masks():
    L = 6
    allowed = torch.isfinite
    causal = icl.attention_mask("causal", None, L)
    assert torch.equal(allowed(causal), torch.ones(L, L, dtype=torch.bool).tril())
    assert allowed(icl.attention_mask("full", None, L)).all()
    win = allowed(icl.attention_mask("window", 2, L))
    assert win[3].tolist() == [False, False, True, True, False, False]
    pre = allowed(icl.attention_mask("prefix", 3, L))
    assert pre[0].tolist() == [True, True, True, False, False, False]
    assert pre[4].tolist() == [True, True, True, True, True, False]
    dec = icl.attention_mask("decay", 0.5, L)
    assert float(dec[5, 1]) == pytest.approx(-2.0) and float(dec[5, 5]) == 0
    assert not torch.isfinite(dec[1, 5])


def test_full_mask_without_pe_is_a_set_function():
    torch.manual_seed(0)
    net = icl.build_network(TASK, "full", "none")
    x = torch.randn(3, 17, 64) / 64
    perm = torch.cat([torch.randperm(16), torch.tensor([16])])
    with torch.no_grad():
        assert torch.allclose(net(x), net(x[:, perm]), atol=1e-6)
    torch.manual_seed(0)
    causal = icl.build_network(TASK, "causal", "none")
    with torch.no_grad():
        assert not torch.allclose(causal(x), causal(x[:, perm]), atol=1e-4)


def test_rope_rotates_pairs_and_keeps_norms():
    torch.manual_seed(0)
    net = icl.build_network(TASK, "causal", "rope")
    t = torch.randn(2, 17, 64)
    r = net._rotate(t)
    assert torch.allclose(r.norm(dim=-1), t.norm(dim=-1), atol=1e-5)
    assert torch.equal(r[:, 0], t[:, 0])  # position 0: angle 0
    # relative property: <R_p q, R_s k> depends only on p - s
    q, k = torch.randn(64), torch.randn(64)
    Q, K = net._rotate(q.expand(17, 64)), net._rotate(k.expand(17, 64))
    assert float(Q[5] @ K[3]) == pytest.approx(float(Q[12] @ K[10]), rel=1e-4)


def test_residual_off_and_bad_arguments():
    torch.manual_seed(0)
    net = icl.build_network(TASK, "causal", "sin", residual=False)
    assert net(torch.randn(2, 17, 64)).shape == (2, 32)
    with pytest.raises(InvalidArgument, match=r"^pe = "):
        icl.build_network(TASK, "causal", "alibi")
    with pytest.raises(InvalidArgument, match=r"^residual = "):
        icl.build_network(TASK, "causal", "none", residual="on")
    with pytest.raises(InvalidArgument, match=r"^burst = "):
        icl.ICLTask(items=8, burst=3)


def test_final_position_influence_matches_finite_differences():
    torch.manual_seed(0)
    net = icl.build_network(TASK, "causal", "none").double()
    x = (torch.randn(1, 17, 64) / 8).double()
    prof = icl.final_position_influence(net, x)
    assert prof.shape == (17,) and abs(prof.sum() - 1) < 1e-12
    # ||dh_T/dx_j||_F by central differences on each coordinate of token j
    eps = 1e-6
    norms = []
    for j in (0, 8, 16):
        cols = []
        for c in range(64):
            e = torch.zeros_like(x)
            e[0, j, c] = eps
            with torch.no_grad():
                cols.append((net.encode(x + e)[0, -1] - net.encode(x - e)[0, -1]) / (2 * eps))
        norms.append(float(torch.stack(cols).norm()))
    with torch.no_grad():
        jac = torch.autograd.functional.jacobian(lambda z: net.encode(z)[0, -1], x)
    full = jac.pow(2).sum(dim=(0, 1, 3)).sqrt()
    for j, n in zip((0, 8, 16), norms):
        assert float(full[j]) == pytest.approx(n, rel=1e-6)
        assert prof[j] == pytest.approx(float(full[j] / full.sum()), rel=1e-9)
    # causal: the final position is influenced by every token
    assert (prof > 0).all()
