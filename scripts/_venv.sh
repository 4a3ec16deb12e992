# shellcheck shell=bash
# Shared by the scripts: create (or reuse) the virtual environment and install
# the suite into it. Usage: source scripts/_venv.sh EXTRAS [PIP ARGS...]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
VENV="${VENV:-.venv}"
PYTHON="${PYTHON:-python3}"
if [ ! -x "$VENV/bin/python" ]; then
  "$PYTHON" -m venv "$VENV"
  "$VENV/bin/python" -m pip install --quiet --upgrade pip
fi
extras="$1"; shift
target="."
[ -n "$extras" ] && target=".[${extras}]"
# llama-cpp-python (the engine extra) builds from source. Its default native build
# crashed on a CPU with AMX (a Sapphire Rapids VM: SIGSEGV in ggml's AMX matmul on the
# first decode of the bundled Gemma GGUF, llama-cpp-python 0.3.36), so unless CMAKE_ARGS
# says otherwise it is built for the AVX2 level every x86-64 machine since 2015 has
# (as the prebuilt Ollama runners are). pip's wheel cache ignores CMAKE_ARGS, hence
# --no-cache-dir; an installed build is kept.
if [[ ",$extras," == *,engine,* && "$(uname -m)" == x86_64 ]] \
    && ! "$VENV/bin/python" -c "import llama_cpp" 2>/dev/null; then
  engine_requirement=$("$VENV/bin/python" - <<'PY'
import tomllib
with open("pyproject.toml", "rb") as f:
    print(tomllib.load(f)["project"]["optional-dependencies"]["engine"][0])
PY
)
  CMAKE_ARGS="${CMAKE_ARGS:--DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON}" \
    "$VENV/bin/python" -m pip install --quiet --no-cache-dir "$engine_requirement"
fi
"$VENV/bin/python" -m pip install --quiet --editable "$target" "$@"
