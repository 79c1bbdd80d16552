"""Tiny checkpoints of each measured family, saved with ``save_pretrained`` together with a
word-level tokenizer trained (``tokenizers`` library) on a generated text; nothing is
downloaded.  Shared by the measurement, CLI and claim tests."""

from __future__ import annotations

import os
import random

#: small configuration settings per family (2 layers, 4 heads, hidden 32)
FAMILIES = {
    "bloom": dict(model_type="bloom", n_layer=2, n_head=4, hidden_size=32),
    "mpt": dict(model_type="mpt", n_layers=2, n_heads=4, d_model=32, expansion_ratio=2,
                max_seq_len=256),
    "falcon": dict(model_type="falcon", num_hidden_layers=2, num_attention_heads=4,
                   hidden_size=32, alibi=True, multi_query=False, parallel_attn=False,
                   new_decoder_architecture=False, bias=True),
    "falcon-rope": dict(model_type="falcon", num_hidden_layers=2, num_attention_heads=4,
                        hidden_size=32, alibi=False, multi_query=True, parallel_attn=True,
                        new_decoder_architecture=False),
    "gpt2": dict(model_type="gpt2", n_layer=2, n_head=4, n_embd=32, n_positions=256),
    "llama": dict(model_type="llama", num_hidden_layers=2, num_attention_heads=4,
                  num_key_value_heads=2, hidden_size=32, intermediate_size=64,
                  max_position_embeddings=256),
    "qwen2": dict(model_type="qwen2", num_hidden_layers=2, num_attention_heads=4,
                  num_key_value_heads=2, hidden_size=32, intermediate_size=64,
                  max_position_embeddings=256),
}

WORDS = ["the", "a", "of", "to", "in", "and", "model", "token", "layer", "head", "attention", "residual", "position", "bias", "first", "last", "middle", "window", "text", "measure", "profile", "rollout", "slope", "content", "score", "lambda"]


def generated_text(n_words: int = 6000, seed: int = 0) -> str:
    """Deterministic pseudo-sentences over a small vocabulary, in paragraphs."""
    rng = random.Random(seed)
    out = []
    for k in range(n_words):
        out.append(rng.choice(WORDS))
        if k % 13 == 12:
            out[-1] += "."
        if k % 400 == 399:
            out.append("\n\n")
    return " ".join(out)


def train_tokenizer(text: str, *, bos: bool):
    """A word-level ``PreTrainedTokenizerFast`` trained on ``text``; with ``bos`` it puts a BOS
    token in front of every text (as LLaMA's tokenizer does)."""
    from tokenizers import Tokenizer, models, pre_tokenizers, processors, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.WordLevel(unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    trainer = trainers.WordLevelTrainer(special_tokens=["<unk>", "<s>", "</s>"])
    tok.train_from_iterator([text], trainer=trainer)
    if bos:
        tok.post_processor = processors.TemplateProcessing(
            single="<s> $A", special_tokens=[("<s>", tok.token_to_id("<s>"))])
    return PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="<unk>", bos_token="<s>",
                                   eos_token="</s>")


def save_tiny(family: str, folder, *, seed: int = 0, bos: bool | None = None) -> str:
    """Build the tiny ``family`` model with random weights (``seed``), train its tokenizer, save
    both into ``folder/family`` and return that directory."""
    import torch
    import transformers

    settings = dict(FAMILIES[family])
    model_type = settings.pop("model_type")
    text = generated_text()
    tokenizer = train_tokenizer(text, bos=(family in ("llama", "qwen2")) if bos is None else bos)
    settings.update(vocab_size=len(tokenizer), bos_token_id=1, eos_token_id=2)
    config = transformers.AutoConfig.for_model(model_type, **settings)
    torch.manual_seed(seed)
    model = transformers.AutoModelForCausalLM.from_config(config)
    with torch.no_grad():  # trained-looking content scores: larger q/k weights than at init
        for _name, p in model.named_parameters():
            if p.ndim == 2:
                p.mul_(3.0)
    path = os.path.join(os.fspath(folder), family)
    model.save_pretrained(path)
    tokenizer.save_pretrained(path)
    return path


def write_text(folder, *, jsonl: bool = False, seed: int = 1) -> str:
    """A generated text file (or a .jsonl with a ``text`` field per line) in ``folder``."""
    import json

    folder = os.fspath(folder)
    os.makedirs(folder, exist_ok=True)
    if jsonl:
        path = os.path.join(folder, "docs.jsonl")
        with open(path, "w", encoding="utf-8") as fh:
            for k in range(6):
                fh.write(json.dumps({"text": generated_text(800, seed + k), "id": k}) + "\n")
        return path
    path = os.path.join(folder, "corpus.txt")
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(generated_text(4000, seed))
    return path
