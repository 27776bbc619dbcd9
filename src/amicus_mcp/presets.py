"""Named councils: saved `--models` lists in config.json, plus the built-in benches.

A saved council shadows a built-in one of the same name. Members resolve like any model
argument: a raw `vendor/model` id stands for itself, anything else must be a known alias.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .config import effective_aliases, load_config, save_config
from .errors import BadArgs

if TYPE_CHECKING:  # the documents' declarations (schemas/council-presets.schema.json is generated from them)
    from .documents.commands import CouncilList, CouncilRow, CouncilSave, DroppedMemberDoc, NamedBench

BUILTIN_COUNCILS: dict[str, list[str]] = {
    # Zero-cost `:free` OpenRouter models; resolved from the live catalog once one is
    # reachable, this offline list otherwise.
    "free": [
        "openrouter/deepseek/deepseek-r1:free",
        "openrouter/google/gemini-2.0-flash-exp:free",
        "openrouter/qwen/qwen3-coder:free",
    ],
    "budget": ["minimax", "qwen-coder", "deepseek"],
    "frontier": ["gpt-pro", "opus", "gemini-pro"],
    # Offline, no key: two seats on the embedded GGUF model.
    "local": ["local", "local"],
}

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


@dataclass
class Resolution:
    resolved: list[str] = field(default_factory=list)
    dropped: list[DroppedMemberDoc] = field(default_factory=list)


def resolve_members(members: list[str], aliases: dict[str, str]) -> Resolution:
    """Split members into those that resolve and those dropped (with a reason each)."""
    out = Resolution()
    for member in members:
        if "/" in member or member == "local":
            out.resolved.append(member)
        elif member in aliases:
            out.resolved.append(member)
        else:
            out.dropped.append({"member": member, "reason": f"unknown alias '{member}'"})
    return out


def parse_models_arg(raw: str) -> list[str]:
    members = [m.strip() for m in raw.split(",")]
    if not raw.strip() or any(not m for m in members):
        raise BadArgs(f"--models '{raw}' has an empty member", hint="pass a comma-separated list like deepseek,gpt,gemini")
    return members


def save_council(name: str, members: list[str]) -> CouncilSave:
    if not _NAME.match(name):
        raise BadArgs(
            f"council name '{name}' is not allowed",
            hint="use 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit",
        )
    if len(members) < 2:
        raise BadArgs(f"a council needs at least 2 members; got {len(members)}", hint="pass --models a,b[,c…]")
    cfg = load_config()
    res = resolve_members(members, effective_aliases(cfg))
    if res.dropped:
        bad = ", ".join(d["member"] for d in res.dropped)
        raise BadArgs(
            f"cannot save council '{name}': {bad} does not resolve",
            hint="use a known alias (see config.json 'aliases') or a raw vendor/model id",
        )
    councils: dict[str, object] = found if isinstance(found := cfg.get("councils"), dict) else {}
    overwritten = name in councils
    councils[name] = list(members)
    cfg["councils"] = councils
    save_config(cfg)
    return {"schemaVersion": 2, "type": "council-save", "name": name, "members": list(members), "overwritten": overwritten}


def list_councils() -> CouncilList:
    cfg = load_config()
    saved: dict[str, object] = found if isinstance(found := cfg.get("councils"), dict) else {}
    rows: list[CouncilRow] = []
    for name, members in saved.items():
        rows.append({"name": name, "members": _member_list(members), "builtin": False})
    for name in BUILTIN_COUNCILS:
        row: CouncilRow = {"name": name, "members": builtin_members(name), "builtin": True}
        if name in saved:
            row["shadowed"] = True
        rows.append(row)
    return {"schemaVersion": 2, "type": "council-list", "councils": rows}


def show_council(name: str) -> NamedBench:
    """Resolve a name exactly like `--council` does; reports even below the 2-member minimum."""
    cfg = load_config()
    saved: dict[str, object] = found if isinstance(found := cfg.get("councils"), dict) else {}
    if name in saved:
        members, builtin = _member_list(saved[name]), False
    elif name in BUILTIN_COUNCILS:
        members, builtin = builtin_members(name), True
    else:
        from .front import command

        known = ", ".join([*saved, *(n for n in BUILTIN_COUNCILS if n not in saved)])
        listing = command("amicus council list")
        raise BadArgs(f"unknown council '{name}'",
                      hint=f"the councils: {known}" + (f" ({listing} shows their members)" if listing else ""))
    res = resolve_members(members, effective_aliases(cfg))
    return {
        "schemaVersion": 2,
        "type": "council-show",
        "name": name,
        "builtin": builtin,
        "members": members,
        "resolved": res.resolved,
        "dropped": res.dropped,
    }


def builtin_members(name: str) -> list[str]:
    """A built-in bench's members; `free` comes from the cached catalog when there is one."""
    if name == "free":
        from .providers.catalog import free_models  # lazy: reads only the local cache file

        return free_models() or list(BUILTIN_COUNCILS["free"])
    return list(BUILTIN_COUNCILS[name])


def _member_list(raw: Any) -> list[str]:
    return [m for m in raw if isinstance(m, str)] if isinstance(raw, list) else []
