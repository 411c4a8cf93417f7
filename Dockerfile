# wdgate in a container: Debian 12 with Node 20 (the official Node image), Debian's browsers and
# drivers, and nothing the tests need (scripts/setup.sh --runtime: no Java, no Python client).
# Built and run by test/integration/image.test.ts; without a registry, scripts/build-image.sh
# makes the base from Debian's packages first. Running it: README, "Running it in a container".
FROM docker.io/library/node:20-bookworm-slim

WORKDIR /opt/wdgate
# Debian's packages first (the largest layer, changed only with setup.sh): the browsers, their
# drivers and tools, and tini as PID 1 (it reaps what a browser leaves when it dies and passes
# SIGTERM on: wdgate waits only for its own children). apt's files are not kept.
COPY scripts/setup.sh scripts/
RUN apt-get update -qq \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends tini \
 && bash scripts/setup.sh --runtime --no-npm \
 && apt-get clean \
 && rm -rf /var/lib/apt/lists/*
# The npm packages, without the dev dependencies (changed only with package-lock.json), and of
# uWebSockets.js's builds only the one for this platform and Node (the others are 177 MB). Where
# the registry is reached through a proxy that signs with its own CA, scripts/build-image.sh
# mounts this machine's CA list for this step and names it here (it is not kept in the image).
COPY package.json package-lock.json ./
ARG NODE_EXTRA_CA_CERTS
RUN npm ci --omit=dev --engine-strict --no-audit --no-fund \
 && find node_modules/uWebSockets.js -maxdepth 1 -name 'uws_*.node' ! -name "uws_linux_$(node -p process.arch)_$(node -p process.versions.modules).node" -delete \
 && find /root/.npm -mindepth 1 -delete
# A user of its own, by number (Kubernetes' runAsNonRoot can check a number, not a name). As
# non-root, Chromium keeps its own sandbox (user namespaces). Its home holds the history of
# ended sessions (~/.cache/wdgate/history): mount a volume at /home/wdgate/.cache/wdgate to keep it.
RUN useradd --uid 10001 --user-group --create-home --shell /usr/sbin/nologin wdgate \
 && mkdir -p /home/wdgate/.cache/wdgate \
 && chown -R wdgate:wdgate /home/wdgate/.cache
COPY . .

USER 10001
EXPOSE 8000
HEALTHCHECK --interval=10s --timeout=3s CMD ["node", "-e", "fetch('http://127.0.0.1:8000/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["tini", "--", "node", "/opt/wdgate/bin/wdgate.js", "--headless"]
