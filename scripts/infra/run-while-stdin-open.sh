#!/usr/bin/env bash
# Runs a server until this script's stdin reaches end of file, which happens when the process
# that started it exits, even by a crash; then stops the server with SIGTERM and waits for it.
# A SIGTERM to this script stops the server the same way, and the script exits when the server
# does, with its status. For servers that have no such option of their own (ClickHouse, the
# Kubernetes control plane); Kafka's and FerretDB's launchers have it built in.
#
# Usage: run-while-stdin-open.sh [--kill-after=SECONDS] COMMAND [ARG...]
# --kill-after sends SIGKILL to a server still running that long after its SIGTERM: when the
# starter crashes, a control plane's components all get SIGTERM at once, and kube-apiserver's
# graceful shutdown then waits for an etcd that is already gone.
set -u
kill_after=""
case "${1:-}" in
--kill-after=*)
  kill_after="${1#--kill-after=}"
  shift
  ;;
esac
"$@" </dev/null &
server=$!
cat >/dev/null <&0 &
watcher=$!
trap 'kill -TERM "$server" 2>/dev/null' TERM INT
wait -n "$server" "$watcher"
kill -TERM "$server" "$watcher" 2>/dev/null
if [ -n "$kill_after" ]; then
  (sleep "$kill_after" && kill -KILL "$server" 2>/dev/null) &
  killer=$!
fi
wait "$server"
status=$?
if [ -n "$kill_after" ]; then kill "$killer" 2>/dev/null; fi
exit "$status"
