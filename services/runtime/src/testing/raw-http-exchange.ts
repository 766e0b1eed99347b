/**
 * One HTTP/1 exchange over a bare TCP socket, for requests no HTTP client would send (a broken
 * request line, a header without a colon, 100 KB of headers): writes the bytes as given and
 * reads what comes back.
 */
import { connect } from "node:net";

export interface RawAnswer {
  /** The status of the first response, 0 if none came. */
  readonly status: number;
  /** Header names in lower case; the last value of a repeated one. */
  readonly headers: ReadonlyMap<string, string>;
  readonly body: string;
  /** Everything the server sent. */
  readonly raw: string;
}

/**
 * Sends `request` to `baseUrl`'s host and port, and reads until the server has answered it
 * (a response with a Content-Length) or closes the connection (or `timeoutMs` passes). Given
 * several parts, sends each next one once the last is answered (requests on one connection).
 */
export function rawExchange(
  baseUrl: string,
  request: string | Buffer | readonly (string | Buffer)[],
  timeoutMs = 10_000,
): Promise<RawAnswer> {
  const parts = typeof request === "string" || Buffer.isBuffer(request) ? [request] : [...request];
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    let sent = 0;
    const send = (): void => {
      sent += 1;
      // Each part in one go; the server may answer and close before it has read all of it.
      socket.write(parts[sent - 1] ?? "", () => undefined);
    };
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within ${timeoutMs} ms: ${Buffer.concat(chunks).toString("latin1")}`));
    }, timeoutMs);
    const done = (): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(parseAnswer(Buffer.concat(chunks).toString("latin1")));
    };
    socket.on("data", (chunk: Buffer) => {
      chunks.push(chunk);
      const answered = completeResponses(Buffer.concat(chunks).toString("latin1"));
      if (answered >= parts.length) done();
      else if (answered >= sent) send();
    });
    // A server that refuses a request it has not read to the end may reset the connection
    // after its answer: what arrived before the reset is the answer.
    socket.once("error", done);
    socket.once("close", done);
    send();
  });
}

/** How many whole responses with a Content-Length `raw` holds. */
function completeResponses(raw: string): number {
  let count = 0;
  let at = 0;
  for (;;) {
    const headEnd = raw.indexOf("\r\n\r\n", at);
    if (headEnd < 0) return count;
    const length = /\r\ncontent-length: *(\d+)/i.exec(raw.slice(at, headEnd))?.[1];
    if (length === undefined) return count;
    const end = headEnd + 4 + Number(length);
    if (raw.length < end) return count;
    count += 1;
    at = end;
  }
}

function parseAnswer(raw: string): RawAnswer {
  const headEnd = raw.indexOf("\r\n\r\n");
  const head = headEnd < 0 ? raw : raw.slice(0, headEnd);
  const [statusLine = "", ...lines] = head.split("\r\n");
  const headers = new Map<string, string>();
  for (const line of lines) {
    const colon = line.indexOf(":");
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  const status = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1];
  return {
    status: status === undefined ? 0 : Number(status),
    headers,
    body: headEnd < 0 ? "" : raw.slice(headEnd + 4),
    raw,
  };
}
