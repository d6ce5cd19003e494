#!/usr/bin/env bash
# Install everything metalogic needs on a fresh Debian machine: SWI-Prolog from the OS packages,
# a virtual environment in .venv, and the package with its extras. Safe to run again: it skips
# what is already in place (a stamp file records the pyproject.toml it installed).
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
command -v swipl >/dev/null 2>&1 || need_apt+=(swi-prolog-nox)
command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)  # the report's browser test
if [ "${#need_apt[@]}" -gt 0 ]; then
  echo "setup: installing ${need_apt[*]} from the OS packages"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

PY="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  echo "setup: creating .venv"
  "$PY" -m venv .venv
  .venv/bin/pip install -q --upgrade pip
fi

stamp=.venv/.metalogic-installed
want="$(sha256sum pyproject.toml | cut -d' ' -f1)"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  echo "setup: installing metalogic and its dependencies into .venv"
  # llama-cpp-python compiles from source; the default native build crashes on some CPUs (AMX),
  # so build for a portable AVX2 target.
  export CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF"
  .venv/bin/pip install -q -e ".[all,test]" 2>&1 | grep -v -E "^WARNING: Location|^$" || true
  .venv/bin/python -c "import metalogic.engine, clingo, pyswip"
  echo "$want" > "$stamp"
fi
