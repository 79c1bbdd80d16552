"""Markdown pages in the Sphinx build: the tutorial, the how-to guides, the findings and notes.

These pages are written in GitHub Markdown and read on GitHub as well, so they stay one source.
Each ATX heading (``#``, ``##``, ``###``) becomes a docutils section, so the pages have titles,
anchors and table-of-contents entries like the reStructuredText pages; the text between headings
is rendered by markdown-it-py (CommonMark with tables) and placed as HTML.  Links to other
Markdown pages of the docs point to their HTML pages; images are copied next to the output; a
link to a repository file that is not a page keeps its text without the link.

``.. markdown-include:: PATH`` (options ``start-after``, ``end-before``) places a part of another
Markdown file in a reStructuredText page.
"""

from __future__ import annotations

import posixpath
import re
import shutil
from pathlib import Path
from typing import ClassVar

from docutils import nodes
from docutils.parsers.rst import Directive, directives
from markdown_it import MarkdownIt
from sphinx.parsers import Parser

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")


def _split(text: str) -> list[tuple[int, str, list[str]]]:
    """``(level, title, body lines)`` blocks; level 0 is the text before the first heading."""
    blocks: list[tuple[int, str, list[str]]] = [(0, "", [])]
    fence = None
    for line in text.splitlines():
        m = _FENCE.match(line)
        if m:
            fence = None if fence == m.group(1) else (fence or m.group(1))
        h = None if fence else _HEADING.match(line)
        if h:
            blocks.append((len(h.group(1)), h.group(2), []))
        else:
            blocks[-1][2].append(line)
    return blocks


def _plain(title: str) -> str:
    """A heading's text without Markdown marks (code spans, emphasis, links)."""
    title = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", title)
    return re.sub(r"[`*_]", "", title)


class _Renderer:
    def __init__(self, env, source: Path):
        self.env = env
        self.source = source  # the Markdown file (links and images are relative to it)
        self.md = MarkdownIt("commonmark", {"html": True}).enable("table")
        self.md.core.ruler.push("posbias_links", self._rewrite)

    def _target(self, href: str) -> Path | None:
        if re.match(r"^[a-z][a-z0-9+.-]*:|^#|^/", href):
            return None
        return (self.source.parent / href.split("#")[0]).resolve()

    def _rewrite(self, state) -> None:
        srcdir = Path(self.env.srcdir).resolve()
        here = posixpath.dirname(self.env.docname)
        for block in state.tokens:
            for tok in block.children or []:
                if tok.type == "link_open":
                    href = tok.attrGet("href") or ""
                    target = self._target(href)
                    if target is None:
                        continue
                    anchor = href.partition("#")[2]
                    doc = target.with_suffix("")
                    if target.suffix in (".md", ".rst") and target.is_relative_to(srcdir):
                        rel = posixpath.relpath(doc.relative_to(srcdir).as_posix(), here or ".")
                        tok.attrSet("href", rel + ".html" + ("#" + anchor if anchor else ""))
                    else:
                        tok.attrSet("href", "")
                        tok.attrSet("data-repository-file", href)
                elif tok.type == "image":
                    target = self._target(tok.attrGet("src") or "")
                    if target is not None and target.is_file():
                        self.env.posbias_md_images.add(str(target))
                        depth = here.count("/") + 1 if here else 0
                        tok.attrSet("src", "../" * depth + "_images/" + target.name)

    def nodes(self, text: str, top: nodes.Element, document: nodes.document,
              base_level: int = 0) -> None:
        """Append the sections of ``text`` under ``top`` (a document or a section)."""
        stack: list[tuple[int, nodes.Element]] = [(base_level, top)]
        for level, title, body in _split(text):
            if level:
                while stack[-1][0] >= level and len(stack) > 1:
                    stack.pop()
                section = nodes.section()
                name = _plain(title)
                section["names"].append(nodes.fully_normalize_name(name))
                section += nodes.title(name, name)
                stack[-1][1].append(section)
                document.note_implicit_target(section, section)
                stack.append((level, section))
            html = self.md.render("\n".join(body)).strip()
            html = re.sub(r'<a href="" data-repository-file="[^"]*">(.*?)</a>', r"\1", html,
                          flags=re.DOTALL)
            if html:
                stack[-1][1].append(nodes.raw("", html, format="html"))


class MarkdownParser(Parser):
    supported = ("markdown", "md")

    def parse(self, inputstring: str, document: nodes.document) -> None:
        env = document.settings.env
        source = Path(env.doc2path(env.docname))
        _Renderer(env, source).nodes(inputstring, document, document)


class MarkdownInclude(Directive):
    required_arguments = 1
    option_spec: ClassVar[dict] = {"start-after": directives.unchanged,
                                   "end-before": directives.unchanged}

    def run(self) -> list[nodes.Node]:
        env = self.state.document.settings.env
        rel, path = env.relfn2path(self.arguments[0])
        env.note_dependency(rel)
        text = Path(path).read_text(encoding="utf-8")
        after, before = self.options.get("start-after"), self.options.get("end-before")
        if after:
            if after not in text:
                raise self.error(f"markdown-include: {after!r} not found in {rel}")
            text = text.split(after, 1)[1]
        if before:
            if before not in text:
                raise self.error(f"markdown-include: {before!r} not found in {rel}")
            text = text.split(before, 1)[0]
        holder = nodes.section()
        holder.document = self.state.document
        level = len(self.state.memo.title_styles)
        _Renderer(env, Path(path)).nodes(text, holder, self.state.document,
                                        base_level=max(level, 1))
        return list(holder.children)


def _init_images(app, env, docnames) -> None:
    if not hasattr(env, "posbias_md_images"):
        env.posbias_md_images = set()


def _merge(app, env, docnames, other) -> None:
    env.posbias_md_images |= getattr(other, "posbias_md_images", set())


def _copy_images(app, exception) -> None:
    if exception is not None or app.builder.format != "html":
        return
    out = Path(app.outdir) / "_images"
    out.mkdir(parents=True, exist_ok=True)
    for image in sorted(getattr(app.env, "posbias_md_images", ())):
        shutil.copyfile(image, out / Path(image).name)


def setup(app):
    app.add_source_suffix(".md", "markdown")
    app.add_source_parser(MarkdownParser)
    app.add_directive("markdown-include", MarkdownInclude)
    app.connect("env-before-read-docs", _init_images)
    app.connect("env-merge-info", _merge)
    app.connect("build-finished", _copy_images)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
