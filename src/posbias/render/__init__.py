"""Rendering results for people and machines: the LaTeX printer and documents, report formats
(text, md, json, latex, junit) and plots (the ``plot`` extra, matplotlib imported lazily).

Part of the front door: it may use every route and ``proofs_checks``; nothing below it imports
``posbias.render``.
"""
