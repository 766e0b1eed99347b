import { expect } from "chai";
import { createConnection, createServer, type Server, type Socket } from "node:net";
import { once } from "node:events";
import { setTimeout as delay } from "node:timers/promises";
import { hostPortOf, startTcpProxy, throughAddress, type TcpProxy } from "./tcp-proxy.js";

/** Connects to `port` and resolves with the socket, or rejects with the connection's error. */
async function connect(port: number): Promise<Socket> {
  const socket = createConnection({ host: "127.0.0.1", port });
  await Promise.race([
    once(socket, "connect"),
    once(socket, "error").then(([error]) => Promise.reject(error as Error)),
  ]);
  return socket;
}

/** Sends `text` and resolves with what comes back within `ms`, or undefined when nothing does. */
async function echoOf(socket: Socket, text: string, ms = 2_000): Promise<string | undefined> {
  const answer = once(socket, "data").then(([data]) => (data as Buffer).toString());
  socket.write(text);
  return Promise.race([answer, delay(ms).then(() => undefined)]);
}

/** Resolves when `socket` closes (a reset emits an error first, which does not reject this). */
function closeOf(socket: Socket): Promise<void> {
  return new Promise((resolve) => socket.once("close", () => resolve()));
}

describe("startTcpProxy", () => {
  let echo: Server;
  let proxy: TcpProxy;
  const sockets: Socket[] = [];
  const served: Socket[] = [];

  beforeEach(async () => {
    echo = createServer((socket) => {
      served.push(socket);
      socket.on("error", () => undefined);
      socket.pipe(socket);
    });
    echo.listen(0, "127.0.0.1");
    await once(echo, "listening");
    const address = echo.address();
    proxy = await startTcpProxy(
      `127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}`,
    );
  });

  afterEach(async () => {
    for (const socket of sockets.splice(0)) socket.destroy();
    await proxy.close();
    for (const socket of served.splice(0)) socket.destroy();
    await new Promise((resolve) => echo.close(resolve));
  });

  async function opened(): Promise<Socket> {
    const socket = await connect(proxy.port);
    socket.on("error", () => undefined);
    sockets.push(socket);
    return socket;
  }

  it("forwards both ways", async () => {
    expect(await echoOf(await opened(), "ping")).to.equal("ping");
    expect(proxy.address).to.equal(`127.0.0.1:${proxy.port}`);
  });

  it("cut: resets the connections it holds and refuses new ones; restore: forwards again on the same port", async () => {
    const before = await opened();
    expect(await echoOf(before, "one")).to.equal("one");
    const closed = closeOf(before);
    await proxy.cut();
    await closed;
    const refused = (await connect(proxy.port).catch((error: unknown) => error)) as { code?: string };
    expect(refused.code).to.equal("ECONNREFUSED");

    await proxy.restore();
    expect(await echoOf(await opened(), "two")).to.equal("two");
  });

  it("stall: accepts connections and answers nothing, old or new; restore resets what it held and forwards again", async () => {
    const before = await opened();
    proxy.stall();
    expect(await echoOf(before, "held", 300)).to.equal(undefined);
    const during = await opened();
    expect(await echoOf(during, "also held", 300)).to.equal(undefined);
    expect(proxy.connections()).to.equal(2);

    const reset = closeOf(during);
    await proxy.restore();
    await reset;
    expect(await echoOf(await opened(), "back")).to.equal("back");
  });

  it("reads and replaces the host of a URL", () => {
    expect(hostPortOf("mongodb://u:p@127.0.0.1:27217/db?x=1")).to.equal("127.0.0.1:27217");
    expect(throughAddress("mongodb://u:p@127.0.0.1:27217/db?x=1", "127.0.0.2:4000")).to.equal(
      "mongodb://u:p@127.0.0.2:4000/db?x=1",
    );
    expect(() => hostPortOf("mongodb://a:1,b:2/")).to.throw(TypeError);
  });
});
