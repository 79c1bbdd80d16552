"""Built-in claims, one claim per module.

A paper's claims live in the package ``claims/<paper>/``, one module per claim named after the
claim's slug (``chowdhury2026:u-shape`` is :mod:`posbias.proofs_checks.claims.chowdhury2026.u_shape`),
each written in the same order: the function that decides the verdict from the figures
(``decide``), the :class:`~posbias.proofs_checks.cards.Rule` (``RULE``), the claim card
(``CARD``), and the check, registered under its literal id.  Helpers shared by one paper's claims
are in ``claims/<paper>/_shared.py``; helpers shared by every paper in :mod:`._common`.

A paper's package lists its claim modules in the paper's order (``MODULES``); importing the
package imports them, and each registers its claim.  Importing this package imports every
paper's package.
"""

import importlib
import pkgutil

for _info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
    if not _info.name.startswith("_"):
        importlib.import_module(f"{__name__}.{_info.name}")
