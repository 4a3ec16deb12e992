#!/usr/bin/env bash
# Set up everything (engine, hub and dev extras, torch) and run the whole test suite:
# ruff and mypy, then the claims of every tier (tiers whose prerequisites are
# missing are skipped with the reason) and the instruments' own tests.
#   bash scripts/test.sh [extra pytest args]
# torch: `torch==2.13.0` takes the CPU file already on CI machines; on a CUDA
# machine (a DGX Spark) install your own CUDA build first and set TORCH_SPEC="".
#
# The tests run on every core (pytest-xdist, WORKERS=auto; WORKERS=0 runs them one at a
# time), except those marked `alone` (they time something side by side, so a neighbour
# would move their figures): they run afterwards, by themselves. Passing -m replaces that
# split with your own selection. The evidence and report of this run go to
# test-reports/ (TEST_REPORTS), never to reports/, which holds a certification's.
# The mutation audit runs in full here, whatever reports/audit.json holds
# (tests/audit/test_audit.py runs `claims audit --force`); certify-offline.sh reuses it.
# shellcheck disable=SC2086  # unquoted on purpose: TORCH_SPEC="" passes no argument
source "$(dirname "$0")/_venv.sh" "engine,hub,dev,openai,ollama" ${TORCH_SPEC-torch==2.13.0}
require_cache
WORKERS="${WORKERS:-auto}"
TEST_REPORTS="${TEST_REPORTS:-test-reports}"
# Style and types first: they are part of what "the tests pass" means here.
begin "ruff and mypy" "30 s"
"$VENV/bin/ruff" check claims tests fixtures conftest.py
"$VENV/bin/mypy"
done_in

own_selection=0
for arg in "$@"; do
  case "$arg" in -m|-m*|--markexpr*) own_selection=1 ;; esac
done
# pytest's testpaths is the claim tests alone (a bare `pytest -m offline` is the main job):
# the suite's own tests are named here, unless an argument names a path of its own
# (`bash scripts/test.sh tests/catalog`, or a test's node id).
paths=(tests)
for arg in "$@"; do
  [ -e "${arg%%::*}" ] && paths=()
done
xdist=(-n "$WORKERS")
[ "$WORKERS" = 0 ] && xdist=(-p no:xdist)

# pytest runs as a job `stoppable` waits for: a Ctrl-C, SIGTERM or closed terminal ends
# it through its interrupt path (the evidence of the checks it finished is written) and
# then this script, instead of going on to the next step (scripts/_venv.sh).
set +e
if [ "$own_selection" = 1 ]; then
  begin "running pytest on $WORKERS workers, your selection" "25 min for everything"
  stoppable "$VENV/bin/python" -m pytest "${paths[@]}" "${xdist[@]}" \
    --claims-evidence "$TEST_REPORTS/evidence.json" \
    --claims-report-html "$TEST_REPORTS/report.html" "$@"
  status=$JOB_STATUS
  done_in
else
  begin "running the tests on $WORKERS workers (all but those marked alone)" \
    "11 min on two idle cores, 30 min on busy ones"
  stoppable "$VENV/bin/python" -m pytest "${paths[@]}" "${xdist[@]}" -m "not alone" \
    --claims-evidence "$TEST_REPORTS/evidence.json" \
    --claims-report-html "$TEST_REPORTS/report.html" "$@"
  status=$JOB_STATUS
  done_in
  begin "running the tests marked alone, one at a time" "2 to 3 min"
  stoppable "$VENV/bin/python" -m pytest "${paths[@]}" -p no:xdist -m alone \
    --claims-evidence "$TEST_REPORTS/alone/evidence.json" \
    --claims-report-html "$TEST_REPORTS/alone/report.html" "$@"
  alone=$JOB_STATUS
  done_in
  # 5 (nothing selected) is not a failure of the second call: a path argument may hold no
  # test marked alone.
  [ "$status" -eq 0 ] && [ "$alone" -ne 5 ] && status=$alone
fi
set -e
[ "$status" -eq 5 ] && { echo "pytest collected no tests"; exit 1; }
say "this run's evidence: $TEST_REPORTS/evidence.json (reports/ is left to the certifications)"
exit "$status"
