/**
 * Test support for the edge's own specs: a local edge on a loopback port, with what a spec does
 * not care about filled in (no token verifies, a 1 MiB body limit, always ready, a silent
 * logger, "edge" as the edge credential). A spec gives the services, how to reach them, and what
 * it tests (CORS, the public site, a deadline, a logger it reads).
 */
import { createDualProtocolServer, type DualProtocolServer } from "@commerce/runtime/server";
import { capturedLogger } from "@commerce/runtime/testing";
import { createEdge, type EdgeOptions } from "../edge.js";

export interface LoopbackEdge {
  /** `http://127.0.0.1:<port>` */
  readonly base: string;
  readonly server: DualProtocolServer;
}

export async function startLoopbackEdge(
  options: Pick<EdgeOptions, "services" | "transportFor"> & Partial<EdgeOptions>,
): Promise<LoopbackEdge> {
  const edge = createEdge({
    verifyToken: () => Promise.resolve(undefined),
    edgeCredentialFor: () => "edge",
    maxBodyBytes: 1 << 20,
    logger: capturedLogger().logger,
    isReady: () => true,
    ...options,
  });
  const server = createDualProtocolServer(edge.handler);
  return { base: `http://127.0.0.1:${await server.listen(0, "127.0.0.1")}`, server };
}
