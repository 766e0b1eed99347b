import { expect } from "chai";
import { request as http1Request } from "node:http";
import { connect as http2Connect, type ClientHttp2Session } from "node:http2";
import { connect as netConnect } from "node:net";
import {
  createDualProtocolServer,
  type DualProtocolServer,
  type DualRequest,
} from "./dual-protocol-server.js";

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
