/**
 * The deployable services of the topology and what each needs from the deployment: its
 * compiled entry point, the peers it calls (by the variable that holds each address), and the
 * secrets it alone may hold. The multi-process topology reads it here; the Helm chart states
 * the same wiring in its templates. A service's process receives nothing beyond this.
 */
import type { DescService } from "@bufbuild/protobuf";
import { AuthService } from "@commerce/runtime/gen/commerce/auth/v1/auth_pb.js";
import { NotificationService } from "@commerce/runtime/gen/commerce/notification/v1/notification_pb.js";
import { OrderService } from "@commerce/runtime/gen/commerce/order/v1/order_pb.js";
import { ProductService } from "@commerce/runtime/gen/commerce/product/v1/product_pb.js";
import { UserService } from "@commerce/runtime/gen/commerce/user/v1/user_pb.js";

export type ServiceName = "auth" | "user" | "product" | "order" | "notification";

/** Deployment-wide values a service may be given, by the variable that carries each. */
export type OwnedSetting = "JWT_SECRET" | "JWT_TTL" | "ADMIN_EMAIL" | "ADMIN_PASSWORD" | "PAYMENT_CURRENCY";

export interface DeployableService {
  readonly name: ServiceName;
  /** The compiled entry point, relative to the build output. */
  readonly entry: string;
  /** Variable → the peer service whose gRPC address it holds. */
  readonly peers: Readonly<Partial<Record<string, ServiceName>>>;
  /** The settings only this service receives. */
  readonly owns: readonly OwnedSetting[];
  /** The public APIs it serves, which the edge routes to it. */
  readonly routes: readonly DescService[];
}

export const deployableServices: readonly DeployableService[] = [
  {
    name: "auth",
    entry: "services/auth/src/main.js",
    peers: { USER_SERVICE_URL: "user" },
    owns: ["JWT_SECRET", "JWT_TTL", "ADMIN_EMAIL", "ADMIN_PASSWORD"],
    routes: [AuthService],
  },
  {
    name: "user",
    entry: "services/user/src/main.js",
    peers: { AUTH_SERVICE_URL: "auth" },
    owns: [],
    routes: [UserService],
  },
  {
    name: "product",
    entry: "services/product/src/main.js",
    peers: { ORDER_SERVICE_URL: "order" },
    owns: [],
    routes: [ProductService],
  },
  {
    name: "order",
    entry: "services/order/src/main.js",
    peers: { PRODUCT_SERVICE_URL: "product" },
    owns: [],
    routes: [OrderService],
  },
  {
    name: "notification",
    entry: "services/notification/src/main.js",
    peers: {},
    owns: ["PAYMENT_CURRENCY"],
    routes: [NotificationService],
  },
];
