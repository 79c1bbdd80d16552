"""The empirical route: ``transformers`` causal LMs measured with torch (the ``models`` extra).

Models at initialization are built from configuration classes (never downloaded weights);
pretrained checkpoints are loaded from disk or the local Hugging Face cache and measured on real
text (``checkpoint``, ``text``, ``pretrained``; ``export`` writes their rollout configs);
wu2025's in-context network and a small causal LM on a synthetic task are trained (``icl``,
``training``, ``lm_training``), on the CPU or an accelerator (``devices``); the influence of
each input position on the final one, the mixing coefficients lambda_t and the attention's
distance from the Cesàro matrix are read from forward/backward passes.  Never imports
``numerics`` or ``derivations``: what compares a measurement with theory lives in
``posbias.proofs_checks``.  torch and transformers are imported inside the functions that need
them.
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
from posbias.measurements.checkpoint import (
    CHECKPOINT_DTYPES,
    LoadedCheckpoint,
    block_checkpointing,
    hf_cache_dir,
    load_checkpoint,
)
from posbias.measurements.devices import (
    DEVICE_TOLERANCES,
    DEVICES,
    check_device,
    resolve_device,
)
from posbias.measurements.export import (
    influence_csv,
    influence_files,
    logit_tables,
    measurement_json,
    rollout_config_yaml,
)
from posbias.measurements.icl import (
    MASKS,
    POSITIONAL_ENCODINGS,
    POSITIONS,
    TEST_PAIRS,
    ICLTask,
    World,
    attention_mask,
    build_network,
    final_position_influence,
    in_context_set,
    make_world,
    paired_test_sets,
    parse_mask,
    train_batch,
)
from posbias.measurements.lm_training import (
    CONCENTRATION,
    LM_ARCHS,
    LM_RESULTS_FORMAT,
    LMTrainConfig,
    bayes_losses,
    lm_checkpoint_path,
    lm_history_csv,
    lm_results_document,
    lm_train_run,
    lm_train_seeds,
    plan_lm_training,
    unigram_batch,
)
from posbias.measurements.measure import (
    ATTENTIONS,
    METRICS,
    PROBE_DISTRIBUTIONS,
    Measurement,
    build_model,
    influence_profile,
    kernel_hooks,
    kernel_tv,
    lambda_hooks,
    measure_influence,
    measure_influence_cached,
    parallel_residual,
    require_models_extra,
    rope_identity_patch,
)
from posbias.measurements.presets import (
    PRESETS,
    ROTARY_MODEL_TYPES,
    Preset,
    preset_names,
    resolve_settings,
)
from posbias.measurements.pretrained import (
    PRETRAINED_FAMILIES,
    ROUTES,
    AttentionProbe,
    GenericAttentionProbe,
    PretrainedMeasurement,
    measure_pretrained,
)
from posbias.measurements.text import (
    MAX_TEXT_FILE_BYTES,
    TEXT_SUFFIXES,
    TextWindows,
    read_documents,
    text_windows,
)
from posbias.measurements.training import (
    RESULTS_FORMAT,
    TASKS,
    TrainConfig,
    check_seeds,
    checkpoint_path,
    history_csv,
    plan_training,
    results_document,
    train_run,
    train_seeds,
)

#: the public modules, in the order their names were first listed
MODULES = (measure, presets, checkpoint, text, pretrained, export, icl, training, lm_training,
           devices)

# the union of the modules' ``__all__`` (tests/test_architecture.py keeps the two in step)
__all__ = [  # noqa: RUF022 - plain code-point order, as sorted() gives
    "ATTENTIONS",
    "AttentionProbe",
    "CHECKPOINT_DTYPES",
    "CONCENTRATION",
    "DEVICES",
    "DEVICE_TOLERANCES",
    "GenericAttentionProbe",
    "ICLTask",
    "LMTrainConfig",
    "LM_ARCHS",
    "LM_RESULTS_FORMAT",
    "LoadedCheckpoint",
    "MASKS",
    "MAX_TEXT_FILE_BYTES",
    "METRICS",
    "Measurement",
    "POSITIONAL_ENCODINGS",
    "POSITIONS",
    "PRESETS",
    "PRETRAINED_FAMILIES",
    "PROBE_DISTRIBUTIONS",
    "Preset",
    "PretrainedMeasurement",
    "RESULTS_FORMAT",
    "ROTARY_MODEL_TYPES",
    "ROUTES",
    "TASKS",
    "TEST_PAIRS",
    "TEXT_SUFFIXES",
    "TextWindows",
    "TrainConfig",
    "World",
    "attention_mask",
    "bayes_losses",
    "block_checkpointing",
    "build_model",
    "build_network",
    "check_device",
    "check_seeds",
    "checkpoint_path",
    "final_position_influence",
    "hf_cache_dir",
    "history_csv",
    "in_context_set",
    "influence_csv",
    "influence_files",
    "influence_profile",
    "kernel_hooks",
    "kernel_tv",
    "lambda_hooks",
    "lm_checkpoint_path",
    "lm_history_csv",
    "lm_results_document",
    "lm_train_run",
    "lm_train_seeds",
    "load_checkpoint",
    "logit_tables",
    "make_world",
    "measure_influence",
    "measure_influence_cached",
    "measure_pretrained",
    "measurement_json",
    "paired_test_sets",
    "parallel_residual",
    "parse_mask",
    "plan_lm_training",
    "plan_training",
    "preset_names",
    "read_documents",
    "require_models_extra",
    "resolve_device",
    "resolve_settings",
    "results_document",
    "rollout_config_yaml",
    "rope_identity_patch",
    "text_windows",
    "train_batch",
    "train_run",
    "train_seeds",
    "unigram_batch",
]
