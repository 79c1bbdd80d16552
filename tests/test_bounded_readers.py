"""Every input file goes through one bounded reader (posbias.validation.read_bounded): regular
files only, a byte cap counted on the bytes read, one line naming the file.  Devices, FIFOs
(which would block forever) and huge sparse files are refused before anything is read."""

from __future__ import annotations

import os

import pytest

from posbias.errors import InvalidArgument
from posbias.validation import read_bounded, read_json_bounded, read_text_bounded


@pytest.fixture
def fifo(tmp_path):
    path = tmp_path / "corpus.txt"
    os.mkfifo(path)
    return path


@pytest.fixture
def sparse(tmp_path):
    path = tmp_path / "huge.txt"
    with open(path, "wb") as fh:  # 2 GiB that occupy no disk: only the size is reported
        fh.truncate(2 * 2**30)
    return path


def test_reader_refuses_special_and_huge_files(fifo, sparse, tmp_path):
    with pytest.raises(InvalidArgument, match=r"^text = .*a regular file"):
        read_bounded(fifo, 100, "text")
    with pytest.raises(InvalidArgument, match=r"^text = /dev/zero is invalid: expected a regular"):
        read_bounded("/dev/zero", 100, "text")
    with pytest.raises(InvalidArgument, match="at most 1 MiB"):
        read_bounded(sparse, 2**20, "text")
    bad = tmp_path / "latin1.txt"
    bad.write_bytes("caf\xe9".encode("latin-1"))
    with pytest.raises(InvalidArgument, match="UTF-8 text"):
        read_text_bounded(bad, 100, "text")
    good = tmp_path / "ok.txt"
    good.write_text("Cesàro", encoding="utf-8")
    assert read_text_bounded(good, 100, "text") == "Cesàro"


def test_text_folder_with_a_fifo_is_refused_naming_it(fifo, tmp_path):
    from posbias.measurements.text import read_documents

    (tmp_path / "a.txt").write_text("some prose", encoding="utf-8")
    with pytest.raises(InvalidArgument, match=r"^text = .*corpus\.txt is invalid: expected a regular"):
        list(read_documents(tmp_path))
    with pytest.raises(InvalidArgument, match=r"^text = /dev/zero"):
        list(read_documents("/dev/zero"))


