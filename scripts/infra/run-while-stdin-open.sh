#!/usr/bin/env bash
# Runs a server until this script's stdin reaches end of file, which happens when the process
# that started it exits, even by a crash; then stops the server with SIGTERM and waits for it.
# A SIGTERM to this script stops the server the same way, and the script exits when the server
# does, with its status. For servers that have no such option of their own (ClickHouse, the
# Kubernetes control plane); Kafka's and FerretDB's launchers have it built in.
set -u
"$@" </dev/null &
server=$!
cat >/dev/null <&0 &
watcher=$!
trap 'kill -TERM "$server" 2>/dev/null' TERM INT
wait -n "$server" "$watcher"
kill -TERM "$server" "$watcher" 2>/dev/null
wait "$server"
