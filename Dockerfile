# wdgate in a container: Debian 12 with Node 20, Debian's browsers and drivers, and nothing the
# tests need (scripts/setup.sh --runtime: no Java, no Python client). Not built on the machine
# that wrote it (no Docker engine there); deploy/kubernetes/ runs it.
FROM node:20-bookworm-slim

WORKDIR /opt/wdgate
COPY package.json package-lock.json ./
COPY scripts/setup.sh scripts/
# tini as PID 1: it reaps what a browser leaves when it dies (wdgate waits only for its own children).
RUN apt-get update -qq \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends tini \
 && bash scripts/setup.sh --runtime \
 && rm -rf /var/lib/apt/lists/* /root/.npm
COPY . .

RUN useradd --system --create-home --uid 10001 wdgate
USER wdgate
EXPOSE 8000
HEALTHCHECK --interval=10s --timeout=3s CMD ["node", "-e", "fetch('http://127.0.0.1:8000/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["tini", "--", "node", "/opt/wdgate/bin/wdgate.js", "--headless"]
