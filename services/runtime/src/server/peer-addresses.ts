/**
 * Where a service in its own process finds the peers it calls: each peer's gRPC port, an
 * `http://host:port` address (in Kubernetes, the peer's Service on port 9090).
 */
import { declareSettings } from "../config/setting.js";

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
