#!/usr/bin/env bash
# The command tests on the other backends, with the same assertions as on native. What a backend
# cannot do is declared by test name in test/helpers/gaps.ts: those tests are reported as skipped,
# with the reason. WDGATE_TEST_BACKENDS picks the backends (space-separated). After a run that
# passed, the README's table row of that backend gets the run's counts (scripts/backends-table.ts).
set -uo pipefail
cd "$(dirname "$0")/.."
FILES=(actions cookies document elements frames in-view interaction navigation prompts screenshots script windows session upload downloads)
# Backends that serve WebDriver BiDi run the BiDi tests too.
declare -A EXTRA=([native-firefox]="bidi")
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
for backend in ${WDGATE_TEST_BACKENDS:-playwright-chromium playwright-firefox native-firefox remote-chromedriver}; do
  echo "# command tests on the $backend backend"
  # A test that hangs fails by name after its timeout (test/helpers/timeouts.ts).
  WDGATE_TEST_BACKEND="$backend" node --import tsx --import ./test/helpers/timeouts.ts --test --test-concurrency=1 --test-reporter=spec \
    $(printf "test/integration/%s.test.ts " "${FILES[@]}" ${EXTRA[$backend]:-}) | tee "$log"
  if [ "${PIPESTATUS[0]}" != 0 ]; then status=1; continue; fi
  # The spec reporter's summary: "ℹ pass N", "ℹ skipped N".
  if [ -z "${WDGATE_TEST_GAPS:-}" ]; then
    node --import tsx scripts/backends-table.ts "$backend" "$(sed -n 's/^ℹ pass //p' "$log" | tail -1)" "$(sed -n 's/^ℹ skipped //p' "$log" | tail -1)" || status=1
  fi
done
exit $status
