"""Profile plots: PNG and PDF by suffix, overlays, bad input, the missing extra."""

import sys

import numpy as np
import pytest

from posbias.errors import InvalidArgument, NeedsExtra
from posbias.render.plots import check_plot_path, plot_profile

PROFILE = np.array([0.4, 0.1, 0.02, 0.01, 0.015, 0.03, 0.425])


@pytest.mark.parametrize("suffix, magic", [(".png", b"\x89PNG"), (".pdf", b"%PDF"), (".PNG", b"\x89PNG")])
def test_writes_png_and_pdf(tmp_path, suffix, magic):
    out = plot_profile(PROFILE, tmp_path / ("p" + suffix), title="t", attention_only=np.eye(7)[0] * 0.9
                       + np.full(7, 0.1 / 7), continuum=lambda x: 1.0 / max(x, 1e-9) ** 0.5)
    with open(out, "rb") as fh:
        assert fh.read(4) == magic


def test_continuum_as_array_and_zeros_in_profile(tmp_path):
    p = np.array([0.9, 0.0, 0.0, 1e-200, 0.1 - 1e-200])
    out = plot_profile(p, tmp_path / "z.png", continuum=np.array([5.0, 1.0, 0.5, 0.2, 0.1]))
    assert (tmp_path / "z.png").stat().st_size > 1000 and out.endswith("z.png")


@pytest.mark.parametrize("name", ["p.svg", "p", "p.png.txt"])
def test_bad_suffix(tmp_path, name):
    with pytest.raises(InvalidArgument):
        plot_profile(PROFILE, tmp_path / name)
    with pytest.raises(InvalidArgument):
        check_plot_path(str(tmp_path / name))


def test_bad_overlays_and_profiles(tmp_path):
    with pytest.raises(InvalidArgument):
        plot_profile(PROFILE, tmp_path / "a.png", attention_only=[1.0, 0.0])
    with pytest.raises(InvalidArgument):
        plot_profile(PROFILE, tmp_path / "a.png", continuum=[1.0])
    with pytest.raises(InvalidArgument):
        plot_profile([0.5, float("nan")], tmp_path / "a.png")
    with pytest.raises(InvalidArgument):
        plot_profile([], tmp_path / "a.png")
    with pytest.raises(InvalidArgument):
        check_plot_path(str(tmp_path / "no-such-dir" / "a.png"))


def test_missing_matplotlib_names_the_extra(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(NeedsExtra) as e:
        plot_profile(PROFILE, tmp_path / "a.png")
    assert e.value.extra == "plot"
