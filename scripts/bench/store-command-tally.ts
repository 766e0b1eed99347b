/**
 * What a deployment asks its MongoDB-protocol store, counted on the wire: a TCP proxy between the
 * services and the store (FerretDB) that forwards every byte untouched and reads the commands
 * the clients send (OP_MSG, MongoDB's message of every command since 3.6). Each command counts
 * under its database (a service's own, `commerce_<service>`), its name, its collection and the
 * fields its filter names, e.g. `commerce_product find stock_entries {_id}`. The services are not
 * changed to be counted, so a baseline revision is counted exactly as the working tree is.
 *
 * Only the client's side is parsed; the answers pass through unread. A message of another
 * opcode (a driver's legacy first handshake, a compressed message) counts by its opcode.
 */
import { createConnection, createServer, type Server, type Socket } from "node:net";
import { BSON } from "mongodb";

export interface StoreCommandTally {
  /** The URL that reaches the store through the proxy. */
  readonly url: string;
  /** Every command counted so far, by its key (see the module comment). */
  counts(): ReadonlyMap<string, number>;
  stop(): Promise<void>;
}

const opMsg = 2013;
/** OP_MSG's flag: a CRC-32C checksum follows the sections. */
const checksumPresent = 1;

/** What a command's filter names: its top-level field names, `{}` when none. */
function fieldsOf(filter: unknown): string {
  if (typeof filter !== "object" || filter === null) return "";
  return `{${Object.keys(filter).sort().join(",")}}`;
}

/** The filter of the first statement of an update or delete (the first of a batch shows its kind). */
function firstStatementFilter(statements: unknown): unknown {
  return Array.isArray(statements) ? (statements[0] as { q?: unknown } | undefined)?.q : undefined;
}

/** `<db> <command> <collection> <filter fields>` of one command body. */
export function commandKey(body: Readonly<Record<string, unknown>>): string {
  const [name] = Object.keys(body);
  if (name === undefined) return "(empty command)";
  const database = typeof body["$db"] === "string" ? body["$db"] : "?";
  const target = body[name];
  const collection =
    typeof target === "string" ? target : typeof body["collection"] === "string" ? body["collection"] : "";
  let filter: unknown;
  switch (name) {
    case "find":
    case "count":
      filter = body["filter"] ?? body["query"];
      break;
    case "findAndModify":
      filter = body["query"];
      break;
    case "update":
    case "delete":
      filter = firstStatementFilter(body[name === "update" ? "updates" : "deletes"]);
      break;
    case "aggregate": {
      const [first] = Array.isArray(body["pipeline"]) ? (body["pipeline"] as unknown[]) : [];
      filter = (first as { $match?: unknown } | undefined)?.$match;
      break;
    }
  }
  return [database, name, collection, fieldsOf(filter)].filter((part) => part !== "").join(" ");
}

/** The command of one complete OP_MSG (its section of kind 0), or the message's opcode. */
function messageKey(message: Buffer): string {
  const opCode = message.readInt32LE(12);
  if (opCode !== opMsg) return `(opcode ${opCode})`;
  const flags = message.readUInt32LE(16);
  const end = message.length - ((flags & checksumPresent) !== 0 ? 4 : 0);
  let at = 20;
  while (at < end) {
    const kind = message.readUInt8(at);
    at += 1;
    const size = message.readInt32LE(at);
    if (kind === 0) {
      return commandKey(BSON.deserialize(message.subarray(at, at + size), { promoteValues: true }));
    }
    at += size; // kind 1: a document sequence, its size covering its identifier and documents
  }
  return "(message without a body)";
}

/** Calls `onMessage` with each complete message of a byte stream cut anywhere. */
function messageFramer(onMessage: (message: Buffer) => void): (chunk: Buffer) => void {
  let pending: Buffer = Buffer.alloc(0);
  return (chunk) => {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    while (pending.length >= 4) {
      const length = pending.readInt32LE(0);
      if (pending.length < length) return;
      onMessage(pending.subarray(0, length));
      pending = pending.subarray(length);
    }
  };
}

/** Starts the proxy in front of the store at `url` (`mongodb://host:port/...`). */
export async function startStoreCommandTally(url: string): Promise<StoreCommandTally> {
  const target = new URL(url);
  const counts = new Map<string, number>();
  const count = (message: Buffer): void => {
    let key: string;
    try {
      key = messageKey(message);
    } catch {
      key = "(unreadable message)";
    }
    counts.set(key, (counts.get(key) ?? 0) + 1);
  };
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const store = createConnection({ host: target.hostname, port: Number(target.port) });
    for (const socket of [client, store]) {
      sockets.add(socket);
      socket.on("error", () => undefined);
      socket.once("close", () => {
        sockets.delete(socket);
        client.destroy();
        store.destroy();
      });
    }
    client.on("data", messageFramer(count));
    client.pipe(store);
    store.pipe(client);
  });
  const port = await new Promise<number>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      resolve(typeof address === "object" && address !== null ? address.port : 0);
    });
  });
  const proxied = new URL(url);
  proxied.hostname = "127.0.0.1";
  proxied.port = String(port);
  return {
    url: proxied.toString(),
    counts: () => new Map(counts),
    stop: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** `after` minus `before`, key by key, without the keys that did not change. */
export function countsBetween(
  before: ReadonlyMap<string, number>,
  after: ReadonlyMap<string, number>,
): Map<string, number> {
  const changed = new Map<string, number>();
  for (const [key, total] of after) {
    const delta = total - (before.get(key) ?? 0);
    if (delta !== 0) changed.set(key, delta);
  }
  return changed;
}
