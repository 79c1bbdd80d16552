"""Windows of exactly ``L`` tokens of real text, tokenized with the model's own tokenizer.

Sources: a plain-text file (one document), a ``.jsonl`` file (one JSON object per line with a
string field ``text``; each line is a document), or a directory (its ``.txt``, ``.text``, ``.md``
and ``.jsonl`` files, recursively, in sorted path order).

Windows: each document is tokenized on its own with the tokenizer's defaults; when the tokenizer
adds special tokens in front of a text (a BOS token), every window starts with those tokens
followed by ``L - k`` consecutive text tokens, otherwise a window is ``L`` consecutive text
tokens.  Windows are cut without overlap from the start of each document; a remainder shorter
than a window is dropped and documents are never joined, so no window contains padding or a
document boundary.  ``samples`` windows are drawn without replacement, uniformly from *all*
windows of the whole corpus, by reservoir sampling in stream order (Algorithm R: the ``k``-th
candidate, 0-based, ``k >= samples``, replaces slot ``u`` of the reservoir when
``u = rng.integers(0, k + 1) < samples``, ``rng = numpy.random.default_rng(seed)``), and
returned in stream order.  Every window of every document has the same chance
``samples / candidates`` and the memory held is ``samples`` windows however large the corpus;
the whole corpus is tokenized once.  The same files, tokenizer and seed give the same windows.

Paper: herasimchyk2026 (measured input-token influence on real text windows).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from posbias.errors import InvalidArgument
from posbias.validation import read_text_bounded

__all__ = ["MAX_DOCUMENT_CHARS", "MAX_TEXT_FILE_BYTES", "TEXT_SUFFIXES", "TextWindows",
           "read_documents", "text_windows"]

TEXT_SUFFIXES = (".txt", ".text", ".md", ".jsonl")

#: the largest text file read (each file of a folder is bounded on its own)
MAX_TEXT_FILE_BYTES = 512 * 2**20
#: the longest document handed to a tokenizer at once: a fast tokenizer holds about 100 bytes
#: per character while it encodes (a 160 MiB text took 16.5 GiB with a word-level tokenizer),
#: so a document of 16 Mi characters needs about 1.6 GiB
MAX_DOCUMENT_CHARS = 16 * 2**20


def _bounded(doc: str, where: str) -> str:
    if len(doc) > MAX_DOCUMENT_CHARS:
        raise InvalidArgument("text", where, f"documents of at most {MAX_DOCUMENT_CHARS:,} "
                              f"characters each (this one has {len(doc):,}; a tokenizer holds "
                              "about 100 bytes a character at once: split it into files or "
                              ".jsonl lines)")
    return doc


@dataclass
class TextWindows:
    """``ids``: an ``N x L`` int64 array of token ids; ``prefix``: the special tokens the
    tokenizer puts in front of a text (every window starts with them); ``files`` read,
    ``documents`` tokenized, ``candidates`` (windows in the whole corpus) and ``indices`` (each
    row's place among them) for the record."""

    ids: np.ndarray
    prefix: list
    source: str
    files: int
    documents: int
    candidates: int
    seed: int
    #: the 0-based stream index (over all windows of the corpus, in document order) of each row
    indices: list[int] = field(default_factory=list)

    def describe(self) -> str:
        pre = f", each starting with special token(s) {self.prefix}" if self.prefix else ""
        return (f"{self.ids.shape[0]} window(s) of {self.ids.shape[1]} tokens from {self.source} "
                f"({self.files} file(s), {self.documents} document(s), {self.candidates} "
                f"windows in all, drawn uniformly with seed {self.seed}{pre})")


def _files(path: str) -> list[str]:
    if os.path.exists(path) and not os.path.isdir(path):
        return [path]  # a file or a special file: read_text_bounded decides
    if os.path.isdir(path):
        out = []
        for root, dirs, names in os.walk(path):
            dirs.sort()
            out += [os.path.join(root, n) for n in sorted(names)
                    if n.lower().endswith(TEXT_SUFFIXES) and not n.startswith(".")]
        if not out:
            raise InvalidArgument("text", path, "a directory holding " + ", ".join(TEXT_SUFFIXES)
                                  + " files")
        return out
    raise InvalidArgument("text", path, "an existing text file, .jsonl file or directory")


def read_documents(path: str | os.PathLike[str]) -> Iterator[tuple[str, str]]:
    """Yield ``(file, document text)`` for every document under ``path`` (see the module
    docstring).  A ``.jsonl`` line that is not a JSON object with a string ``text``, and a
    document longer than :data:`MAX_DOCUMENT_CHARS` characters, raise
    :class:`~posbias.errors.InvalidArgument` naming the file (and line)."""
    path = os.fspath(path)
    for name in _files(path):
        # regular files only (a FIFO in a text folder would block forever, a device never
        # ends), at most MAX_TEXT_FILE_BYTES each, counted on the bytes read
        text = read_text_bounded(name, MAX_TEXT_FILE_BYTES, "text")
        if name.lower().endswith(".jsonl"):
            for k, line in enumerate(text.splitlines(), 1):
                if not line.strip():
                    continue
                try:
                    obj = json.loads(line)
                except (ValueError, RecursionError):  # not JSON, 5000-digit integers, nesting
                    obj = None
                if not isinstance(obj, dict) or not isinstance(obj.get("text"), str):
                    raise InvalidArgument("text", f"{name}:{k}",
                                          "JSON lines with a string field 'text'")
                yield name, _bounded(obj["text"], f"{name}:{k}")
        else:
            yield name, _bounded(text, name)


def _prefix(tokenizer: Any) -> list[int]:
    """The special tokens the tokenizer puts in front of a text (a BOS), found by comparing the
    encodings of a probe text with and without special tokens."""
    probe = "a"
    bare = tokenizer(probe, add_special_tokens=False)["input_ids"]
    full = tokenizer(probe)["input_ids"]
    for k in range(len(full) - len(bare) + 1):
        if full[k:k + len(bare)] == bare:
            return list(full[:k])
    return []


def text_windows(tokenizer: Any, path: str | os.PathLike[str], *, length: int, samples: int,
                 seed: int = 0, progress: Callable[[str], object] | None = None) -> TextWindows:
    """``samples`` token windows of exactly ``length`` tokens from the text under ``path``.

    Parameters: ``tokenizer`` a transformers tokenizer; ``path`` a file or directory;
    ``length`` integer >= 2; ``samples`` integer >= 1; ``seed`` integer >= 0; ``progress`` an
    optional callable receiving a line every 1000 documents.  Too little text
    raises :class:`~posbias.errors.InvalidArgument` naming ``samples`` (or ``text`` when no
    document is long enough) with the number of windows found.
    """
    for name, value, lo in (("length", length, 2), ("samples", samples, 1), ("seed", seed, 0)):
        if isinstance(value, bool) or not isinstance(value, int) or value < lo:
            raise InvalidArgument(name, value, f"an integer >= {lo}")
    path = os.fspath(path)
    prefix = _prefix(tokenizer)
    body = length - len(prefix)
    if body < 1:
        raise InvalidArgument("length", length, f"an integer > {len(prefix)} (the tokenizer's "
                              "prefix tokens)")
    rng = np.random.default_rng(seed)
    reservoir: list[tuple[int, list[int]]] = []   # (stream index, window), at most ``samples``
    files: set[str] = set()
    docs = seen = 0
    for name, doc in read_documents(path):
        files.add(name)
        docs += 1
        ids = tokenizer(doc, add_special_tokens=False, verbose=False)["input_ids"]
        for start in range(0, len(ids) - body + 1, body):
            if seen < samples:
                reservoir.append((seen, prefix + list(ids[start:start + body])))
            else:
                u = int(rng.integers(0, seen + 1))
                if u < samples:
                    reservoir[u] = (seen, prefix + list(ids[start:start + body]))
            seen += 1
        if progress is not None and docs % 1000 == 0:
            progress(f"text: {docs} document(s) read, {seen} windows")
    if not seen:
        raise InvalidArgument("text", path, f"text with at least one document of {body} tokens "
                              f"(L = {length}); {docs} document(s) read")
    if seen < samples:
        raise InvalidArgument("samples", samples, f"at most {seen} (the windows of "
                              f"{length} tokens in {path})")
    reservoir.sort(key=lambda item: item[0])
    ids = np.array([w for _, w in reservoir], dtype=np.int64)
    return TextWindows(ids, prefix, path, len(files), docs, seen, seed,
                       [k for k, _ in reservoir])
