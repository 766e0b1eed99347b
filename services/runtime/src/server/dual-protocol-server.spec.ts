import { expect } from "chai";
import { request as http1Request } from "node:http";
import { connect as http2Connect, type ClientHttp2Session } from "node:http2";
import { connect as netConnect } from "node:net";
import { rawExchange, type RawAnswer } from "../testing/raw-http-exchange.js";
import {
  createDualProtocolServer,
  type DualProtocolServer,
  type DualRequest,
} from "./dual-protocol-server.js";
import type { ErrorBody } from "./error-body.js";
import {
  expectationFailed,
  malformedRequest,
  maxRequestHeadBytes,
  maxRequestHeaderCount,
  requestHeadTooLarge,
  tunnelRefused,
  upgradeRefused,
} from "./protocol-refusals.js";

/** Reads a request body and answers "<HTTP version> <body length>", after `delayMs` when asked. */
function echo(req: DualRequest, res: Parameters<Parameters<typeof createDualProtocolServer>[0]>[1]): void {
  let length = 0;
  req.on("data", (chunk: Buffer) => (length += chunk.byteLength));
  req.once("end", () => {
    const delayMs = Number(req.headers["x-delay-ms"] ?? 0);
    setTimeout(() => res.end(`${req.httpVersion} ${length}`), delayMs);
  });
}

function http1Post(port: number, body: Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = http1Request({ host: "127.0.0.1", port, method: "POST", path: "/" }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk));
      res.once("end", () => resolve(text));
    });
    req.once("error", reject);
    req.end(body);
  });
}

function http2Post(session: ClientHttp2Session, body: Buffer, delayMs = 0): Promise<string> {
  return new Promise((resolve, reject) => {
    const stream = session.request({ ":method": "POST", ":path": "/", "x-delay-ms": String(delayMs) });
    let text = "";
    stream.setEncoding("utf8");
    stream.on("data", (chunk: string) => (text += chunk));
    stream.once("end", () => resolve(text));
    stream.once("error", reject);
    stream.end(body);
  });
}

describe("createDualProtocolServer", () => {
  let server: DualProtocolServer;
  let port: number;

  beforeEach(async () => {
    server = createDualProtocolServer(echo);
    port = await server.listen(0, "127.0.0.1");
  });

  afterEach(() => server.close(100));

  it("serves HTTP/1.1 and h2c clients on the same port", async () => {
    expect(await http1Post(port, Buffer.alloc(10))).to.equal("1.1 10");
    const session = http2Connect(`http://127.0.0.1:${port}`);
    try {
      expect(await http2Post(session, Buffer.alloc(10))).to.equal("2.0 10");
    } finally {
      session.close();
    }
  });

  it("serves an h2c client whose first packet carries more than a socket's buffer", async () => {
    // Everything the client writes before the connection is up leaves in one write: the
    // preface, the request and 60 KB of body, more than the socket's 16 KB buffer that the
    // server's first read fills, after which Node stops reading until someone asks again.
    const session = http2Connect(`http://127.0.0.1:${port}`, {
      createConnection: () => netConnect(port, "127.0.0.1"),
    });
    try {
      expect(await http2Post(session, Buffer.alloc(60_000))).to.equal("2.0 60000");
    } finally {
      session.close();
    }
  });

  it("lets an h2c request in flight finish when closing, then closes its connection", async () => {
    const session = http2Connect(`http://127.0.0.1:${port}`);
    const sessionClosed = new Promise<void>((resolve) => session.once("close", () => resolve()));
    const answered = http2Post(session, Buffer.alloc(1), 100);
    await new Promise((resolve) => setTimeout(resolve, 20));
    await server.close(5_000);
    expect(await answered).to.equal("2.0 1");
    await sessionClosed;
  });
});

function expectRefusal(answer: RawAnswer, body: ErrorBody): void {
  expect(answer.status, answer.raw.slice(0, 300)).to.equal(body.status);
  expect(answer.headers.get("content-type")).to.equal("application/json");
  expect(answer.headers.get("connection")).to.equal("close");
  expect(answer.headers.get("content-length")).to.equal(String(Buffer.byteLength(answer.body)));
  expect(JSON.parse(answer.body)).to.deep.equal(body);
}

