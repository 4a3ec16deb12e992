#!/usr/bin/env bash
# The main job: set up, then run the offline certification and write its report.
#   bash scripts/certify-offline.sh [extra pytest args]
# Leaves reports/evidence.json and reports/report.html. Needs no network beyond
# PyPI for the install, no server and no GPU. It selects claims only (-m offline):
# the suite's own tests are bash scripts/test.sh's.
# First the mutation audit: it perturbs each stated figure and reruns its checks;
# the report shows its summary (reports/audit.json). It reruns only when something it
# reads has changed (the catalog, recorded figures, claim tests, probes, fixtures, the
# suite's version: claims/inputs/audit_digest.py) since the result kept there, or since
# the one kept with the sources (claims/audit/kept.json, proved current by the suite's
# own tests and CI), so a fresh clone's first certification reuses that one, and takes
# about as long as pytest alone, as a second one does; AUDIT=force reruns it regardless. The transcribed fixtures are
# checked against their SHA-256 manifest on every run; with CLAIMS_DOCUMENTS=DIR
# (the folder of the source documents) they are also checked against the documents.
source "$(dirname "$0")/_venv.sh" ""
require_cache
set +e
mkdir -p reports
audit_args=(-o reports/audit.json)
[ "${AUDIT:-}" = force ] && audit_args+=(--force)
begin "the mutation audit: each stated figure perturbed, its checks rerun" \
  "a second: the result kept with the sources; 1 to 3 min where a source has changed"
audit=0
quietly "running the audit" reports/audit.txt \
  "$VENV/bin/python" -m claims audit "${audit_args[@]}" || audit=$?
audit_s=$((SECONDS - step_start))
tail -n 4 reports/audit.txt
begin "the offline certification (pytest -m offline)" "5 to 30 s"
# A job `stoppable` waits for: a Ctrl-C, SIGTERM or closed terminal ends it through its
# interrupt path, keeping the evidence of the checks it finished (scripts/_venv.sh).
stoppable "$VENV/bin/python" -m pytest -m offline "$@"
status=$JOB_STATUS
tests_s=$((SECONDS - step_start))
set -e
# A figure no check is sensitive to is a defect of the suite, not of a claim.
[ "$status" -eq 0 ] && [ "$audit" -ne 0 ] && status=$audit
echo "evidence: $(pwd)/reports/evidence.json"
echo "report:   $(pwd)/reports/report.html"
echo "took:     audit ${audit_s} s, offline claims ${tests_s} s"
# 5 = no tests selected (e.g. a --claim that has no offline test): not a failure of the suite.
[ "$status" -eq 5 ] && exit 0
exit "$status"
