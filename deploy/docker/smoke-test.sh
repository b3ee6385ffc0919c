#!/usr/bin/env bash
# Self-hosting smoke test (CI): builds the images FROM $BASE_IMAGE, starts deploy/compose.yaml
# (with deploy/compose.local-images.yaml, so sandboxes use the local images) under a unique
# project name and port, and checks the running services:
#   - both containers become healthy (their HEALTHCHECKs: anonymous /api/health, signed
#     /v1/health of the sandbox host);
#   - /api/health with the management token reports the sandbox host reachable;
#   - a command run through the API executes in a sandbox container of the engine;
#   - /metrics of the API and of the sandbox host count that execution and that run;
#   - the `browser` builtin, once enabled, loads a page in a browser container whose only way out
#     is the egress socket shared through the compose file's named volume: the page is served
#     inside the sandbox-host container on 127.0.0.1:20130, a port the smoke's own override
#     allows (SANDBOX_BROWSER_ALLOW_LOOPBACK_PORTS, the test-only setting; no internet needed),
#     and its image on a private address must be refused by the proxy.
# It also checks the compose files (`config`) and the systemd unit (`systemd-analyze verify`).
# Everything it started is removed on exit (containers, network, volumes).
# Usage: BASE_IMAGE=skillgate-local/node:latest bash deploy/docker/smoke-test.sh
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$REPO"
log() { printf '[smoke] %s\n' "$*"; }
fail() {
  log "FAILED: $*"
  exit 1
}

if docker compose version >/dev/null 2>&1; then
  compose_cmd=(docker compose)
elif command -v docker-compose >/dev/null 2>&1; then
  compose_cmd=(docker-compose)
else
  fail "neither 'docker compose' nor 'docker-compose' is installed"
fi

export BASE_IMAGE="${BASE_IMAGE:-skillgate-local/node:latest}"
export SKILLGATE_API_IMAGE="skillgate-ci/api:latest"
export SKILLGATE_SANDBOX_HOST_IMAGE="skillgate-ci/sandbox-host:latest"
project="skillgate-smoke-$$"
export SANDBOX_INSTANCE="$project"
export SANDBOX_SECRET="$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')"
export MGMT_TOKEN="mgmt_$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')"
export METRICS_TOKEN="metrics_$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')"
export DOCKER_GID="$(stat -c %g /var/run/docker.sock)"
# The browser's socket volume has an engine-wide name: one per smoke run.
export SANDBOX_BROWSER_SOCKET_VOLUME="$project-browser-egress"
page_port=20130
export SKILLGATE_PORT="$(node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })')"
# Health checks every 2 s instead of the images' 30 s, so the test does not wait for nothing.
fast_checks="$(mktemp --suffix=.yaml)"
# The test page's loopback port is allowed here only, for the browse below.
printf 'services:\n  sandbox-host:\n    healthcheck:\n      interval: 2s\n    environment:\n      SANDBOX_BROWSER_ALLOW_LOOPBACK_PORTS: "%s"\n  api:\n    healthcheck:\n      interval: 2s\n' \
  "$page_port" >"$fast_checks"
compose() {
  "${compose_cmd[@]}" -p "$project" -f deploy/compose.yaml -f deploy/compose.local-images.yaml \
    -f "$fast_checks" "$@"
}
# The same settings in an env file, as deploy/docker/init-env.sh writes deploy/.env: `fresh` runs
# compose from a fresh shell (no exported variables; the project name comes from the file), as an
# operator's later `ps`, `logs` and `down` do.
env_file="$(mktemp)"
chmod 600 "$env_file"
for name in BASE_IMAGE SKILLGATE_API_IMAGE SKILLGATE_SANDBOX_HOST_IMAGE SANDBOX_INSTANCE \
  SANDBOX_SECRET MGMT_TOKEN METRICS_TOKEN DOCKER_GID SANDBOX_BROWSER_SOCKET_VOLUME SKILLGATE_PORT; do
  printf '%s=%s\n' "$name" "${!name}" >>"$env_file"
done
printf 'COMPOSE_PROJECT_NAME=%s\n' "$project" >>"$env_file"
fresh() {
  env -i PATH="$PATH" HOME="$HOME" ${DOCKER_HOST:+DOCKER_HOST="$DOCKER_HOST"} \
    "${compose_cmd[@]}" --env-file "$env_file" -f deploy/compose.yaml \
    -f deploy/compose.local-images.yaml -f "$fast_checks" "$@"
}

cleanup() {
  local status=$?
  if [ "$status" -ne 0 ]; then
    log "logs of the services:"
    compose logs --no-color --tail=80 2>&1 | sed 's/^/[smoke]   /' || true
  fi
  compose down --volumes --remove-orphans --timeout 30 >/dev/null 2>&1 || true
  rm -f "$fast_checks" "$env_file"
}
trap cleanup EXIT

if command -v systemd-analyze >/dev/null 2>&1; then
  log "verifying the systemd unit"
  systemd-analyze verify deploy/systemd/skillgate-sandbox-host.service
fi

log "building the images FROM $BASE_IMAGE"
bash deploy/docker/build-images.sh

# After the build: the compose files name the build context it prepares.
log "validating the compose files (${compose_cmd[*]})"
compose config --quiet

log "starting project $project (API on 127.0.0.1:$SKILLGATE_PORT)"
up_output="$(compose up --detach --no-build 2>&1)" || fail "compose up: $up_output"

wait_healthy() {
  local service="$1" id status=""
  id="$(compose ps -q "$service")"
  [ -n "$id" ] || fail "no container for $service"
  for _ in $(seq 1 90); do
    status="$(docker inspect -f '{{.State.Health.Status}}' "$id")"
    [ "$status" = "healthy" ] && return 0
    [ "$(docker inspect -f '{{.State.Running}}' "$id")" = "true" ] || fail "$service stopped"
    sleep 2
  done
  fail "$service is $status after 180 s"
}
wait_healthy sandbox-host
wait_healthy api
log "both containers are healthy"