describe("createDualProtocolServer: what the HTTP/1 server refuses by itself", () => {
  let server: DualProtocolServer;
  let base: string;
  const get = (head: string): string => `GET / HTTP/1.1\r\nhost: x\r\n${head}connection: close\r\n\r\n`;

  beforeEach(async () => {
    server = createDualProtocolServer(echo);
    base = `http://127.0.0.1:${await server.listen(0, "127.0.0.1")}`;
  });

  afterEach(() => server.close(100));

  it("answers a malformed request line or header with 400 and the JSON error body", async () => {
    for (const request of [
      "GARBAGE\r\n\r\n",
      "GET / HTTP/1.1\r\nhost: x\r\nno colon here\r\n\r\n",
      "GET / HTTP/1.1\r\nhost: x\r\nx-a: a\u0000b\r\n\r\n",
      "POST / HTTP/1.1\r\nhost: x\r\ncontent-length: 2\r\ntransfer-encoding: chunked\r\n\r\n0\r\n\r\n",
      "POST / HTTP/1.1\r\nhost: x\r\ncontent-length: abc\r\n\r\n",
    ]) {
      expectRefusal(await rawExchange(base, request), malformedRequest);
    }
  });

  it("answers a URL or headers over the limit with 431 and the JSON error body", async () => {
    expectRefusal(
      await rawExchange(base, get("").replace("/", `/?q=${"a".repeat(20_000)}`)),
      requestHeadTooLarge,
    );
    expectRefusal(await rawExchange(base, get(`x-big: ${"a".repeat(100_000)}\r\n`)), requestHeadTooLarge);
    expect(requestHeadTooLarge.message).to.equal(
      `request line and headers exceed ${maxRequestHeadBytes} bytes, or ${maxRequestHeaderCount} header fields`,
    );
  });

  it("refuses more than 100 header fields instead of dropping the rest", async () => {
    const fields = (count: number): string =>
      Array.from({ length: count }, (_, i) => `x-h${i}: v\r\n`).join("");
    expectRefusal(await rawExchange(base, get(fields(maxRequestHeaderCount - 1))), requestHeadTooLarge);
    // host and connection make 100 with 98 more
    const fine = await rawExchange(base, get(fields(maxRequestHeaderCount - 2)));
    expect(fine.status, fine.raw).to.equal(200);
  });

  it("answers an HTTP/1.1 request without Host with 400 and the JSON error body", async () => {
    expectRefusal(await rawExchange(base, "GET / HTTP/1.1\r\nconnection: close\r\n\r\n"), malformedRequest);
  });

  it("answers an expectation other than 100-continue with 417 and the JSON error body", async () => {
    expectRefusal(await rawExchange(base, get("expect: the-moon\r\n")), expectationFailed);
  });

  it("answers an unknown expectation over h2c with 417 and the JSON error body too", async () => {
    const session = http2Connect(base);
    try {
      const answer = await new Promise<{ status: number; type: unknown; text: string }>((resolve, reject) => {
        const stream = session.request({ ":method": "GET", ":path": "/", expect: "the-moon" });
        let text = "";
        let status = 0;
        let type: unknown;
        stream.once("response", (headers) => {
          status = Number(headers[":status"]);
          type = headers["content-type"];
        });
        stream.setEncoding("utf8");
        stream.on("data", (chunk: string) => (text += chunk));
        stream.once("end", () => resolve({ status, type, text }));
        stream.once("error", reject);
        stream.end();
      });
      expect(answer.status).to.equal(417);
      expect(answer.type).to.equal("application/json");
      expect(JSON.parse(answer.text)).to.deep.equal(expectationFailed);
    } finally {
      session.close();
    }
  });

  it("refuses a protocol upgrade with 403 and the JSON error body", async () => {
    expectRefusal(
      await rawExchange(
        base,
        "GET / HTTP/1.1\r\nhost: x\r\nconnection: upgrade\r\nupgrade: websocket\r\n\r\n",
      ),
      upgradeRefused,
    );
  });

  it("refuses a tunnel (CONNECT) with 405 and the JSON error body", async () => {
    expectRefusal(
      await rawExchange(base, "CONNECT example.test:443 HTTP/1.1\r\nhost: example.test:443\r\n\r\n"),
      tunnelRefused,
    );
  });

  it("answers a broken chunk in the middle of a body with 400 and the JSON error body", async () => {
    const request = "POST / HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\n\r\n2\r\n{}\r\nzz\r\n";
    expectRefusal(await rawExchange(base, request), malformedRequest);
  });

  it("refuses a malformed request that follows an answered one on the same connection", async () => {
    const answer = await rawExchange(base, ["GET / HTTP/1.1\r\nhost: x\r\n\r\n", "GARBAGE\r\n\r\n"]);
    expect(answer.status).to.equal(200);
    const second = answer.raw.slice(answer.raw.indexOf("HTTP/1.1", 1));
    expect(second).to.match(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(second.endsWith(JSON.stringify(malformedRequest))).to.equal(true);
  });
});
