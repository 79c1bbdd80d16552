"""Plots name only what the data show: the primacy tail, recency spike, valley and the
attention-only collapse appear in a picture exactly when the profile drawn has them by the stated
thresholds (PEAK_FACTOR, COLLAPSE_SHARE); otherwise the picture gives the measured figure."""

import numpy as np
import pytest

from posbias.render import plots
from posbias.render.plots import COLLAPSE_SHARE, PEAK_FACTOR, features, plot_profile

L = 128


def _texts(monkeypatch, tmp_path, profile, **kwargs):
    """Every title, annotation and text of the figure plot_profile draws."""
    from matplotlib.figure import Figure

    seen = []
    real = Figure.savefig

    def spy(self, *a, **k):
        out = [t.get_text() for t in self.texts]
        if self._suptitle is not None:
            out.append(self._suptitle.get_text())
        for ax in self.axes:
            out += [ax.get_title(), ax.get_xlabel(), ax.get_ylabel()]
            out += [t.get_text() for t in ax.texts]
        seen.append("\n".join(out))
        return real(self, *a, **k)

    monkeypatch.setattr(Figure, "savefig", spy)
    plot_profile(profile, tmp_path / "p.png", **kwargs)
    assert len(seen) == 1
    return seen[0]


def _u_shape():
    j = np.arange(1, L + 1)
    u = 1.0 / j + 3.0 / (L + 1 - j)
    return u / u.sum()


def _flat_attention_only(p1=0.0075):
    """A flat attention-only curve with p(1) = p1 (the rest of the mass on the last token),
    the shape an exported tiny BLOOM config gives."""
    att = np.full(L, p1)
    att[-1] = 1 - p1 * (L - 1)
    return att


def test_flat_attention_only_curve_gets_no_collapse_title(monkeypatch, tmp_path):
    att = _flat_attention_only()
    assert att[0] == pytest.approx(0.0075) and att.sum() == pytest.approx(1)
    text = _texts(monkeypatch, tmp_path, _u_shape(), attention_only=att)
    assert "collapse" in text  # the neutral title says there is none ...
    assert "collapses" not in text and "no collapse onto token 1" in text
    assert "p(1) = 0.0075 of the mass" in text  # ... and gives the measured share


def test_collapsing_attention_only_curve_is_titled_so(monkeypatch, tmp_path):
    j = np.arange(L)
    att = np.exp(-3.0 * j)
    att /= att.sum()
    assert att[0] > COLLAPSE_SHARE
    text = _texts(monkeypatch, tmp_path, _u_shape(), attention_only=att)
    assert "attention only collapses onto token 1 (p(1) = 0.95 of the mass)" in text


def test_collapse_threshold_is_the_stated_share():
    below = [COLLAPSE_SHARE, 1 - COLLAPSE_SHARE]  # exactly the share: not more than it
    above = [COLLAPSE_SHARE + 1e-9, 1 - COLLAPSE_SHARE - 1e-9]
    assert "collapses" not in plots.attention_only_title(below)
    assert "collapses" in plots.attention_only_title(above)


def test_nearly_flat_profile_gets_no_primacy_tail_spike_or_valley(monkeypatch, tmp_path):
    flat = np.ones(L)
    flat[0], flat[-1] = 1.004, 1.002
    flat /= flat.sum()
    f = features(flat)
    assert f.first_over_min == pytest.approx(1.004) and not (f.primacy_tail or f.recency_spike or f.valley)
    text = _texts(monkeypatch, tmp_path, flat)
    assert "primacy" not in text and "spike" not in text and "valley" not in text
    assert "p(1)/min = 1.004" in text and "p(L)/min = 1.002" in text and "minimum: argmin j = 2" in text


def test_u_shaped_profile_gets_all_three_names(monkeypatch, tmp_path):
    u = _u_shape()
    f = features(u)
    assert f.primacy_tail and f.recency_spike and f.valley and 1 < f.argmin < L
    text = _texts(monkeypatch, tmp_path, u)
    assert "primacy tail" in text and "recency spike" in text and f"valley: argmin j = {f.argmin}" in text
    assert f"p(1)/min = {f.first_over_min:.4g}" in text


@pytest.mark.parametrize("ratio, named", [(PEAK_FACTOR, False), (PEAK_FACTOR * 1.01, True), (1.004, False),
                                          (40.0, True)])
def test_each_feature_uses_the_stated_factor(ratio, named):
    mid = np.ones(9)
    head = mid.copy()
    head[0] = ratio  # p(1)/min = ratio, minimum at j = 2 .. L (first of them: j = 2)
    assert features(head).primacy_tail is named
    assert not features(head).recency_spike and not features(head).valley
    tail = mid.copy()
    tail[-1] = ratio
    assert features(tail).recency_spike is named and not features(tail).primacy_tail
    both = mid.copy()
    both[0] = both[-1] = ratio
    assert features(both).valley is named


def test_monotone_profile_has_no_valley_at_its_end():
    decreasing = 1.0 / np.arange(1, 20)
    f = features(decreasing)
    assert f.primacy_tail and f.argmin == 19 and not f.valley and not f.recency_spike


def test_all_zero_profile_has_no_features(tmp_path):
    assert features(np.zeros(4)) is None
    plot_profile(np.zeros(4), tmp_path / "z.png")  # draws, names nothing
