"""The empirical route: ``transformers`` causal LMs measured with torch (the ``models`` extra).

Models at initialization are built from configuration classes (never downloaded weights);
pretrained checkpoints are loaded from disk or the local Hugging Face cache and measured on real
text (``checkpoint``, ``text``, ``pretrained``; ``export`` writes their rollout configs);
wu2025's in-context network and a small causal LM on a synthetic task are trained (``icl``,
``training``, ``lm_training``), on the CPU or an accelerator (``devices``); the influence of each input position on the final one, the mixing coefficients lambda_t and the
attention's distance from the Cesàro matrix are read from forward/backward passes.  Never imports
``numerics`` or ``derivations``: what compares a measurement with theory lives in
``posbias.proofs_checks``.  torch and transformers are imported inside the functions that need them.
"""

from posbias.measurements import (
    checkpoint,
    devices,
    export,
    icl,
    lm_training,
    measure,
    presets,
    pretrained,
    text,
    training,
)

#: the public modules, in the order their names are re-exported
MODULES = (measure, presets, checkpoint, text, pretrained, export, icl, training, lm_training,
           devices)

for _module in MODULES:
    for _name in _module.__all__:
        globals()[_name] = getattr(_module, _name)
del _module, _name

__all__ = sorted({name for module in MODULES for name in module.__all__})
