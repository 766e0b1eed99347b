/**
 * What the service-port suite needs to know about the deployment under test, from the
 * environment (what `npm run cluster:up` prints; in embedded mode every service shares one port):
 *   AUTH_SERVICE_URL, USER_SERVICE_URL, PRODUCT_SERVICE_URL, ORDER_SERVICE_URL,
 *   NOTIFICATION_SERVICE_URL, PAYMENT_SERVICE_URL, ANALYTICS_SERVICE_URL,
 *   RECOMMENDATION_SERVICE_URL
 *                              each service's own gRPC port, e.g. http://127.0.0.1:10001
 *   EDGE_SECRET, PEER_SECRET   the deployment's two secrets, from which the suite derives each
 *                              hop's credential as the deployment does (ADR 0105), to show
 *                              that each works where it is meant to and nowhere else
 * Calls go over gRPC on HTTP/2 cleartext, as Envoy and the peers make them.
 */
import type { DescService } from "@bufbuild/protobuf";
import { createClient, type Client } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { serviceProcesses, type ServiceProcessName } from "@commerce/runtime/config";
import {
  edgeCredential,
  edgeCredentialHeader,
  peerCredential,
  peerCredentialHeader,
} from "@commerce/runtime/identity";

/** The services with a port of their own (the stream processor serves no RPC). */
export type ServiceName = Exclude<ServiceProcessName, "analytics-processor">;

export const serviceNames: readonly ServiceName[] = serviceProcesses.filter(
  (name): name is ServiceName => name !== "analytics-processor",
);

function required(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === "") {
    throw new Error(
      `the service-port suite needs ${name} (npm test sets it; see docs/developing.md, "Tests")`,
    );
  }
  return value;
}

/** The service's own port, `http://host:port`. */
export function serviceUrl(service: ServiceName): string {
  return required(`${service.toUpperCase()}_SERVICE_URL`);
}

export function serviceClient<S extends DescService>(service: ServiceName, api: S): Client<S> {
  return createClient(api, createGrpcTransport({ baseUrl: serviceUrl(service) }));
}

/** Which credentials a call presents. */
export interface Credentials {
  readonly edge?: string;
  readonly peer?: string;
}

/** What the edge presents to `service`: its credential for that service alone. */
export function asEdge(service: string): Credentials & { readonly headers: Record<string, string> } {
  const edge = edgeCredential(required("EDGE_SECRET"), service);
  return { edge, headers: { [edgeCredentialHeader]: edge } };
}

/** What `caller` presents to `callee`: its credential for that one hop. */
export function asPeer(
  caller: string,
  callee: string,
): Credentials & { readonly headers: Record<string, string> } {
  const peer = peerCredential(required("PEER_SECRET"), caller, callee);
  return { peer, headers: { [peerCredentialHeader]: peer } };
}

/** Identity headers as the edge would set them, with whatever credentials the caller has. */
export function forgedIdentity(
  identity: { readonly userId: number; readonly email: string; readonly role: string },
  credentials: Credentials,
): Record<string, string> {
  const headers: Record<string, string> = {
    "x-user-email": identity.email,
    "x-user-role": identity.role,
    "x-user-id": String(identity.userId),
  };
  if (credentials.edge !== undefined) headers[edgeCredentialHeader] = credentials.edge;
  if (credentials.peer !== undefined) headers[peerCredentialHeader] = credentials.peer;
  return headers;
}
