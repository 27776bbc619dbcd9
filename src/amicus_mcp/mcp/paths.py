"""Which project a tool call works in, and which files it may read or write.

Project resolution, first that applies: the tool's `project` argument → `$AMICUS_PROJECT_DIR`
→ the first `file:` root the client declared (`roots/list`) → the server's working
directory. An explicit `project` must be an existing directory inside an allowed root:
the client's roots, `$AMICUS_PROJECT_DIR`, the entries of `$AMICUS_PROJECT_ROOTS`
(os.pathsep-separated), the working directory or the home directory.

Files a call names (a briefing, a prompt file, an out-dir) are resolved against the
project, symlinks followed, and must lie inside the project, a client root or an
`$AMICUS_PROJECT_ROOTS` entry — a model cannot point a tool at `~/.ssh` or `/etc`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from urllib.parse import unquote, urlparse

from ..errors import BadArgs
from ..front import desktop, setting
from ..fsio import checked_name
from ..places import PROJECT_ENV



def roots_hint() -> str:
    """What to do about a path outside the allowed roots, as this server's user can do it."""
    if desktop():  # the bundle's form sets the project folder; it has no AMICUS_PROJECT_ROOTS
        return f"move the file into the project folder, or change {setting(PROJECT_ENV)}"
    return ("work inside the project, or add the folder to AMICUS_PROJECT_ROOTS (os.pathsep-separated) in the "
            "server's environment")


def file_roots(uris: Sequence[str]) -> list[Path]:
    """The local directories among a client's `roots/list` URIs, in the client's order."""
    roots = []
    for uri in uris:
        parsed = urlparse(uri)
        if parsed.scheme == "file" and parsed.path:
            roots.append(Path(unquote(parsed.path)).expanduser().resolve())
    return roots


def env_roots(env: Mapping[str, str]) -> list[Path]:
    raw = env.get("AMICUS_PROJECT_ROOTS", "")
    return [Path(part).expanduser().resolve() for part in raw.split(os.pathsep) if part.strip()]


def resolve_project(arg: str | None, *, client_roots: Sequence[Path], env: Mapping[str, str], cwd: Path) -> Path:
    """The project directory for one call (see the module docstring for the order)."""
    if arg:
        project = _existing_dir(Path(checked_name(arg, "project")).expanduser(), cwd, what="project")
        allowed = project_roots(client_roots=client_roots, env=env, cwd=cwd)
        if not any(_within(project, root) for root in allowed):
            raise BadArgs(f"project '{project}' is outside the allowed project roots "
                          f"({', '.join(str(r) for r in allowed)})", hint=roots_hint())
        return project
    if env.get("AMICUS_PROJECT_DIR"):
        return _existing_dir(Path(env["AMICUS_PROJECT_DIR"]).expanduser(), cwd, what="AMICUS_PROJECT_DIR")
    if client_roots:
        return _existing_dir(client_roots[0], cwd, what="client root")
    return cwd.resolve()


def project_roots(*, client_roots: Sequence[Path], env: Mapping[str, str], cwd: Path) -> list[Path]:
    """Where an explicit `project` argument may point."""
    roots = [*client_roots, *env_roots(env), cwd.resolve(), Path.home().resolve()]
    if env.get("AMICUS_PROJECT_DIR"):
        roots.insert(0, Path(env["AMICUS_PROJECT_DIR"]).expanduser().resolve())
    return _unique(roots)


def contained(path: str, *, project: Path, client_roots: Sequence[Path], env: Mapping[str, str], what: str) -> Path:
    """`path` (relative to the project) resolved, refused unless it lies inside an allowed root."""
    if not path.strip():
        raise BadArgs(f"{what} is empty", hint="pass a path inside the project")
    candidate = Path(checked_name(path, what)).expanduser()
    resolved = (candidate if candidate.is_absolute() else project / candidate).resolve()
    allowed = _unique([project, *client_roots, *env_roots(env)])
    if not any(_within(resolved, root) for root in allowed):
        raise BadArgs(f"{what} '{resolved}' is outside the allowed project roots "
                      f"({', '.join(str(r) for r in allowed)})", hint=roots_hint())
    return resolved


def _existing_dir(path: Path, cwd: Path, *, what: str) -> Path:
    resolved = (path if path.is_absolute() else cwd / path).resolve()
    if not resolved.is_dir():
        hint = (f"set {setting(PROJECT_ENV)} to an existing folder" if what == PROJECT_ENV
                else "pass an existing folder as --project")
        shown = f"{what} ({setting(PROJECT_ENV)})" if what == PROJECT_ENV and desktop() else what
        raise BadArgs(f"{shown} '{path}' is not an existing directory", hint=hint)
    return resolved


def _within(path: Path, root: Path) -> bool:
    return path == root or path.is_relative_to(root)


def _unique(paths: Sequence[Path]) -> list[Path]:
    seen: list[Path] = []
    for path in paths:
        if path not in seen:
            seen.append(path)
    return seen
