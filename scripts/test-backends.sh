#!/usr/bin/env bash
# The command tests on the other backends, with the same assertions as on native. What a backend
# cannot do is declared by test name in test/helpers/gaps.ts: those tests are reported as skipped,
# with the reason. WDGATE_TEST_BACKENDS picks the backends (space-separated). After a run that
# passed, the README's table row of that backend gets the run's counts (scripts/backends-table.ts).
#
# The backends run in two lanes at once (WDGATE_TEST_LANES, default 2; 1: one after another), each
# lane its own gateways and browsers: ≈ 8 min on 2 cores instead of ≈ 10. (The load of the other
# lane once brought out a race in the Playwright backend's wait for a clicked link's document:
# Firefox over BiDi reports the response's end before the commit; fixed in backends/playwright/pending.ts.)
set -uo pipefail
cd "$(dirname "$0")/.."
FILES=(actions cookies document elements frames in-view interaction navigation prompts screenshots script windows session upload downloads)
# Backends that serve WebDriver BiDi run the BiDi tests too.
declare -A EXTRA=([native-firefox]="bidi")
BACKENDS=(${WDGATE_TEST_BACKENDS:-native-firefox playwright-firefox remote-chromedriver playwright-chromium})
LANES=${WDGATE_TEST_LANES:-2}
logs=$(mktemp -d)
lanes=()
cleanup() {
  for pid in "${lanes[@]}"; do kill -TERM -- "-$pid" 2>/dev/null; done
  wait 2>/dev/null
  rm -rf "$logs"
}
trap cleanup EXIT

# One backend's run; its output and exit code in $logs.
run_backend() {
  local backend=$1
  # A test that hangs fails by name after its timeout (test/helpers/timeouts.ts).
  WDGATE_TEST_BACKEND="$backend" node --import tsx --import ./test/helpers/timeouts.ts --test --test-concurrency=1 --test-reporter=spec \
    $(printf "test/integration/%s.test.ts " "${FILES[@]}" ${EXTRA[$backend]:-}) > "$logs/$backend.log" 2>&1
  echo $? > "$logs/$backend.status"
}

# Lane i takes backends i, i + LANES, …: with two, native Firefox and remote → chromedriver in one, the
# Playwright backends in the other (≈ 300 and 250 s alone).
for ((lane = 0; lane < LANES; lane++)); do
  setsid bash -c "$(declare -p FILES EXTRA logs); $(declare -f run_backend); for ((i = $lane; i < ${#BACKENDS[@]}; i += $LANES)); do b=(${BACKENDS[*]}); run_backend \"\${b[i]}\"; done" &
  lanes+=($!)
done

# Every lane's end (each backend's exit code is in its status file).
wait "${lanes[@]}"
lanes=()

status=0
# Each backend's output, in the order named; then its README row.
for backend in "${BACKENDS[@]}"; do
  echo "# command tests on the $backend backend"
  cat "$logs/$backend.log" 2>/dev/null
  if [ "$(cat "$logs/$backend.status" 2>/dev/null)" != 0 ]; then status=1; continue; fi
  # The spec reporter's summary: "ℹ pass N", "ℹ skipped N".
  if [ -z "${WDGATE_TEST_GAPS:-}" ]; then
    node --import tsx scripts/backends-table.ts "$backend" "$(sed -n 's/^ℹ pass //p' "$logs/$backend.log" | tail -1)" "$(sed -n 's/^ℹ skipped //p' "$logs/$backend.log" | tail -1)" || status=1
  fi
done
exit $status
