/**
 * Where a service in its own process finds the peers it calls, and what it presents to each:
 * each peer's gRPC port, an `http://host:port` address (in Kubernetes, the peer's Service on
 * port 9090), and the credential of that one hop (ADR 0105). The processes that read an address
 * are the peer's callers: these declarations are the platform's call graph (`peerCalls`).
 */
import {
  declareSettings,
  serviceProcesses,
  type ServiceProcessName,
  type Setting,
} from "../config/setting.js";

export const peerAddresses = declareSettings({
  USER_SERVICE_URL: {
    whenUnset: "required",
    meaning: "The User service's address, which Auth calls",
    readBy: ["auth"],
  },
  AUTH_SERVICE_URL: {
    whenUnset: "required",
    meaning: "The Auth service's address, which User, Order, Notification and Recommendation call",
    readBy: ["user", "order", "notification", "recommendation"],
  },
  ORDER_SERVICE_URL: {
    whenUnset: "required",
    meaning: "The Order service's address, which Product, Payment and Notification call",
    readBy: ["product", "payment", "notification"],
  },
  PRODUCT_SERVICE_URL: {
    whenUnset: "required",
    meaning: "The Product service's address, which Order and Recommendation call",
    readBy: ["order", "recommendation"],
  },
});

const credentialMeaning = (peer: string): string =>
  `What this service presents to ${peer} in \`x-commerce-peer-auth\`: its own credential for that hop`;

/** Each address's twin: the credential its reader presents there (one value per caller). */
export const peerCredentials = declareSettings({
  USER_SERVICE_CREDENTIAL: {
    whenUnset: "required",
    meaning: credentialMeaning("User"),
    readBy: peerAddresses.USER_SERVICE_URL.readBy,
  },
  AUTH_SERVICE_CREDENTIAL: {
    whenUnset: "required",
    meaning: credentialMeaning("Auth"),
    readBy: peerAddresses.AUTH_SERVICE_URL.readBy,
  },
  ORDER_SERVICE_CREDENTIAL: {
    whenUnset: "required",
    meaning: credentialMeaning("Order"),
    readBy: peerAddresses.ORDER_SERVICE_URL.readBy,
  },
  PRODUCT_SERVICE_CREDENTIAL: {
    whenUnset: "required",
    meaning: credentialMeaning("Product"),
    readBy: peerAddresses.PRODUCT_SERVICE_URL.readBy,
  },
});

/** One edge of the call graph: `caller` calls `callee` at `address`, presenting `credential`. */
export interface PeerCall {
  readonly caller: ServiceProcessName;
  readonly callee: ServiceProcessName;
  readonly address: Setting;
  readonly credential: Setting;
}

/** The variable that holds a service's address: `ORDER_SERVICE_URL`. */
function addressVariable(service: ServiceProcessName): string {
  return `${service.toUpperCase().replaceAll("-", "_")}_SERVICE_URL`;
}

function isServiceProcess(name: string): name is ServiceProcessName {
  return (serviceProcesses as readonly string[]).includes(name);
}

/** Every pair of processes in which the first calls the second, from the declarations above. */
export const peerCalls: readonly PeerCall[] = Object.values(peerAddresses).flatMap((address): PeerCall[] => {
  const callee = serviceProcesses.find((service) => addressVariable(service) === address.name);
  const credential = Object.values(peerCredentials).find(
    (setting) => setting.name === address.name.replace(/_URL$/, "_CREDENTIAL"),
  );
  if (callee === undefined || credential === undefined) {
    throw new Error(`${address.name} names no service process, or has no credential beside it`);
  }
  return address.readBy.filter(isServiceProcess).map((caller) => ({ caller, callee, address, credential }));
});

/** The service process whose address `address` holds. */
export function calleeAt(address: Setting): ServiceProcessName {
  const call = peerCalls.find((c) => c.address.name === address.name);
  if (call === undefined) throw new Error(`${address.name} is not a peer's address`);
  return call.callee;
}