API="http://127.0.0.1:$SKILLGATE_PORT"
anon="$(curl -fsS "$API/api/health")"
[ "$anon" = '{"status":"ok"}' ] || fail "anonymous /api/health answered $anon"
details="$(curl -fsS -H "authorization: Bearer $MGMT_TOKEN" "$API/api/health")"
[ "$(jq -r '.details.sandbox.ok' <<<"$details")" = "true" ] || fail "sandbox host not reachable: $details"
log "/api/health: ok, sandbox host reachable"

run="$(curl -fsS -X POST "$API/api/skills/executions" -H "authorization: Bearer $MGMT_TOKEN" \
  -H 'content-type: application/json' \
  -d '{"skillName":"execute_command","input":{"command":"echo","args":["hello-from-compose"]}}')"
[ "$(jq -r '.execution.status' <<<"$run")" = "success" ] || fail "execution: $run"
grep -q 'hello-from-compose' <<<"$run" || fail "execution output: $run"
log "execute_command ran in a sandbox container"

api_metrics="$(curl -fsS -H "authorization: Bearer $METRICS_TOKEN" "$API/metrics")"
grep -q '^skillgate_executions_total{skill="execute_command",status="success"} 1$' <<<"$api_metrics" ||
  fail "API /metrics lacks the execution"
# The sandbox host is not published; scrape it from the API container, on the services' network.
host_metrics="$(docker exec "$(compose ps -q api)" node -e '
  fetch("http://sandbox-host:20129/metrics", { headers: { authorization: `Bearer ${process.env.METRICS_TOKEN}` } })
    .then(async (r) => { if (r.status !== 200) throw new Error(`status ${r.status}`); process.stdout.write(await r.text()); })
    .catch((e) => { console.error(e.message); process.exit(1); });')"
grep -q '^skillgate_sandbox_runs_total{language="shell",outcome="success",pooled="false"} 1$' <<<"$host_metrics" ||
  fail "sandbox host /metrics lacks the run"
log "/metrics of the API and of the sandbox host count the execution"

# The browser builtin: a page served on the sandbox-host container's own loopback, reached only
# through the egress proxy's socket in the shared volume.
host_id="$(compose ps -q sandbox-host)"
docker exec -d "$host_id" node -e '
  require("node:http").createServer((req, res) => {
    res.writeHead(200, { "content-type": "text/html" });
    res.end("<title>Smoke page</title><h1>Browsed under compose</h1><img src=\"http://10.0.0.1/pixel.gif\">");
  }).listen(Number(process.argv[1]), "127.0.0.1");' "$page_port"
docker exec "$host_id" node -e '
  const url = `http://127.0.0.1:${process.argv[1]}/`;
  const until = Date.now() + 10000;
  const poll = () => fetch(url).then(() => process.exit(0), () => Date.now() < until ? setTimeout(poll, 200) : process.exit(1));
  poll();' "$page_port" || fail "the test page did not start in the sandbox-host container"
enabled="$(curl -fsS -X PUT "$API/api/skills/builtin-browser" -H "authorization: Bearer $MGMT_TOKEN" \
  -H 'content-type: application/json' -d '{"enabled":true}')"
[ "$(jq -r '.skill.enabled' <<<"$enabled")" = "true" ] || fail "enabling browser: $enabled"
browse="$(curl -sS -X POST "$API/api/skills/executions" -H "authorization: Bearer $MGMT_TOKEN" \
  -H 'content-type: application/json' \
  -d "{\"skillName\":\"browser\",\"input\":{\"url\":\"http://127.0.0.1:$page_port/\",\"timeoutMs\":45000}}")"
[ "$(jq -r '.execution.status' <<<"$browse")" = "success" ] || fail "browse: $browse"
[ "$(jq -r '.execution.output.title' <<<"$browse")" = "Smoke page" ] || fail "browse title: $browse"
grep -q 'Browsed under compose' <<<"$(jq -r '.execution.output.text' <<<"$browse")" ||
  fail "browse text: $browse"
jq -e '.execution.output.blocked | map(.target) | index("http://10.0.0.1/pixel.gif")' <<<"$browse" >/dev/null ||
  fail "the private image was not refused: $browse"
log "browser: a page loaded through the egress socket in volume $SANDBOX_BROWSER_SOCKET_VOLUME; its private-address image was refused"

log "ps, logs and down from a fresh shell (settings from the env file only)"
fresh_ps="$(fresh ps --services --filter status=running 2>&1)" || fail "fresh ps: $fresh_ps"
grep -qx api <<<"$fresh_ps" && grep -qx sandbox-host <<<"$fresh_ps" ||
  fail "fresh ps does not list both services: $fresh_ps"
fresh_logs="$(fresh logs --no-color --tail=20 api 2>&1)" || fail "fresh logs: $fresh_logs"
[ -n "$fresh_logs" ] || fail "fresh logs printed nothing"
log "stopping"
fresh down --volumes --remove-orphans --timeout 30 >/dev/null 2>&1 || fail "fresh down failed"
leftover="$(docker ps -aq --filter "label=org.skillgate.sandbox=$project")"
[ -z "$leftover" ] || fail "sandbox containers left behind: $leftover"
if docker volume inspect "$SANDBOX_BROWSER_SOCKET_VOLUME" >/dev/null 2>&1; then
  fail "volume $SANDBOX_BROWSER_SOCKET_VOLUME left behind"
fi
trap - EXIT
rm -f "$fast_checks" "$env_file"
log "passed"
