// Preloaded (`node --import <this file> …`, `exitWithStarter` in processes.ts) into the Node
// processes the scripts start for the length of a run: the local topology's services, the
// embedded platform and the services under test. The starter holds the write end of the
// process's stdin; when the starter is gone, even by a crash or SIGKILL, stdin ends and the
// process gets SIGTERM, as if asked to stop: its own graceful shutdown runs. Only when stdin is
// a pipe or a socket: with stdin closed from the start (a container, `npm start`) nothing
// changes. Programs that cannot preload it run under run-while-stdin-open.sh instead (Envoy,
// ClickHouse, Jaeger, the Kubernetes control plane).
import { fstatSync } from "node:fs";

const input = fstatSync(0);
if (input.isFIFO() || input.isSocket()) {
  const stop = () => process.kill(process.pid, "SIGTERM");
  process.stdin.once("end", stop).once("error", stop).resume();
  // Watching stdin keeps nothing alive: a process that is done may still exit on its own.
  process.stdin.unref();
}
