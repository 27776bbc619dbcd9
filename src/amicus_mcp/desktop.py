"""Claude Desktop's one-click install: the settings the MCP Bundle's form asks for.

Desktop shows each `user_config` field in the extension's settings form, keeps the values
(the `sensitive` ones in the OS keychain) and starts the server with them in its environment,
as the manifest's `mcp_config.env` maps them (`mcp/bundle.py` builds both from `SETTINGS`; `front.py`
names each setting by its field when a hint is written for a Desktop user).
An optional field left empty arrives as an empty string, one never set as the placeholder
itself (`${user_config.max_cost}`): both mean "not set", and `main` scrubs them from the
environment before anything reads it (`envvars.scrub_placeholders`).
"""

from __future__ import annotations

from typing import Literal, NamedTuple, NotRequired, TypedDict

INSTALL_ENV = "AMICUS_INSTALL"  # set to DESKTOP_BUNDLE by the bundle: hints then point at its form
DESKTOP_BUNDLE = "claude-desktop-bundle"


class UserConfigEntry(TypedDict):
    """One `user_config` entry of the bundle's manifest."""

    type: Literal["string", "number", "directory"]
    title: str
    description: str
    required: bool
    sensitive: NotRequired[bool]
    min: NotRequired[float]


class Setting(NamedTuple):
    key: str  # the user_config key
    env: str  # the variable the server reads it from
    kind: Literal["string", "number", "directory"]
    title: str
    description: str
    sensitive: bool = False
    required: bool = False
    min: float | None = None

    def field(self) -> UserConfigEntry:
        """The manifest's `user_config` entry."""
        entry: UserConfigEntry = {"type": self.kind, "title": self.title, "description": self.description,
                                 "required": self.required}
        if self.sensitive:
            entry["sensitive"] = True
        if self.min is not None:
            entry["min"] = self.min
        return entry


def _key(key: str, env: str, vendor: str, where: str) -> Setting:
    return Setting(key, env, "string", f"{vendor} API key",
                   f"Optional. Calls {vendor} models on {vendor}'s own API instead of through OpenRouter ({where}). "
                   "Kept in your system keychain.", sensitive=True)


SETTINGS: tuple[Setting, ...] = (
    Setting("openrouter_api_key", "OPENROUTER_API_KEY", "string", "OpenRouter API key",
            "One key for every cloud model on the council (create one at openrouter.ai/keys). Kept in your "
            "system keychain, never written to a file or a log.", sensitive=True),
    _key("openai_api_key", "OPENAI_API_KEY", "OpenAI", "platform.openai.com"),
    _key("deepseek_api_key", "DEEPSEEK_API_KEY", "DeepSeek", "platform.deepseek.com"),
    _key("google_api_key", "GOOGLE_GENERATIVE_AI_API_KEY", "Google", "aistudio.google.com"),
    Setting("project_dir", "AMICUS_PROJECT_DIR", "directory", "Project folder",
            "The folder whose files the council reviews (briefings, artifacts); its runs are written there too.",
            required=True),
    Setting("default_bench", "AMICUS_DEFAULT_BENCH", "string", "Default bench",
            "Optional. The bench when Claude names none: a saved council or built-in bench (e.g. budget), or "
            "models separated by commas (e.g. gemini,gpt,deepseek). No key? Agent seats run the CLIs you "
            "are subscribed to (e.g. cli:codex,cli:gemini,cli:claude): each must be installed (npm install -g "
            "@openai/codex, @google/gemini-cli, @anthropic-ai/claude-code) and logged in once in a terminal."),
    Setting("default_chair", "AMICUS_DEFAULT_CHAIR", "string", "Default chair",
            "Optional. The chair when Claude names none. Empty: deepseek. When it sits on the bench, the next "
            "of deepseek, gemini, gpt, kimi, glm, mistral that does not chairs instead, and the run says so. "
            "An agent seat can chair too (e.g. cli:gemini), installed and logged in like a bench seat."),
    Setting("max_cost", "AMICUS_DEFAULT_MAX_COST", "number", "Spend ceiling per run (USD)",
            "Optional. The most a council run may spend when Claude sets no ceiling. Empty or 0: no ceiling.",
            min=0),
)
SETTING_NAMES: tuple[str, ...] = tuple(s.env for s in SETTINGS)
