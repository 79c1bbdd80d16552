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


def test_plots_go_through_the_one_writer(tmp_path):
    """A link is followed (the link stays), a device is refused, the picture gets the umask."""
    import os
    import stat

    target = tmp_path / "real.png"
    target.write_bytes(b"old")
    link = tmp_path / "link.png"
    link.symlink_to(target)
    plot_profile(PROFILE, link)
    assert link.is_symlink() and target.read_bytes()[:4] == b"\x89PNG"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.png", "real.png"]
    fifo = tmp_path / "pipe.png"
    os.mkfifo(fifo)
    with pytest.raises(InvalidArgument, match="regular file"):
        check_plot_path(str(fifo))
    with pytest.raises(InvalidArgument, match="regular file"):
        plot_profile(PROFILE, fifo)
    os.unlink(fifo)
    old = os.umask(0o022)
    try:
        plot_profile(PROFILE, tmp_path / "new.png")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "new.png").stat().st_mode) == 0o644


def test_linear_axis_when_the_shape_fits_and_log_otherwise(tmp_path, monkeypatch):
    from matplotlib.figure import Figure

    scales = []
    real = Figure.savefig

    def spy(self, *a, **k):
        scales.append([ax.get_yscale() for ax in self.axes])
        return real(self, *a, **k)

    monkeypatch.setattr(Figure, "savefig", spy)
    u = np.array([0.3, 0.05, 0.02, 0.03, 0.6])
    plot_profile(u, tmp_path / "u.png", attention_only=np.array([1 - 4e-20, 1e-20, 1e-20, 1e-20, 1e-20]))
    plot_profile(np.array([0.9, 1e-12, 1e-13, 0.1]), tmp_path / "v.png")
    assert scales == [["linear", "log"], ["log"]]


def test_heatmap_goes_through_the_atomic_writer(tmp_path):
    """The heatmap follows a symbolic link (the link stays), leaves no temporary file, and two
    writers in one folder never share a temporary name."""
    import os

    pytest.importorskip("matplotlib")
    from posbias.render.heatmap import plot_heatmap

    target = tmp_path / "real.png"
    target.write_bytes(b"")
    link = tmp_path / "link.png"
    os.symlink(target, link)
    rows = [{"a": a, "h": h, "r": 10.0 ** (a * h)} for a in (0.5, 1.0) for h in (1, 2)]
    plot_heatmap(rows, "a", "h", ["r"], str(link))
    assert link.is_symlink() and target.stat().st_size > 1000
    assert sorted(os.listdir(tmp_path)) == ["link.png", "real.png"]
    fifo = tmp_path / "pipe.png"
    os.mkfifo(fifo)
    with pytest.raises(InvalidArgument):
        plot_heatmap(rows, "a", "h", ["r"], str(fifo))
