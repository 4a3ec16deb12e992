#!/usr/bin/env bash
# Set up everything (engine, hub and dev extras, torch) and run the whole test suite:
# ruff and mypy, then the claims of every tier (tiers whose prerequisites are
# missing are skipped with the reason) and the instruments' own tests.
#   bash scripts/test.sh [extra pytest args]
# torch: `torch==2.13.0` takes the CPU file already on CI machines; on a CUDA
# machine (a DGX Spark) install your own CUDA build first and set TORCH_SPEC="".
source "$(dirname "$0")/_venv.sh" "engine,hub,dev,openai,ollama" ${TORCH_SPEC-torch==2.13.0}
# Style and types first: they are part of what "the tests pass" means here.
"$VENV/bin/ruff" check claims tests fixtures conftest.py
"$VENV/bin/mypy"
set +e
"$VENV/bin/python" -m pytest "$@"
status=$?
set -e
[ "$status" -eq 5 ] && { echo "pytest collected no tests"; exit 1; }
exit "$status"
