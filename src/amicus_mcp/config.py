"""Where amicus keeps its state, and the user's `config.json`.

The config dir is `$AMICUS_CONFIG_DIR`, else `~/.config/amicus` (`places.config_dir`). It holds `config.json`
(aliases, saved councils, routing and workspace preferences), the reliability ledger
`council-ledger.jsonl`, and later the model catalog cache and the keys file `.env`.
"""

from __future__ import annotations

from pathlib import Path
from collections.abc import Mapping

from .errors import BadArgs
from .fsio import atomic_write_json, read_json
from .places import config_dir
from .schemas import JsonObject

CONFIG_FILE = "config.json"
LEDGER_FILE = "council-ledger.jsonl"
EVAL_LEDGER_FILE = "eval-ledger.jsonl"  # measured recall per model, one row per model per eval

# Alias → model id. A `vendor/model` id is routed by gateway policy (direct key first under
# `auto`); an `openrouter/...` id always goes through OpenRouter. These are data, not
# constants: users override any of them under `aliases` in config.json.
DEFAULT_ALIASES: dict[str, str] = {
    "gemini": "google/gemini-3.6-flash",
    "gemini-pro": "google/gemini-3.1-pro-preview",
    "gpt": "openai/gpt-5.6-terra",
    "gpt-pro": "openai/gpt-5.5-pro",
    "codex": "openai/gpt-5.3-codex",
    "opus": "anthropic/claude-opus-5",
    "claude": "anthropic/claude-sonnet-5",
    "sonnet": "anthropic/claude-sonnet-5",
    "haiku": "anthropic/claude-haiku-4-5-20251001",
    "fable": "openrouter/anthropic/claude-fable-5",
    "deepseek": "deepseek/deepseek-v4-pro",
    "qwen": "openrouter/qwen/qwen3.7-max",
    "qwen-coder": "openrouter/qwen/qwen3-coder-next",
    "qwen-flash": "openrouter/qwen/qwen3.6-flash",
    "mistral": "openrouter/mistralai/mistral-medium-3-5",
    "glm": "openrouter/z-ai/glm-5.1",
    "minimax": "openrouter/minimax/minimax-m2.7",
    "grok": "openrouter/x-ai/grok-4.3",
    "kimi": "openrouter/moonshotai/kimi-k2.6",
    "seed": "openrouter/bytedance-seed/seed-2.0-lite",
}


def config_path() -> Path:
    return config_dir() / CONFIG_FILE


def ledger_path() -> Path:
    return config_dir() / LEDGER_FILE


def eval_ledger_path() -> Path:
    return config_dir() / EVAL_LEDGER_FILE


def load_config() -> JsonObject:
    """The user's config.json as a dict; `{}` when there is none yet. The user writes it: every
    value is narrowed where it is read."""
    path = config_path()
    if not path.exists():
        return {}
    doc = read_json(path, what="config file")
    if not isinstance(doc, dict):
        raise BadArgs(f"config file '{path}' must hold a JSON object", hint="fix or remove the file")
    return doc


def save_config(doc: Mapping[str, object]) -> Path:
    # Unmasked: the user's own file, whose provider headers may hold a credential on purpose.
    return atomic_write_json(config_path(), doc, mask_keys=False)


def effective_aliases(cfg: Mapping[str, object] | None = None) -> dict[str, str]:
    """Built-in aliases overlaid by the user's `aliases` (the user wins)."""
    cfg = load_config() if cfg is None else cfg
    merged = dict(DEFAULT_ALIASES)
    user = cfg.get("aliases")
    if isinstance(user, dict):
        merged.update({k: v for k, v in user.items() if isinstance(k, str) and isinstance(v, str) and v})
    return merged
