/**
 * Test support: an HTTP proxy between the analytics stream processor and ClickHouse, which
 * records what the processor inserts and can kill it at one exact point (ADR 0084):
 * after ClickHouse has acknowledged an insert, before the processor hears of it, so
 * before it can commit the batch's offsets.
 *
 * Every request is forwarded as it came. `@clickhouse/client` sends an insert with its statement
 * in the `query` URL parameter (`INSERT INTO <table> FORMAT JSONEachRow`) and the rows in the
 * body, one JSON object a line; the proxy reads the table, the rows and their `event_id`s from there.
 * Answers are passed back whole, once ClickHouse has sent all of one.
 */
import { Agent, createServer, request, type IncomingHttpHeaders, type IncomingMessage } from "node:http";
import type { AddressInfo, Socket } from "node:net";

/** One insert ClickHouse acknowledged with 200. */
export interface SeenInsert {
  readonly table: string;
  /** The rows, each its JSONEachRow line. */
  readonly rows: readonly string[];
  /** Each row's `event_id` (the analytics tables'). */
  readonly eventIds: readonly string[];
}

export interface ClickHouseCrashProxy {
  /** `http://127.0.0.1:<port>`; the processor's CLICKHOUSE_URL is this plus a database path. */
  readonly url: string;
  /** Every insert ClickHouse acknowledged, in the order of its answers, a cut one included. */
  readonly inserts: readonly SeenInsert[];
  /**
   * Arms the crash. The next insert is forwarded; once ClickHouse has answered it 200 in full
   * (the rows are stored), `crash` runs (it kills the writer), and then the writer's connection
   * is cut without an answer. Requests that arrive meanwhile are held, never forwarded, and cut
   * with it. Resolves with that insert; rejects if ClickHouse refused it (nothing was placed).
   * Given a table, the inserts into other tables pass, and the next one into it is the one.
   */
  crashAfterNextInsert(crash: () => Promise<void>, table?: string): Promise<SeenInsert>;
  close(): Promise<void>;
}

interface Armed {
  readonly crash: () => Promise<void>;
  /** Only an insert into this table sets it off; any insert when undefined. */
  readonly table: string | undefined;
  readonly resolve: (insert: SeenInsert) => void;
  readonly reject: (error: Error) => void;
}

interface Answer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}

/** Headers of one hop: the proxy sends its answers whole, with their own length. */
const hopHeaders = new Set(["connection", "keep-alive", "transfer-encoding", "content-length"]);

/** An insert of rows in the body; the client sends every other statement in the body itself. */
const insertStatement = /^\s*INSERT\s+INTO\s+`?(\w+)`?\s+FORMAT\s+JSONEachRow\s*$/i;

export async function startClickHouseCrashProxy(clickHouseUrl: string): Promise<ClickHouseCrashProxy> {
  const upstream = new URL(clickHouseUrl);
  const agent = new Agent({ keepAlive: true });
  const inserts: SeenInsert[] = [];
  let armed: Armed | undefined;
  /** Sockets of the requests held while a crash is under way. */
  let held: Socket[] | undefined;

  const forward = (incoming: IncomingMessage, body: Buffer): Promise<Answer> =>
    new Promise((resolve, reject) => {
      const outgoing = request(
        new URL(incoming.url ?? "/", upstream),
        {
          method: incoming.method ?? "GET",
          headers: { ...incoming.headers, host: upstream.host, "content-length": String(body.length) },
          agent,
        },
        (answer) => {
          const chunks: Buffer[] = [];
          answer.on("data", (chunk: Buffer) => chunks.push(chunk));
          answer.once("end", () => {
            resolve({
              status: answer.statusCode ?? 502,
              headers: answer.headers,
              body: Buffer.concat(chunks),
            });
          });
          answer.once("error", reject);
        },
      );
      outgoing.once("error", reject);
      outgoing.end(body);
    });

  const server = createServer((incoming, response) => {
    void (async () => {
      const chunks: Buffer[] = [];
      try {
        for await (const chunk of incoming) chunks.push(chunk as Buffer);
      } catch {
        return; // the writer went away mid-request
      }
      if (held !== undefined) {
        held.push(incoming.socket);
        return;
      }
      const body = Buffer.concat(chunks);
      const query = new URL(incoming.url ?? "/", "http://proxy").searchParams.get("query") ?? "";
      const table = insertStatement.exec(query)?.[1];
      const crash =
        table === undefined || (armed?.table !== undefined && armed.table !== table) ? undefined : armed;
      if (crash !== undefined) {
        armed = undefined;
        held = [];
      }
      let answer: Answer;
      try {
        answer = await forward(incoming, body);
      } catch (error) {
        answer = { status: 502, headers: {}, body: Buffer.from(`proxy: ${String(error)}`) };
      }
      const insert = table !== undefined && answer.status === 200 ? seenInsert(table, body) : undefined;
      if (insert !== undefined) inserts.push(insert);
      if (crash === undefined) {
        const headers = Object.fromEntries(
          Object.entries(answer.headers).filter(([name]) => !hopHeaders.has(name)),
        );
        response.writeHead(answer.status, { ...headers, "content-length": answer.body.length });
        response.end(answer.body);
        return;
      }
      if (insert === undefined) {
        crash.reject(
          new Error(`ClickHouse refused the insert (${answer.status}): ${answer.body.toString()}`),
        );
      } else {
        try {
          await crash.crash();
          crash.resolve(insert);
        } catch (error) {
          crash.reject(error instanceof Error ? error : new Error(String(error)));
        }
      }
      incoming.socket.destroy();
      for (const socket of held ?? []) socket.destroy();
      held = undefined;
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    inserts,
    crashAfterNextInsert(crash, table) {
      if (armed !== undefined || held !== undefined) throw new Error("a crash is armed already");
      return new Promise((resolve, reject) => {
        armed = { crash, table, resolve, reject };
      });
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      agent.destroy();
    },
  };
}

/** An insert's rows and the `event_id` of each. */
function seenInsert(table: string, body: Buffer): SeenInsert {
  const rows = body
    .toString("utf8")
    .split("\n")
    .filter((line) => line.trim() !== "");
  const eventIds = rows.map((line) => String((JSON.parse(line) as { event_id?: unknown }).event_id));
  return { table, rows, eventIds };
}
