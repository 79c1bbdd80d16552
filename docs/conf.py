"""Sphinx configuration of the posbias reference.

Build (warnings are errors; both builders run in CI)::

    sphinx-build -W --keep-going -b html docs docs/_build/html
    sphinx-build -W --keep-going -b doctest docs docs/_build/doctest

The build never needs the network.  Cross-references to Python, SymPy, mpmath and NumPy resolve
through intersphinx inventories read from local files: Debian's documentation packages ship them
(``python3-doc``, ``python-sympy-doc``, ``python-mpmath-doc``), and ``POSBIAS_INTERSPHINX_DIR``
may name a folder holding ``<project>.inv`` files (for example ``numpy.inv``).  A project without a
local inventory is left out of the mapping (its names print as plain code, without a link), so an
unreachable server can never fail a ``-W`` build; ``POSBIAS_DOCS_ONLINE=1`` downloads the missing
inventories instead.
"""

from __future__ import annotations

import doctest
import os
import sys
from pathlib import Path

import posbias

# the local extensions: the Markdown pages (docs/_ext/markdown_pages.py) and the reference pages
# generated from the package, the command line and the claims (docs/_ext/posbias_reference.py)
sys.path.insert(0, str(Path(__file__).resolve().parent / "_ext"))

project = "posbias"
author = "The posbias authors"
copyright = "2026, The posbias authors"
release = posbias.__version__
version = ".".join(release.split(".")[:2])

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.mathjax",
    "sphinx.ext.intersphinx",
    "sphinx.ext.doctest",
    "sphinx.ext.viewcode",
    "markdown_pages",
    "posbias_reference",
]

root_doc = "index"
exclude_patterns = ["_build", "_ext", "Thumbs.db", ".DS_Store"]
# the tutorial, the how-to guides, the findings and the architecture note are Markdown pages, read
# on GitHub as well: the local extension markdown_pages renders them (markdown-it-py)

# --- autodoc -------------------------------------------------------------------------------------
autodoc_default_options = {
    "members": True,
    "undoc-members": False,
    "show-inheritance": True,
    "member-order": "bysource",
}
autodoc_typehints = "description"
autodoc_typehints_format = "short"
autodoc_preserve_defaults = True
# torch and transformers are the `models` extra, imported inside the functions that need them;
# the few modules that name them at import time document without them
autodoc_mock_imports = ["torch", "transformers", "tokenizers", "safetensors"]

napoleon_google_docstring = True
napoleon_numpy_docstring = True
napoleon_use_rtype = False
# fields of dataclasses are documented once, as attributes of their class
napoleon_use_ivar = True
# methods overriding pytest's or the standard library's carry their own docstrings or none;
# inherited ones refer to labels of those projects' documentation
autodoc_inherit_docstrings = False

# --- doctest -------------------------------------------------------------------------------------
doctest_global_setup = """
import posbias
try:  # the notebook page's examples need the models extra
    import accelerate, tokenizers, torch, transformers
    _has_models = True
except ImportError:
    _has_models = False
"""
# the pages' examples are ``.. doctest::`` blocks; the docstrings' own examples need their module's
# namespace and run in tests/test_doctests.py (doctest.testmod), so plain ``>>>`` blocks are not
# run a second time here
doctest_test_doctest_blocks = ""
# the flags of tests/test_doctests.py, so that a docstring passes both
doctest_default_flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE | doctest.DONT_ACCEPT_TRUE_FOR_1

# --- intersphinx, offline ------------------------------------------------------------------------
_INVENTORIES = {
    # name: (where links point, local inventories to try, in order)
    "python": ("https://docs.python.org/3", [
        "/usr/share/doc/python3/html/objects.inv",
        *sorted(str(p) for p in Path("/usr/share/doc").glob("python3.*/html/objects.inv")),
    ]),
    "sympy": ("https://docs.sympy.org/latest", ["/usr/share/doc/python-sympy-doc/html/objects.inv"]),
    "mpmath": ("https://mpmath.org/doc/current", ["/usr/share/doc/python-mpmath-doc/html/objects.inv"]),
    "numpy": ("https://numpy.org/doc/stable", ["/usr/share/doc/python-numpy-doc/html/objects.inv",
                                               "/usr/share/doc/python-numpy/html/objects.inv"]),
}


def _intersphinx_mapping() -> dict[str, tuple[str, str | None]]:
    online = os.environ.get("POSBIAS_DOCS_ONLINE") == "1"
    folder = os.environ.get("POSBIAS_INTERSPHINX_DIR")
    mapping: dict[str, tuple[str, str | None]] = {}
    for name, (url, candidates) in _INVENTORIES.items():
        paths = [str(Path(folder) / f"{name}.inv")] if folder else []
        paths += candidates
        local = next((p for p in paths if Path(p).is_file()), None)
        if local is not None:
            mapping[name] = (url, local)
        elif online:
            mapping[name] = (url, None)
    return mapping


intersphinx_mapping = _intersphinx_mapping()
intersphinx_disabled_reftypes = ["std:doc"]

# --- html ----------------------------------------------------------------------------------------
html_theme = "alabaster"
html_title = f"posbias {release}"
html_static_path: list[str] = []
html_theme_options = {
    "description": "Derive, compute and check the theory of position bias in causal transformers",
    "fixed_sidebar": True,
    "page_width": "1100px",
}

# A word of a napoleon type field that names an attribute of two classes (e.g. ``measured``)
# is an ambiguous cross-reference; it stays unlinked instead of failing the -W build.
suppress_warnings = ["ref.python"]
