/**
 * Test support: a TCP proxy on loopback between a process and one server (its store, say), to
 * take that server away from that process alone, the ways it goes away in production:
 *   - `cut()`: every connection through the proxy is reset and new ones are refused (the port
 *     stops listening), as when the server's host is down or a network partition starts;
 *   - `stall()`: connections are accepted and nothing is answered, and what was under way gets
 *     no answer either, as from a wedged server;
 *   - `restore()`: connections are forwarded again (what a stall held is reset first, as a
 *     restarted server would).
 * Bytes are forwarded untouched, both ways, so any protocol runs through it.
 */
import { createConnection, createServer, type Server, type Socket } from "node:net";
import { setTimeout as delay } from "node:timers/promises";

export interface TcpProxy {
  /** The proxy's own address: `127.0.0.1:<port>`, fixed for its life. */
  readonly address: string;
  readonly port: number;
  /** Resets every connection and refuses new ones, until `restore`. */
  cut(): Promise<void>;
  /** Accepts connections and answers nothing, on new and existing ones alike, until `restore`. */
  stall(): void;
  /** Forwards again. */
  restore(): Promise<void>;
  /** Connections the proxy holds now (accepted and not yet closed). */
  connections(): number;
  close(): Promise<void>;
}

type Mode = "forward" | "stall" | "cut";

/** One connection through the proxy: the client's socket and, once made, the server's. */
interface Link {
  readonly client: Socket;
  server: Socket | undefined;
}

/** Starts a proxy to `target` (`host:port`) on a free loopback port. */
export async function startTcpProxy(target: string): Promise<TcpProxy> {
  const separator = target.lastIndexOf(":");
  const host = target.slice(0, separator);
  const targetPort = Number(target.slice(separator + 1));
  if (host === "" || !Number.isInteger(targetPort))
    throw new TypeError(`target must be host:port, got ${target}`);
  let mode: Mode = "forward";
  const links = new Set<Link>();

  const reset = (link: Link): void => {
    link.client.resetAndDestroy();
    link.server?.resetAndDestroy();
    links.delete(link);
  };

  const accept = (client: Socket): void => {
    const link: Link = { client, server: undefined };
    links.add(link);
    client.once("close", () => {
      link.server?.destroy();
      links.delete(link);
    });
    client.on("error", () => undefined);
    if (mode !== "forward") {
      // A wedged server: the connection is open, and nothing comes back.
      client.pause();
      return;
    }
    const server = createConnection({ host, port: targetPort });
    link.server = server;
    server.on("error", () => {
      client.destroy();
    });
    server.once("close", () => {
      client.destroy();
    });
    client.pipe(server);
    server.pipe(client);
  };

  let listener: Server = createServer(accept);
  const listen = async (port: number): Promise<number> => {
    // The port was ours a moment ago; a socket still closing may hold it for a little while.
    for (let attempt = 1; ; attempt++) {
      try {
        return await new Promise<number>((resolve, reject) => {
          listener.once("error", reject);
          listener.listen(port, "127.0.0.1", () => {
            listener.off("error", reject);
            const address = listener.address();
            resolve(typeof address === "object" && address !== null ? address.port : port);
          });
        });
      } catch (error) {
        if ((error as { code?: string }).code !== "EADDRINUSE" || attempt >= 50) throw error;
        listener = createServer(accept);
        await delay(100);
      }
    }
  };
  const unlisten = (): Promise<void> =>
    new Promise((resolve) => {
      if (!listener.listening) {
        resolve();
        return;
      }
      listener.close(() => resolve());
    });

  const port = await listen(0);
  return {
    address: `127.0.0.1:${port}`,
    port,
    async cut() {
      mode = "cut";
      const closing = unlisten();
      for (const link of [...links]) reset(link);
      await closing;
    },
    stall() {
      mode = "stall";
      for (const link of links) {
        link.client.unpipe();
        link.server?.unpipe();
        link.client.pause();
        link.server?.pause();
      }
    },
    async restore() {
      const was = mode;
      mode = "forward";
      if (was === "stall") for (const link of [...links]) reset(link);
      if (!listener.listening) {
        listener = createServer(accept);
        await listen(port);
      }
    },
    connections: () => links.size,
    async close() {
      mode = "cut";
      const closing = unlisten();
      for (const link of [...links]) reset(link);
      await closing;
    },
  };
}

/** The `host:port` of a URL with one host (`mongodb://127.0.0.1:27217/db` → `127.0.0.1:27217`). */
export function hostPortOf(url: string): string {
  const authority = /^[a-z][a-z0-9+.-]*:\/\/(?:[^@/?#]*@)?([^/?#]+)/i.exec(url)?.[1];
  if (authority === undefined || authority.includes(",") || !/:\d+$/.test(authority)) {
    throw new TypeError(`expected a URL with one host:port, got ${url}`);
  }
  return authority;
}

/** `url` with its `host:port` replaced by `address` (a proxy's), credentials and path kept. */
export function throughAddress(url: string, address: string): string {
  const host = hostPortOf(url);
  return url.replace(host, address);
}
