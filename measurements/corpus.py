r"""A natural-text corpus built offline and reproducibly from installed files: the
reStructuredText sources of the Python documentation, turned into plain English prose.

**Source.**  The Debian package ``python3.11-doc`` installs the Sphinx sources of the Python
3.11 documentation under ``/usr/share/doc/python3.11/html/_sources`` (497 ``.rst.txt`` files,
12 MB); ``.ci/run`` installs it (``apt-get install python3-doc``).  Nothing is downloaded: the
same package version gives the same corpus, and the recipe records the version and a content
hash so that a run names exactly the text it was trained on.

**Subset** (:data:`SECTIONS`): ``tutorial``, ``howto``, ``faq``, ``reference``, ``library`` and
``whatsnew``, the parts written as running English prose (about 9.6 MB of sources).  Left out:
``c-api``, ``extending`` (mostly C declarations and C code), ``distutils``, ``install``,
``distributing`` and ``installing`` (deprecated tooling, option lists), ``using`` (command-line
listings) and the top-level pages (license texts, the table of contents).

**Plain text** (:func:`strip_rest`), line by line: directives (``.. name::``) are dropped with
their options; the body of a directive that holds prose (notes, warnings, version notes and the
descriptions of functions, classes, methods, attributes, ...; :data:`PROSE_DIRECTIVES`) is kept,
the body of any other directive (code blocks, index entries, tables of contents, images, ...)
and of comments is dropped; a literal block after ``::`` is dropped (a paragraph ending in
``::`` keeps one colon); doctest blocks (``>>>``), grid and simple tables, heading
under/overlines, field lists and substitution definitions are dropped; list markers are
removed (each item a paragraph); inline markup keeps its text (``:func:`~os.path.join``` -> ``join``,
``:ref:`text <target>``` -> ``text``, ````literal```` -> ``literal``, ```text <url>`_`` ->
``text``, ``*emphasis*`` -> ``emphasis``; footnote references are dropped).  Whitespace inside a
paragraph collapses to one space; paragraphs are joined by one newline.  A document whose plain
text is shorter than ``min_chars`` characters (default 500: index pages, stubs) is dropped.

**Order and split.**  Documents come in the sorted order of their relative paths.  The held-out
documents (validation) are every ``held_out_every``-th document (default 10) in the order of the
SHA-256 of their relative paths, starting with the first: a fixed pseudo-random tenth that
does not depend on the text of the others, and at least one document.

**Recipe** (:attr:`Corpus.recipe`): source directory, Debian package and its installed version
(``dpkg-query``; None where dpkg is absent), sections, settings, documents and characters (all,
training, held-out) and the SHA-256 over the documents (each document's relative path and text,
in order, separated by NUL bytes).
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
from dataclasses import dataclass, field

from posbias.errors import InvalidArgument
from posbias.validation import check_integer, read_text_bounded

__all__ = [
    "CORPUS_PACKAGE",
    "CORPUS_SOURCE",
    "MAX_CORPUS_CHARS",
    "MAX_WORD_CHARS",
    "PROSE_DIRECTIVES",
    "SECTIONS",
    "Corpus",
    "build_corpus",
    "package_version",
    "strip_rest",
]

#: where python3.11-doc installs the reStructuredText sources
CORPUS_SOURCE = "/usr/share/doc/python3.11/html/_sources"
#: the Debian package that installs them
CORPUS_PACKAGE = "python3.11-doc"
#: the top-level folders read (running prose; see the module docstring)
SECTIONS = ("tutorial", "howto", "faq", "reference", "library", "whatsnew")
#: directives whose indented body is prose and is kept
PROSE_DIRECTIVES = frozenset({
    "note", "warning", "important", "tip", "hint", "caution", "attention", "danger", "error",
    "admonition", "seealso", "versionadded", "versionchanged", "deprecated",
    "deprecated-removed", "impl-detail", "topic", "sidebar", "rubric", "glossary", "epigraph",
    "function", "class", "method", "classmethod", "staticmethod", "attribute", "data",
    "exception", "decorator", "decoratormethod", "describe", "opcode", "cmdoption", "option",
    "envvar", "coroutinefunction", "coroutinemethod", "abstractmethod", "awaitablefunction",
    "pdbcommand", "centered", "container",
})

_MAX_FILE_BYTES = 16 * 2**20
#: the most characters of prose a corpus may hold (the python3.11-doc sources give about 12
#: million): the BPE trainer and the packed token ids grow with it
MAX_CORPUS_CHARS = 64 * 2**20
#: the longest run without whitespace a document may hold (the sources' longest is 168, a URL):
#: the BPE trainer's time grows faster than linearly in a word's length (2.7 s for a word of
#: 100,000 characters, more than 300 s for one of 1,000,000)
MAX_WORD_CHARS = 10_000
#: a word start followed by more than MAX_WORD_CHARS non-space characters (anchored at word
#: starts, so that the search is linear in the text)
_LONG_WORD = re.compile(r"(?<!\S)\S{" + str(MAX_WORD_CHARS + 1) + "}")
_WORD = re.compile(r"\S*")
_SUFFIX = ".rst.txt"

_DIRECTIVE = re.compile(r"^(\s*)\.\.\s+(?:\|[^|]+\|\s+)?([\w:-]+)::")
_COMMENT = re.compile(r"^(\s*)\.\.(\s|$)")
_ADORNMENT = re.compile(r"^\s*([=\-~^\"'`*+#<>:._])\1{2,}\s*$")
_SIMPLE_TABLE = re.compile(r"^\s*=+(\s+=+)+\s*$")
_GRID = re.compile(r"^\s*(\+[-=+]+\+|\|)")
_FIELD = re.compile(r"^\s*:[^:\s][^:]*:(\s|$)")
_BULLET = re.compile(r"^(\s*)(?:[*+\-•]|#\.|\(?\d+[.)]|\(?[a-zA-Z][.)])\s+")
_ROLE = re.compile(r":([\w:+-]+):`([^`]*)`")
_LINK = re.compile(r"`([^`<]*?)\s*<[^`>]*>`__?")
_REF = re.compile(r"`([^`]+)`__?")
_LITERAL = re.compile(r"``(.+?)``")
_INTERPRETED = re.compile(r"`([^`]+)`")
_STRONG = re.compile(r"\*\*(\S(?:.*?\S)?)\*\*")
_EMPHASIS = re.compile(r"(?<![\w*])\*(\S(?:.*?\S)?)\*(?![\w*])")
_FOOTNOTE = re.compile(r"\s*\[(?:#\w*|\*|\d+)\]_")
_SUBSTITUTION = re.compile(r"\|([\w .-]+)\|_?")


def _role_text(match: re.Match[str]) -> str:
    role, text = match.group(1), match.group(2)
    if role in ("pep", "rfc"):
        return f"{role.upper()} {text.split('#')[0]}"
    m = re.fullmatch(r"(.*?)\s*<[^<>]*>", text, flags=re.S)
    if m and m.group(1):
        return m.group(1)
    text = text.lstrip("!")
    if text.startswith("~"):
        text = text[1:].rsplit(".", 1)[-1]
    return text


def _inline(text: str) -> str:
    text = _FOOTNOTE.sub("", text)
    text = _ROLE.sub(_role_text, text)
    text = _LITERAL.sub(r"\1", text)
    text = _LINK.sub(r"\1", text)
    text = _REF.sub(r"\1", text)
    text = _INTERPRETED.sub(r"\1", text)
    text = _STRONG.sub(r"\1", text)
    text = _EMPHASIS.sub(r"\1", text)
    text = _SUBSTITUTION.sub(r"\1", text)
    return text.replace("\\ ", "").replace("\\", "")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def strip_rest(source: str) -> str:
    """Plain prose from reStructuredText (the rules are in the module docstring): paragraphs
    with whitespace collapsed, joined by one newline."""
    lines = source.expandtabs(8).splitlines()
    paragraphs: list[str] = []
    current: list[str] = []
    skip_deeper: int | None = None   # drop lines indented deeper than this (and blank lines)
    in_table = False

    def flush() -> None:
        if current:
            text = " ".join(_inline(" ".join(current)).split())
            if text:
                paragraphs.append(text)
            current.clear()

    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        stripped = line.strip()
        if skip_deeper is not None:
            if not stripped or _indent(line) > skip_deeper:
                continue
            skip_deeper = None
        if not stripped:
            flush()
            in_table = False
            continue
        if in_table:
            continue
        indent = _indent(line)
        m = _DIRECTIVE.match(line)
        if m:
            flush()
            name = m.group(2).rsplit(":", 1)[-1]
            if name in PROSE_DIRECTIVES:
                # the directive's own line and its options go; the body is read as text
                while i < len(lines) and _FIELD.match(lines[i]) and _indent(lines[i]) > indent:
                    i += 1
            else:
                skip_deeper = indent
            continue
        if _COMMENT.match(line):  # comments, targets (.. _name:), footnotes
            flush()
            skip_deeper = indent
            continue
        if _SIMPLE_TABLE.match(line):
            flush()
            in_table = True
            continue
        if _ADORNMENT.match(line) or _GRID.match(line) or _FIELD.match(line):
            flush()
            continue
        if stripped.startswith(">>>"):
            flush()
            in_table = True  # a doctest block runs to the next blank line
            continue
        if _BULLET.match(line):  # a list item is a paragraph of its own
            flush()
            line = _BULLET.sub(r"\1", line)
        if stripped.endswith("::"):
            text = line.rstrip()[:-2].rstrip()
            if text and not text.endswith(":"):
                text += ":"
            if text.strip():
                current.append(text)
            flush()
            skip_deeper = indent
            continue
        current.append(line)
    flush()
    return "\n".join(paragraphs)


def package_version(package: str = CORPUS_PACKAGE) -> str | None:
    """The installed version of a Debian package (``dpkg-query``), or None where dpkg is
    absent or the package is not installed."""
    try:
        res = subprocess.run(["dpkg-query", "-W", "-f=${Version}", package],
                             capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    if res.returncode != 0:
        return None
    return res.stdout.strip() or None


@dataclass
class Corpus:
    """The training and held-out documents (plain text, one string each, in order), their
    relative paths, and the :attr:`recipe` that names them."""

    train: list[str]
    held_out: list[str]
    train_paths: list[str]
    held_out_paths: list[str]
    recipe: dict = field(default_factory=dict)


def _sources(source: str, sections: tuple[str, ...]) -> list[str]:
    if not os.path.isdir(source):
        raise InvalidArgument(
            "corpus", source, f"the directory of the Python documentation sources (install "
            f"the Debian package {CORPUS_PACKAGE}: apt-get install {CORPUS_PACKAGE})")
    out = []
    for section in sections:
        top = os.path.join(source, section)
        for root, dirs, names in os.walk(top):
            dirs.sort()
            out += [os.path.relpath(os.path.join(root, n), source) for n in names
                    if n.endswith(_SUFFIX) and not n.startswith(".")]
    return sorted(p.replace(os.sep, "/") for p in out)


def build_corpus(source: str = CORPUS_SOURCE, *, sections: tuple[str, ...] = SECTIONS,
                 min_chars: int = 500, held_out_every: int = 10,
                 max_documents: int = 0) -> Corpus:
    """The corpus of the ``.rst.txt`` files under ``source``'s ``sections`` (sorted relative
    paths), as plain prose, split into training and held-out documents (module docstring).
    ``max_documents > 0`` keeps only the first that many documents (after the ``min_chars``
    filter; for quick runs).  Raises :class:`~posbias.errors.InvalidArgument` naming the
    directory and the package to install when ``source`` is missing, and when fewer than two
    documents remain."""
    min_chars = check_integer("min_chars", min_chars, 0)
    held_out_every = check_integer("held_out_every", held_out_every, 2)
    max_documents = check_integer("max_documents", max_documents, 0)
    sections = tuple(sections)
    for s in sections:
        if not s or s.startswith(".") or "/" in s or os.sep in s:
            raise InvalidArgument("sections", s, "a top-level folder name of the sources")
    paths, docs = [], []
    total = 0
    for rel in _sources(source, sections):
        text = strip_rest(read_text_bounded(os.path.join(source, rel), _MAX_FILE_BYTES,
                                            "corpus"))
        if len(text) < min_chars:
            continue
        long_word = _LONG_WORD.search(text)
        if long_word is not None:
            word = _WORD.match(text, long_word.start())
            assert word is not None  # \S* matches everywhere
            raise InvalidArgument("corpus", os.path.join(source, rel), f"prose whose words are "
                                  f"at most {MAX_WORD_CHARS:,} characters long (one of "
                                  f"{word.end() - word.start():,} starts at character "
                                  f"{word.start():,} of its plain text)")
        total += len(text)
        if total > MAX_CORPUS_CHARS:
            raise InvalidArgument("corpus", source, f"at most {MAX_CORPUS_CHARS:,} characters of "
                                  f"prose (the documents up to {rel} hold {total:,}; choose "
                                  "fewer with --max-documents)")
        paths.append(rel)
        docs.append(text)
        if max_documents and len(docs) == max_documents:
            break
    if len(docs) < 2:
        raise InvalidArgument("corpus", source, f"at least 2 documents of {min_chars} or more "
                              f"characters under {', '.join(sections)} (found {len(docs)})")
    by_hash = sorted(range(len(paths)), key=lambda k: hashlib.sha256(paths[k].encode()).digest())
    held = {by_hash[k] for k in range(0, len(by_hash), held_out_every)}
    digest = hashlib.sha256()
    for p, d in zip(paths, docs, strict=True):
        digest.update(p.encode() + b"\0" + d.encode() + b"\0")
    train = [k for k in range(len(docs)) if k not in held]
    hold = sorted(held)
    recipe = {
        "source": os.path.abspath(source),
        "package": CORPUS_PACKAGE,
        "package_version": package_version(CORPUS_PACKAGE),
        "sections": list(sections),
        "min_chars": min_chars,
        "max_documents": max_documents,
        "held_out_every": held_out_every,
        "documents": len(docs),
        "characters": sum(len(d) for d in docs),
        "train_documents": len(train),
        "train_characters": sum(len(docs[k]) for k in train),
        "held_out_documents": len(hold),
        "held_out_characters": sum(len(docs[k]) for k in hold),
        "sha256": digest.hexdigest(),
    }
    return Corpus([docs[k] for k in train], [docs[k] for k in hold],
                  [paths[k] for k in train], [paths[k] for k in hold], recipe)
