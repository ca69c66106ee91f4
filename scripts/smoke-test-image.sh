#!/usr/bin/env bash
# Smoke test of the container image, as a user would try it: one container with a volume for the
# embedded database, wait until /readyz answers ready, create a run on the offline development model
# through REST with the bootstrap key and wait for its answer, then SIGTERM: the container must exit 0
# (runs handed back, the embedded PostgreSQL stopped). A second start on the same volume must find
# the data (the workspace) again and no migration to apply.
#
#   scripts/smoke-test-image.sh [IMAGE]      (default localhost/workspace-agent-service:latest)
#
# Needs podman (or CONTAINER_TOOL=docker), curl and jq. Leaves nothing behind (container and volume
# removed). Extra flags for `run` in RUN_FLAGS (e.g. this sandbox's --runtime runc).
set -euo pipefail

image="${1:-localhost/workspace-agent-service:latest}"
tool="${CONTAINER_TOOL:-podman}"
name="wsa-smoke-$$"
volume="wsa-smoke-$$"
port="${SMOKE_PORT:-18080}"
key="wsk_smoke$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
api="http://127.0.0.1:$port/api/v1"
read -r -a run_flags <<<"${RUN_FLAGS:-}"

cleanup() {
  "$tool" rm -f "$name" >/dev/null 2>&1 || true
  "$tool" volume rm -f "$volume" >/dev/null 2>&1 || true
}
trap cleanup EXIT
say() { printf 'smoke: %s\n' "$*" >&2; }
fail() {
  say "FAILED: $*"
  "$tool" logs --tail 30 "$name" >&2 || true
  exit 1
}

start() {
  "$tool" run -d --name "$name" "${run_flags[@]}" -v "$volume:/data" -p "127.0.0.1:$port:8080" \
    -e BOOTSTRAP_API_KEY="$key" "$image" >/dev/null
  local started=$SECONDS
  until [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/readyz")" = 200 ]; do
    [ "$("$tool" inspect -f '{{.State.Running}}' "$name")" = true ] || fail "the container exited before it was ready"
    [ $((SECONDS - started)) -lt 180 ] || fail "not ready after 180 s"
    sleep 1
  done
  say "ready after $((SECONDS - started)) s: $(curl -s "http://127.0.0.1:$port/readyz")"
}

stop() {
  local started=$SECONDS
  "$tool" kill --signal TERM "$name" >/dev/null
  local code
  code=$("$tool" wait "$name")
  say "SIGTERM → exit code $code after $((SECONDS - started)) s"
  [ "$code" = 0 ] || fail "exit code $code after SIGTERM"
  # The logs whole first: `grep -q` stopping early would fail the pipe under pipefail.
  local logs
  logs=$("$tool" logs "$name" 2>&1)
  grep -q '"signal":"SIGTERM".*"msg":"shutting down"' <<<"$logs" || fail "no shutdown on SIGTERM in the log"
  "$tool" rm "$name" >/dev/null
}

say "image $image: $("$tool" image inspect -f '{{.Size}}' "$image" | awk '{printf "%.0f MB", $1 / 1e6}')"
start
[ "$("$tool" exec "$name" id -u)" != 0 ] || fail "the service runs as root"
h="Authorization: Bearer $key"
j="Content-Type: application/json"
provider=$(curl -sf -H "$h" -H "$j" "$api/model-providers" -d '{"type":"development","name":"offline"}' | jq -r .id)
curl -sf -H "$h" -H "$j" "$api/models" -d "{\"key\":\"dev\",\"provider_id\":\"$provider\",\"provider_model\":\"echo\"}" >/dev/null
agent=$(curl -sf -H "$h" -H "$j" "$api/agents" -d '{"name":"Smoke","config":{"model":"dev"}}' | jq -r .id)
run=$(curl -sf -H "$h" -H "$j" -H "Prefer: wait=30" "$api/runs" \
  -d "{\"agent_id\":\"$agent\",\"input\":{\"content\":[{\"type\":\"text\",\"text\":\"hello from the image\"}]}}")
say "run: $(jq -c '{id, status, output}' <<<"$run")"
[ "$(jq -r .status <<<"$run")" = completed ] || fail "the run did not complete"
[ "$(jq -r .output <<<"$run")" = "echo: hello from the image" ] || fail "unexpected output"
stop

start
workspace=$(curl -sf -H "$h" "$api/workspace" | jq -r .id)
[ -n "$workspace" ] && [ "$workspace" != null ] || fail "the workspace is gone after a restart"
[ "$(curl -s "http://127.0.0.1:$port/readyz" | jq -r .pending_migrations)" = 0 ] || fail "migrations pending after a restart"
logs=$("$tool" logs "$name" 2>&1)
if grep -q 'applying migration' <<<"$logs"; then fail "the second start applied migrations again"; fi
say "restart on the same volume: workspace $workspace kept"
stop
say "passed"