def test_a_document_longer_than_a_tokenizer_affords_is_refused_naming_file_and_line(tmp_path):
    """A fast tokenizer holds about 100 bytes a character while it encodes (a 160 MiB text took
    16.5 GiB and aborted on smaller machines): a document beyond MAX_DOCUMENT_CHARS (16 Mi
    characters) is refused before it reaches the tokenizer, in a .txt file and in a .jsonl
    line; one at the bound passes.  A .jsonl line nested too deeply or holding a 5000-digit
    integer is refused like any line that is not a JSON object."""
    import json

    from posbias.measurements.text import MAX_DOCUMENT_CHARS, read_documents

    at = tmp_path / "at.txt"
    at.write_text("a " * (MAX_DOCUMENT_CHARS // 2), encoding="utf-8")
    assert [len(d) for _, d in read_documents(at)] == [MAX_DOCUMENT_CHARS]
    big = tmp_path / "big.txt"
    big.write_text("a " * (MAX_DOCUMENT_CHARS // 2) + "b", encoding="utf-8")
    with pytest.raises(InvalidArgument, match=r"^text = .*big\.txt is invalid: expected documents "
                       r"of at most 16,777,216 characters each \(this one has 16,777,217;"):
        list(read_documents(big))
    lines = tmp_path / "docs.jsonl"
    lines.write_text(json.dumps({"text": "short"}) + "\n"
                     + json.dumps({"text": "c" * (MAX_DOCUMENT_CHARS + 1)}) + "\n", encoding="utf-8")
    with pytest.raises(InvalidArgument, match=r"^text = .*docs\.jsonl:2 is invalid: expected documents"):
        list(read_documents(lines))
    for bad in ("[" * 100_000 + "]" * 100_000, '{"text": ' + "9" * 5000 + "}"):
        lines.write_text(bad + "\n", encoding="utf-8")
        with pytest.raises(InvalidArgument, match=r"^text = .*docs\.jsonl:1 is invalid: expected JSON lines"):
            list(read_documents(lines))


def test_schedule_file_and_sweep_spec_and_data_dir_are_bounded(fifo, sparse, tmp_path):
    from posbias.numerics.schedules import parse_schedule
    from posbias.proofs_checks.pretrained import read_influence_csv
    from posbias.proofs_checks.sweeps import load_sweep

    with pytest.raises(InvalidArgument, match=r"^alpha = file:/dev/zero is invalid: expected a regular"):
        parse_schedule("file:/dev/zero", 4, parameter="alpha")
    with pytest.raises(InvalidArgument, match="at most 16 MiB"):
        parse_schedule(f"file:{sparse}", 4, parameter="alpha")
    with pytest.raises(InvalidArgument, match=r"^SPEC = "):
        load_sweep(str(fifo))
    with pytest.raises(InvalidArgument, match=r"^measured influence = .*a regular file"):
        read_influence_csv(str(fifo))


# ------------------------------------------------------------------- numbers never change silently
def test_underflowing_values_are_refused_on_every_route(tmp_path):
    from fractions import Fraction

    from posbias.numerics.schedules import list_schedule
    from posbias.proofs_checks.sweeps import load_sweep

    tiny = Fraction(1, 10**400)
    with pytest.raises(InvalidArgument, match="underflows to 0"):
        list_schedule([tiny, Fraction(1, 2)], parameter="alpha").floats()
    assert list_schedule([tiny], parameter="alpha").exact() == (tiny,)  # exact path keeps it
    spec = tmp_path / "grid.yaml"
    for value, message in (("1e-400", "would become 0.0"), ("1e400", "would become inf"),
                           ('"1e-400"', "underflows to 0")):
        spec.write_text(f"command: profile\ngrid:\n  alpha: [{value}, 0.5]\n"
                        "fixed:\n  length: 16\n  depth: 2\n")
        with pytest.raises(InvalidArgument, match=message):
            load_sweep(str(spec))
    spec.write_text("command: profile\ngrid:\n  alpha: [0.0, 0.5]\nfixed:\n  length: 16\n  depth: 2\n")
    assert load_sweep(str(spec))  # a zero written as zero is a zero


def test_api_refuses_absurd_head_counts_and_malformed_profiles():
    from posbias.numerics.alibi import alibi_slopes
    from posbias.validation import check_profile

    with pytest.raises(InvalidArgument, match=r"^num_heads = 1000000000 is invalid"):
        alibi_slopes(10**9)  # refused before a 10^9-entry list is built
    assert len(alibi_slopes(112)) == 112
    for bad, where in (([], "profile"), ([0.5, float("nan")], r"profile\[1\]"),
                       ([0.5, True], r"profile\[1\]"), ([1j], r"profile\[0\]"),
                       ([[0.5, 0.5]], "profile"), ([-0.1, 1.1], r"profile\[0\]")):
        with pytest.raises(InvalidArgument, match=f"^{where} = "):
            check_profile("profile", bad)


def test_rollout_configs_named_anywhere_are_bounded(fifo, tmp_path, capsys):
    from posbias.cli import main
    from posbias.numerics.configs import load_config

    with pytest.raises(InvalidArgument, match=r"^config = .*a regular file"):
        load_config(str(fifo))
    spec = tmp_path / "grid.yaml"
    spec.write_text(f"command: rollout\ngrid:\n  config: [{fifo}]\n")
    code = main(["sweep", str(spec), "-o", str(tmp_path / "t.csv"), "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "corpus.txt" in err


@pytest.mark.parametrize("text, why", [
    ('{"x": NaN}', "NaN"), ('[Infinity]', "Infinity"), ('[-Infinity]', "Infinity"),
    ("[" * 100000 + "]" * 100000, "nested"), ('{"x": ', "strict JSON"),
])
def test_json_reader_is_strict(tmp_path, text, why):
    path = tmp_path / "doc.json"
    path.write_text(text)
    with pytest.raises(InvalidArgument) as exc:
        read_json_bounded(path, 2**20, "--merge")
    assert why in str(exc.value) and "--merge" in str(exc.value)
    assert len(str(exc.value).splitlines()) == 1


def test_json_reader_bounds(fifo, sparse, tmp_path):
    for path in (fifo, sparse):
        with pytest.raises(InvalidArgument):
            read_json_bounded(path, 2**20, "--merge")
    (tmp_path / "ok.json").write_text('{"a": [1, 2.5e-3]}')
    assert read_json_bounded(tmp_path / "ok.json", 2**20) == {"a": [1, 2.5e-3]}
