"""The natural-text corpus: reST stripped to prose, a deterministic recipe (same hash twice) and
held-out split from a small fake source tree and, where python3.11-doc is installed, from the
real one; a clear error naming the package when the sources are missing."""

from __future__ import annotations

import os

import pytest

from posbias.errors import InvalidArgument
from posbias.measurements import corpus as co

PROSE = ("The quick brown fox reads the :func:`~os.path.join` documentation, then the "
         "``print`` builtin and :ref:`the tutorial <tut-intro>`.  ") * 6


def fake_tree(root, n=6):
    for k in range(n):
        section = "tutorial" if k % 2 else "library"
        os.makedirs(root / section, exist_ok=True)
        (root / section / f"page{k}.rst.txt").write_text(
            f".. _label-{k}:\n\nPage {k}\n=======\n\n{PROSE}\n\nExample::\n\n   x = {k}\n")
    os.makedirs(root / "c-api", exist_ok=True)
    (root / "c-api" / "skipped.rst.txt").write_text(PROSE)
    (root / "library" / "tiny.rst.txt").write_text("Too short.\n")


@pytest.mark.parametrize("rst, plain", [
    ("Title\n=====\n\nSome *emphasis* and **strong** text.\n", "Title\nSome emphasis and strong text."),
    ("Use :func:`~os.path.join` or :meth:`str.split`, :ref:`the guide <g>`, :pep:`8`.\n",
     "Use join or str.split, the guide, PEP 8."),
    ("See ``x = 1`` and `Python <https://python.org>`_ [#]_.\n", "See x = 1 and Python."),
    ("For example::\n\n   >>> 1 + 1\n   2\n\nAfter.\n", "For example:\nAfter."),
    ("A paragraph:\n\n::\n\n    code()\n\nNext.\n", "A paragraph:\nNext."),
    (".. code-block:: python\n\n   import os\n\nProse.\n", "Prose."),
    (".. note::\n\n   Kept note text.\n", "Kept note text."),
    (".. function:: f(x)\n   :noindex:\n\n   Return *x*.\n", "Return x."),
    (".. index:: single: thing\n\n.. This is a comment\n   over two lines.\n\nText.\n", "Text."),
    ("+---+---+\n| a | b |\n+---+---+\n\n=== ===\nx   y\n=== ===\n1   2\n=== ===\n\nEnd.\n",
     "End."),
    ("* item one\n  continues\n* item two\n", "item one continues\nitem two"),
    (">>> x = 1\n>>> x\n1\n\nDone.\n", "Done."),
])
def test_strip_rest_examples(rst, plain):
    assert co.strip_rest(rst) == plain


def test_fake_tree_is_deterministic_with_a_recipe(tmp_path):
    fake_tree(tmp_path)
    a = co.build_corpus(str(tmp_path), min_chars=100, held_out_every=3)
    b = co.build_corpus(str(tmp_path), min_chars=100, held_out_every=3)
    assert a == b
    r = a.recipe
    assert r["documents"] == 6 and r["train_documents"] + r["held_out_documents"] == 6
    assert r["held_out_documents"] == 2 and len(r["sha256"]) == 64
    assert r["characters"] == sum(map(len, a.train + a.held_out))
    assert r["package"] == "python3.11-doc"
    assert all(p.startswith(("library/", "tutorial/")) for p in a.train_paths + a.held_out_paths)
    assert a.train_paths == sorted(a.train_paths)
    assert "::" not in a.train[0] and "x = " not in a.train[0] and "join" in a.train[0]
    # a different text is a different hash
    (tmp_path / "library" / "page0.rst.txt").write_text(PROSE + "One more sentence.\n")
    assert co.build_corpus(str(tmp_path), min_chars=100, held_out_every=3).recipe["sha256"] \
        != r["sha256"]


def test_max_documents_and_too_few(tmp_path):
    fake_tree(tmp_path)
    c = co.build_corpus(str(tmp_path), min_chars=100, max_documents=3)
    assert c.recipe["documents"] == 3
    with pytest.raises(InvalidArgument, match=r"^corpus = .*at least 2 documents"):
        co.build_corpus(str(tmp_path), min_chars=10**6)


def test_missing_source_names_the_package(tmp_path):
    with pytest.raises(InvalidArgument, match=r"^corpus = .*python3\.11-doc"):
        co.build_corpus(str(tmp_path / "absent"))


@pytest.mark.skipif(not os.path.isdir(co.CORPUS_SOURCE),
                    reason=f"{co.CORPUS_SOURCE} absent (Debian package python3.11-doc)")
def test_real_sources_are_deterministic():
    a = co.build_corpus(max_documents=40)
    b = co.build_corpus(max_documents=40)
    assert a.recipe == b.recipe and a.recipe["documents"] == 40
    assert a.recipe["package_version"] is None or a.recipe["package_version"][0].isdigit()
    lines = "\n".join(a.train).splitlines()
    assert not any(":func:`" in ln or ln.startswith((".. ", "===", "---", ">>>")) for ln in lines)


def test_a_word_the_bpe_trainer_cannot_afford_is_refused_naming_the_file(tmp_path):
    """A run of more than MAX_WORD_CHARS characters without whitespace (the BPE trainer's time
    grows faster than linearly in it: a 1,000,000-character word ran past 300 s) is refused
    before any training, naming the file and where the word starts; one just within passes."""
    fake_tree(tmp_path)
    within = tmp_path / "library" / "within.rst.txt"
    within.write_text(PROSE + "x" * co.MAX_WORD_CHARS + " end.\n")
    assert co.build_corpus(str(tmp_path), min_chars=100).recipe["documents"] == 7
    (tmp_path / "library" / "word.rst.txt").write_text(PROSE + "y" * (co.MAX_WORD_CHARS + 5) + "\n")
    with pytest.raises(InvalidArgument, match=r"^corpus = .*word\.rst\.txt is invalid: expected "
                       r"prose whose words are at most 10,000 characters long \(one of 10,005 "
                       r"starts at character"):
        co.build_corpus(str(tmp_path), min_chars=100)


def test_a_corpus_beyond_its_bound_is_refused_before_tokenizing(tmp_path, monkeypatch):
    """The corpus is bounded in characters (MAX_CORPUS_CHARS, 64 Mi: about five times the
    Python documentation), counted as documents are read: the refusal names the directory and
    --max-documents.  Exercised with the bound lowered to the fake tree's size."""
    fake_tree(tmp_path)
    total = co.build_corpus(str(tmp_path), min_chars=100).recipe["characters"]
    monkeypatch.setattr(co, "MAX_CORPUS_CHARS", total)
    assert co.build_corpus(str(tmp_path), min_chars=100).recipe["characters"] == total
    monkeypatch.setattr(co, "MAX_CORPUS_CHARS", total - 1)
    with pytest.raises(InvalidArgument, match=r"^corpus = .* is invalid: expected at most "
                       r"[0-9,]+ characters of prose \(the documents up to .* hold [0-9,]+; choose "
                       r"fewer with --max-documents\)"):
        co.build_corpus(str(tmp_path), min_chars=100)
