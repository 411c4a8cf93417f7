#!/usr/bin/env bash
# The command tests on the other backends, with the same assertions as on native. What a backend
# cannot do is declared by test name in test/helpers/gaps.ts: those tests are reported as skipped,
# with the reason. WDGATE_TEST_BACKENDS picks the backends (space-separated).
set -uo pipefail
cd "$(dirname "$0")/.."
FILES=(actions cookies document elements frames in-view interaction navigation prompts screenshots script windows session upload downloads)
# Backends that serve WebDriver BiDi run the BiDi tests too.
declare -A EXTRA=([native-firefox]="bidi")
status=0
for backend in ${WDGATE_TEST_BACKENDS:-playwright-chromium playwright-firefox native-firefox remote-chromedriver}; do
  echo "# command tests on the $backend backend"
  WDGATE_TEST_BACKEND="$backend" node --import tsx --test --test-concurrency=1 --test-reporter=spec \
    $(printf "test/integration/%s.test.ts " "${FILES[@]}" ${EXTRA[$backend]:-}) || status=1
done
exit $status
