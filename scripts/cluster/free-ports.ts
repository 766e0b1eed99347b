import { createServer, type AddressInfo, type Server } from "node:net";

/**
 * `count` distinct TCP ports that are free on `host` right now. Each is held open until all are
 * found, so they differ; a process started afterwards can still lose one to a race, which
 * fails its start loudly (EADDRINUSE) rather than silently.
 */
export async function freePorts(count: number, host = "127.0.0.1"): Promise<number[]> {
  const servers: Server[] = [];
  try {
    const ports: number[] = [];
    for (let i = 0; i < count; i++) {
      const server = createServer();
      servers.push(server);
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(0, host, () => resolve());
      });
      ports.push((server.address() as AddressInfo).port);
    }
    return ports;
  } finally {
    await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  }
}
