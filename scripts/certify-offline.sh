#!/usr/bin/env bash
# The main job: set up, then run the offline certification and write its report.
#   bash scripts/certify-offline.sh [extra pytest args]
# Leaves reports/evidence.json and reports/report.html. Needs no network beyond
# PyPI for the install, no server and no GPU.
source "$(dirname "$0")/_venv.sh" ""
set +e
"$VENV/bin/python" -m pytest -m offline "$@"
status=$?
set -e
echo "evidence: $(pwd)/reports/evidence.json"
echo "report:   $(pwd)/reports/report.html"
# 5 = no tests selected (e.g. a --claim that has no offline test): not a failure of the suite.
[ "$status" -eq 5 ] && exit 0
exit "$status"
