r"""wu2025's in-context classification task and its 2-layer self-attention network, in torch.

**The task** (wu2025 section 5, after Reddy 2024).  A *world* holds ``K`` classes with means
:math:`\mu_k \sim N(0, d^{-2} I_d)`, ``L`` label vectors :math:`\ell_c \sim N(0, d^{-2} I_d)` and
one label per class, :math:`c(k)` uniform on ``0..L-1``.  A training sequence draws
``n / B`` distinct classes, repeats each ``B`` times, arranges the ``n`` items in a uniformly
random order and writes each item as

.. math::  x = (\mu_k + \gamma z) / \sqrt{1 + \gamma^2},  \qquad z \sim N(0, d^{-2} I_d),

followed by its label vector :math:`\ell_{c(k)}`; a final *query* is a fresh draw of the class
at the *answer position* (uniform on ``0..n-1``, or fixed for position-biased training).  With
``n = 8`` the sequence has ``2n + 1 = 17`` tokens (item ``i`` at token ``2i``, its label at
``2i + 1``, the query at token ``2n``) and the target is the query class's label, read at the
last token.

**The test sets** ``IC_X_Y`` (``X, Y`` in first = item 0, middle = item ``n/2``, last = item
``n-1``) use *novel* classes (fresh means and fresh label assignments over the same label
vectors): the answer sits at ``X``, and item ``Y`` is overwritten with an exact copy of item
``X`` while its label is left alone.  ``Acc(X_Y) - Acc(Y_X) > 0`` means a preference for ``X``.
Here ``X_Y`` and ``Y_X`` are built from the *same* base sequences (paired), so their difference
has a smaller sampling error than two independent sets of the same size.  The copy conflicts
with the answer when the class at ``Y`` differs from the class at ``X`` and the two classes'
labels differ: with ``n = 8, B = 4, L = 32`` that is ``4/7 * 31/32 = 0.5536``.  The plain
in-context test (:func:`in_context_set`) has novel classes and no overwriting: a network that
copies one of the two labels present at random scores ``1/2 + 1/(2L) = 0.516``.

**The network** (wu2025's code, ``SAN``): two single-head self-attention layers
``softmax(q k^T / sqrt(d) + log M) v`` (query, key, value projections without bias, no output
projection, no normalization), residual connections ``x <- x + attn(x)`` (switchable), the
last token's vector through three ``Linear + ReLU`` layers and a linear read-out to ``L`` labels.
Masks: ``causal``, ``full``, ``window:W`` (token ``i`` reads ``i-W+1..i``), ``prefix:K`` (the
first ``K`` tokens read each other, later tokens are causal), ``decay:M`` (causal with the
additive score ``-M (i - j)``, i.e. weights ``e^{-M(i-j)}`` before normalization; wu2025 uses
``M = -ln 0.8``).  Positional encodings: ``none``, ``sin`` (sinusoidal, added to the input),
``rope`` (rotary, on queries and keys of every layer, pairs of adjacent coordinates, base
10000).

Differences from wu2025's public code, on purpose: the generator works on whole batches as
tensors from one seeded ``torch.Generator`` (the public code loops over samples in Python and
draws class labels from an unseeded generator); residual connections are *on* by default (the
public code's flag is inverted: it trains without them unless ``--not_res`` is passed); the
decay is a mask (the public ``--pe decay`` does nothing); each test sequence draws two novel
classes instead of ``K``.

torch is the ``models`` extra, imported inside the functions here.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING, Any

from posbias.errors import InvalidArgument, NeedsExtra
from posbias.validation import check_choice, check_integer, check_real

if TYPE_CHECKING:  # torch is the optional ``models`` extra, imported where it is used
    from torch import Generator, Tensor
    from torch.nn import Module

__all__ = [
    "MASKS",
    "POSITIONAL_ENCODINGS",
    "POSITIONS",
    "TEST_PAIRS",
    "ICLTask",
    "World",
    "attention_mask",
    "build_network",
    "final_position_influence",
    "in_context_set",
    "make_world",
    "paired_test_sets",
    "parse_mask",
    "train_batch",
]

MASKS = ("causal", "full", "window", "prefix", "decay")
POSITIONAL_ENCODINGS = ("none", "sin", "rope")
#: the three compared pairs (X, Y): Acc(X_Y) - Acc(Y_X) > 0 is a preference for X
TEST_PAIRS = (("first", "middle"), ("first", "last"), ("middle", "last"))
#: answer positions of the training bias and of the test sets, as item indices for n items
POSITIONS = ("first", "middle", "last")


def _torch():
    try:
        import torch  # the models extra
    except ImportError:
        raise NeedsExtra("models", "torch") from None
    return torch


@dataclass(frozen=True)
class ICLTask:
    """The constants of the in-context classification task (wu2025's defaults).

    ``classes`` K, ``labels`` L, ``dim`` d, ``burst`` B (copies of each class), ``items`` n,
    ``gamma`` the within-class noise level γ.
    """

    classes: int = 2048
    labels: int = 32
    dim: int = 64
    burst: int = 4
    items: int = 8
    gamma: float = 0.75

    def __post_init__(self) -> None:
        check_integer("classes", self.classes, 2)
        check_integer("labels", self.labels, 2)
        check_integer("dim", self.dim, 2)
        check_integer("items", self.items, 2)
        check_integer("burst", self.burst, 1, self.items)
        if self.items % self.burst:
            raise InvalidArgument("burst", self.burst, f"a divisor of items = {self.items}")
        if self.items // self.burst > self.classes:
            raise InvalidArgument("classes", self.classes, f"at least items/burst = {self.items // self.burst}")
        check_real("gamma", self.gamma, 0)

    @property
    def length(self) -> int:
        """Tokens per sequence: ``2n + 1``."""
        return 2 * self.items + 1

    def position(self, name: str) -> int:
        """Item index of ``first`` (0), ``middle`` (n/2) or ``last`` (n-1)."""
        check_choice("position", name, POSITIONS)
        return {"first": 0, "middle": self.items // 2, "last": self.items - 1}[name]

    def as_dict(self) -> dict:
        return {"classes": self.classes, "labels": self.labels, "dim": self.dim,
                "burst": self.burst, "items": self.items, "gamma": self.gamma}


@dataclass
class World:
    """The fixed part of the task: class means ``(K, d)``, label vectors ``(L, d)`` and the
    label of each class ``(K,)``."""

    task: ICLTask
    means: Tensor
    label_vectors: Tensor
    class_labels: Tensor


def parse_mask(text: str) -> tuple[str, float | int | None]:
    """``"causal"``, ``"full"``, ``"window:W"``, ``"prefix:K"`` or ``"decay:M"`` as
    ``(kind, parameter)``.

    >>> parse_mask("window:4")
    ('window', 4)
    >>> parse_mask("decay:0.25")
    ('decay', 0.25)
    >>> parse_mask("banded")
    Traceback (most recent call last):
    ...
    posbias.errors.InvalidArgument: mask = banded is invalid: expected causal, full, window:W (W >= 1), prefix:K (K >= 1) or decay:M (M > 0)
    """
    allowed = "causal, full, window:W (W >= 1), prefix:K (K >= 1) or decay:M (M > 0)"
    if not isinstance(text, str):
        raise InvalidArgument("mask", text, allowed)
    kind, _, arg = text.partition(":")
    if kind in ("causal", "full") and not arg:
        return kind, None
    value: int | float
    try:
        if kind in ("window", "prefix"):
            value = int(arg)
            if value >= 1 and str(value) == arg.strip():
                return kind, value
        elif kind == "decay":
            value = float(arg)
            if math.isfinite(value) and value > 0:
                return kind, value
    except ValueError:
        pass
    raise InvalidArgument("mask", text, allowed)


def make_world(task: ICLTask, generator: Generator) -> World:
    """Draw the class means, label vectors and class labels from ``generator``."""
    torch = _torch()
    s = 1.0 / task.dim
    means = torch.randn(task.classes, task.dim, generator=generator) * s
    label_vectors = torch.randn(task.labels, task.dim, generator=generator) * s
    class_labels = torch.randint(0, task.labels, (task.classes,), generator=generator)
    return World(task, means, label_vectors, class_labels)


def _arrangement(torch: ModuleType, task: ICLTask, size: int, generator: Generator) -> Tensor:
    """``(size, n)`` slot -> which of the ``n/B`` drawn classes: a uniformly random order of
    the multiset with each class ``B`` times (argsort of i.i.d. uniforms is a uniform
    permutation)."""
    perm = torch.rand(size, task.items, generator=generator).argsort(dim=1)
    return perm // task.burst


def _distinct_classes(torch: ModuleType, task: ICLTask, size: int, generator: Generator) -> Tensor:
    """``(size, n/B)`` distinct class indices, uniform over ordered tuples of distinct classes."""
    m = task.items // task.burst
    if m > 2:  # the m largest of K i.i.d. uniforms: a uniform ordered m-subset
        return torch.rand(size, task.classes, generator=generator).topk(m, dim=1).indices
    first = torch.randint(0, task.classes, (size,), generator=generator)
    if m == 1:
        return first.view(-1, 1)
    shift = torch.randint(1, task.classes, (size,), generator=generator)
    return torch.stack([first, (first + shift) % task.classes], dim=1)


def _noisy(torch: ModuleType, task: ICLTask, means: Tensor, generator: Generator) -> Tensor:
    z = torch.randn(means.shape, generator=generator) / task.dim
    return (means + task.gamma * z) / math.sqrt(1.0 + task.gamma ** 2)


def _assemble(torch, items, labels, query):
    """Interleave ``items (b, n, d)`` and ``labels (b, n, d)`` and append ``query (b, d)``."""
    b, n, d = items.shape
    seq = torch.stack([items, labels], dim=2).reshape(b, 2 * n, d)
    return torch.cat([seq, query.unsqueeze(1)], dim=1)


def train_batch(world: World, batch: int, generator: Generator, answer: str = "none",
                ) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """A batch of training sequences ``(batch, 2n+1, d)`` and targets ``(batch,)``.

    ``answer`` is ``"none"`` (the answer-bearing item is uniform on ``0..n-1``: unbiased
    training) or ``"first"``, ``"middle"``, ``"last"`` (position-biased training).
    Also returns the answer positions ``(batch,)`` and the class of every item ``(batch, n)``
    so that the statistics of the process can be tested.
    """
    torch = _torch()
    task = world.task
    check_choice("answer", answer, ("none", *POSITIONS))
    chosen = _distinct_classes(torch, task, batch, generator)           # (b, n/B)
    slot = _arrangement(torch, task, batch, generator)                  # (b, n)
    cls = chosen.gather(1, slot)                                        # (b, n)
    if answer == "none":
        pos = torch.randint(0, task.items, (batch,), generator=generator)
    else:
        pos = torch.full((batch,), task.position(answer), dtype=torch.long)
    qcls = cls.gather(1, pos.view(-1, 1)).squeeze(1)
    items = _noisy(torch, task, world.means[cls], generator)
    query = _noisy(torch, task, world.means[qcls], generator)
    labels = world.label_vectors[world.class_labels[cls]]
    x = _assemble(torch, items, labels, query)
    return x, world.class_labels[qcls], pos, cls


def _novel_base(torch: ModuleType, world: World, size: int, generator: Generator,
                ) -> tuple[Tensor, Tensor, Tensor, Tensor, Tensor]:
    """Base sequences over novel classes: items ``(s, n, d)``, label ids ``(s, n)``, the class
    slot of each item ``(s, n)``, the novel means ``(s, n/B, d)`` and their labels ``(s, n/B)``."""
    task = world.task
    m = task.items // task.burst
    means = torch.randn(size, m, task.dim, generator=generator) / task.dim
    labs = torch.randint(0, task.labels, (size, m), generator=generator)
    slot = _arrangement(torch, task, size, generator)
    item_means = means.gather(1, slot.unsqueeze(-1).expand(-1, -1, task.dim))
    items = _noisy(torch, task, item_means, generator)
    item_labels = labs.gather(1, slot)
    return items, item_labels, slot, means, labs


def _query(torch, world, means, labs, qslot, generator):
    task = world.task
    qmean = means.gather(1, qslot.view(-1, 1, 1).expand(-1, 1, task.dim)).squeeze(1)
    query = _noisy(torch, task, qmean, generator)
    target = labs.gather(1, qslot.view(-1, 1)).squeeze(1)
    return query, target


def paired_test_sets(world: World, x: str, y: str, size: int, generator: Generator,
                     ) -> tuple[tuple[Tensor, Tensor], tuple[Tensor, Tensor], Tensor]:
    """The test sets ``IC_X_Y`` and ``IC_Y_X`` built from the same novel base sequences.

    ``IC_X_Y``: the query is a fresh draw of the class at item ``X`` (the answer), item ``Y``
    is overwritten with an exact copy of item ``X``, labels unchanged.  Returns
    ``((inputs_xy, targets_xy), (inputs_yx, targets_yx), conflict)`` where ``conflict`` is the
    boolean ``(size,)`` tensor "the label at Y differs from the answer's label" (the same for
    both sets).
    """
    torch = _torch()
    task = world.task
    check_integer("size", size, 1)
    ix, iy = task.position(x), task.position(y)
    if ix == iy:
        raise InvalidArgument("y", y, f"a position other than x = {x}")
    items, item_labels, slot, means, labs = _novel_base(torch, world, size, generator)
    zq = torch.randn(size, task.dim, generator=generator) / task.dim
    out = []
    for a, b in ((ix, iy), (iy, ix)):
        it = items.clone()
        it[:, b] = items[:, a]
        qslot = slot[:, a]
        qmean = means.gather(1, qslot.view(-1, 1, 1).expand(-1, 1, task.dim)).squeeze(1)
        query = (qmean + task.gamma * zq) / math.sqrt(1.0 + task.gamma ** 2)
        target = labs.gather(1, qslot.view(-1, 1)).squeeze(1)
        lab_vec = world.label_vectors[item_labels]
        out.append((_assemble(torch, it, lab_vec, query), target))
    conflict = item_labels[:, ix] != item_labels[:, iy]
    return out[0], out[1], conflict


def in_context_set(world: World, size: int, generator: Generator) -> tuple[Tensor, Tensor]:
    """The plain in-context test: novel classes, the answer item uniform, no overwriting.
    Returns ``(inputs, targets)``."""
    torch = _torch()
    task = world.task
    check_integer("size", size, 1)
    items, item_labels, slot, means, labs = _novel_base(torch, world, size, generator)
    pos = torch.randint(0, task.items, (size,), generator=generator)
    qslot = slot.gather(1, pos.view(-1, 1)).squeeze(1)
    query, target = _query(torch, world, means, labs, qslot, generator)
    return _assemble(torch, items, world.label_vectors[item_labels], query), target


def attention_mask(kind: str, parameter: float | int | None, length: int) -> Tensor:
    """The additive ``(length, length)`` score mask: 0 on allowed edges, ``-inf`` elsewhere,
    ``-M (i - j)`` on causal edges for ``decay``."""
    torch = _torch()
    check_choice("mask", kind, MASKS)
    i = torch.arange(length).view(-1, 1)
    j = torch.arange(length).view(1, -1)
    if parameter is None and kind in ("window", "prefix", "decay"):
        raise InvalidArgument("parameter", parameter, f"the width or slope of a {kind} mask")
    if kind == "full":
        allowed = torch.ones(length, length, dtype=torch.bool)
    elif kind == "causal" or kind == "decay":
        allowed = j <= i
    elif kind == "window":
        assert parameter is not None  # refused above
        allowed = (j <= i) & (j > i - int(parameter))
    else:  # prefix
        assert parameter is not None  # refused above
        k = int(parameter)
        allowed = (j <= i) | ((i < k) & (j < k))
    mask = torch.zeros(length, length).masked_fill(~allowed, float("-inf"))
    if kind == "decay":
        assert parameter is not None  # refused above
        mask = mask - float(parameter) * (i - j).clamp(min=0).to(mask.dtype)
    return mask


def _sinusoid(torch: ModuleType, length: int, dim: int) -> Tensor:
    pos = torch.arange(length, dtype=torch.float32).view(-1, 1)
    freq = torch.exp(torch.arange(0, dim, 2, dtype=torch.float32) * (-math.log(10000.0) / dim))
    table = torch.zeros(length, dim)
    table[:, 0::2] = torch.sin(pos * freq)
    table[:, 1::2] = torch.cos(pos * freq)
    return table


def _rotary(torch: ModuleType, length: int, dim: int) -> tuple[Tensor, Tensor]:
    """cos and sin tables ``(length, dim/2)`` of the rotation by angle ``p * base^{-2i/dim}``."""
    theta = 10000.0 ** (-torch.arange(0, dim, 2, dtype=torch.float32) / dim)
    angle = torch.arange(length, dtype=torch.float32).view(-1, 1) * theta.view(1, -1)
    return torch.cos(angle), torch.sin(angle)


@functools.cache
def _network_class():
    torch = _torch()
    nn = torch.nn
    module: Any = nn.Module  # torch is imported here, not at module level

    class ICLNetwork(module):
        """wu2025's 2-layer self-attention network (see the module docstring)."""

        def __init__(self, task: ICLTask, mask: str, pe: str, residual: bool, layers: int,
                     mlp_layers: int):
            super().__init__()
            kind, param = parse_mask(mask)
            d, length = task.dim, task.length
            if pe == "rope" and d % 2:
                raise InvalidArgument("pe", pe, f"none or sin for an odd dim = {d}")
            self.residual = residual
            self.pe = pe
            self.scale = 1.0 / math.sqrt(d)
            self.register_buffer("mask", attention_mask(kind, param, length), persistent=False)
            self.register_buffer("sinusoid", _sinusoid(torch, length, d), persistent=False)
            cos, sin = _rotary(torch, length, d)
            self.register_buffer("cos", cos, persistent=False)
            self.register_buffer("sin", sin, persistent=False)
            self.q = nn.ModuleList(nn.Linear(d, d, bias=False) for _ in range(layers))
            self.k = nn.ModuleList(nn.Linear(d, d, bias=False) for _ in range(layers))
            self.v = nn.ModuleList(nn.Linear(d, d, bias=False) for _ in range(layers))
            self.mlp = nn.ModuleList(nn.Linear(d, d) for _ in range(mlp_layers))
            self.readout = nn.Linear(d, task.labels)

        def _rotate(self, t):
            # pairs (2i, 2i+1) rotated by the angle of their position and frequency
            n = t.shape[-2]
            a, b = t[..., 0::2], t[..., 1::2]
            c, s = self.cos[:n], self.sin[:n]
            return torch.stack([a * c - b * s, a * s + b * c], dim=-1).flatten(-2)

        def encode(self, x):
            """The attention stack: ``(b, T, d) -> (b, T, d)``."""
            n = x.shape[-2]
            if self.pe == "sin":
                x = x + self.sinusoid[:n]
            mask = self.mask[:n, :n]
            for q, k, v in zip(self.q, self.k, self.v):
                qs, ks = q(x), k(x)
                if self.pe == "rope":
                    qs, ks = self._rotate(qs), self._rotate(ks)
                scores = qs @ ks.transpose(-2, -1) * self.scale + mask
                update = torch.softmax(scores, dim=-1) @ v(x)
                x = x + update if self.residual else update
            return x

        def forward(self, x):
            h = self.encode(x)[..., -1, :]
            for layer in self.mlp:
                h = torch.relu(layer(h))
            return self.readout(h)

    return ICLNetwork


def build_network(task: ICLTask, mask: str = "causal", pe: str = "none", residual: bool = True,
                  layers: int = 2, mlp_layers: int = 3) -> Module:
    """wu2025's self-attention network for ``task`` (torch's default initialization, drawn from
    torch's global generator: seed it with ``torch.manual_seed`` for a reproducible network)."""
    parse_mask(mask)
    check_choice("pe", pe, POSITIONAL_ENCODINGS)
    check_integer("layers", layers, 1)
    check_integer("mlp_layers", mlp_layers, 0)
    if not isinstance(residual, bool):
        raise InvalidArgument("residual", residual, "True or False")
    return _network_class()(task, mask, pe, residual, layers, mlp_layers)


def final_position_influence(network: Module, inputs: Tensor) -> Tensor:
    r"""Jacobian influence profile of the final position after the attention stack.

    For each sequence, :math:`\|\partial h_T / \partial x_j\|_F` for every token ``j = 1..T``
    (``h_T`` the last token's vector leaving the attention layers, before the MLP), exact
    (the full ``d x d`` Jacobian per token, by reverse mode), normalized to sum 1 per sequence
    and averaged over the sequences.  The estimator is the exact route of ``posbias measure``
    (``measure_influence(..., exact=True)``) applied to this network.  Returns a float64 numpy
    array of length ``T``.
    """
    torch = _torch()
    with torch.enable_grad():
        x = inputs.detach().clone().requires_grad_(True)
        # encode: a method of the network build_network makes (torch's stubs: Tensor | Module)
        h = network.encode(x)[:, -1, :]  # type: ignore[operator]  # (b, d)
        sq = torch.zeros(x.shape[0], x.shape[1], dtype=torch.float64)
        d = h.shape[-1]
        for c in range(d):  # one backward pass per output coordinate (rows of the Jacobian)
            (g,) = torch.autograd.grad(h[:, c].sum(), x, retain_graph=c < d - 1)
            sq += g.cpu().double().pow(2).sum(-1)            # sequences are independent
    norms = sq.sqrt()                                        # (b, T): ||dh_T/dx_j||_F
    prof = norms / norms.sum(dim=1, keepdim=True)
    return prof.mean(dim=0).detach().numpy()
