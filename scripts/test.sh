#!/usr/bin/env bash
# npm test: the type check, the unit tests, the integration tests, the command tests on the other
# backends (scripts/test-backends.sh), and the container image's test last. The image is built
# from the start, in the background (scripts/build-image.sh: on a fresh machine minutes of apt
# downloads, dpkg and podman's layers), so that its build overlaps the other runs instead of
# adding to them; test/integration/image.test.ts then tests what was built. Where podman cannot
# build here (not root, no podman) the image test skips itself, saying why.
set -uo pipefail
cd "$(dirname "$0")/.."

build_pid=""
build_dir=$(mktemp -d)
finish() {
  # A run that stopped early ends the build with it (its whole process group), and waits for it.
  if [ -n "$build_pid" ] && kill -0 "$build_pid" 2>/dev/null; then
    kill -TERM -- "-$build_pid" 2>/dev/null
    wait "$build_pid" 2>/dev/null
  fi
  rm -rf "$build_dir"
}
trap finish EXIT

if [ "$(id -u)" = 0 ] && command -v podman >/dev/null 2>&1; then
  echo "# building the container image in the background (scripts/build-image.sh; its test runs last)"
  # At the lowest CPU and I/O priority: the tests meanwhile (timing-sensitive under load) go first,
  # and the build still ends long before they do (≈ 3 min of its ≈ 17).
  setsid nice -n 19 ionice -c 3 -t bash -c 'started=$(date +%s); bash scripts/build-image.sh --tag localhost/wdgate:test > "$1/log" 2>&1; code=$?; echo $(( $(date +%s) - started )) > "$1/seconds"; echo $code > "$1/status"' _ "$build_dir" &
  build_pid=$!
fi

npm run typecheck && npm run test:unit && npm run test:integration && npm run test:backends || exit 1

if [ -n "$build_pid" ]; then
  wait "$build_pid"
  build_pid=""
  export WDGATE_IMAGE_BUILD_LOG="$build_dir/log" WDGATE_IMAGE_BUILD_STATUS="$(cat "$build_dir/status" 2>/dev/null || echo 1)" WDGATE_IMAGE_BUILD_SECONDS="$(cat "$build_dir/seconds" 2>/dev/null || echo 0)"
fi
npm run test:image
