/**
 * A service host serving a stand-in Product service's GetProduct, with the server telemetry
 * interceptor of `telemetry`, for the telemetry specs: "missing" answers NOT_FOUND, "boom" is a
 * fault, anything else a product; each call is logged at info through `logger` (silent unless
 * given), naming its call by its signal, so that a spec can read the trace ids of log lines.
 */
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { noRevokedAccounts } from "../identity/revoked-accounts.js";
import { createDestinationTrust, sha256 } from "../identity/request-trust.js";
import { createLogger, type Logger } from "../logging/logger.js";
import { createServiceHost, type ServiceHost } from "../server/service-host.js";
import { serverTelemetryByService } from "../telemetry/rpc-server-spans.js";
import type { Telemetry } from "../telemetry/telemetry.js";
import type { ServiceRegistrar } from "../transport/in-process-transport.js";
import { ProductSchema, ProductService } from "../../gen/commerce/product/v1/product_pb.js";

export function tracedProductHost(
  telemetry: Telemetry,
  logger: Logger = createLogger("silent", "test"),
): ServiceHost {
  const routes = {
    services: [ProductService],
    register(router: ServiceRegistrar) {
      router.service(ProductService, {
        getProduct(req, ctx) {
          logger.info({ signal: ctx.signal }, "get product");
          if (req.productId === "missing") throw new ConnectError("no product missing", Code.NotFound);
          if (req.productId === "boom") throw new Error("the store broke");
          return create(ProductSchema, { id: req.productId, name: "Lamp" });
        },
      });
    },
  };
  return createServiceHost({
    routes: [routes],
    logger: createLogger("silent", "test"),
    maxBodyBytes: 1 << 20,
    trust: createDestinationTrust([ProductService], {
      edgeCredentialSha256: sha256("edge"),
      callers: new Map([["order", sha256("peer")]]),
    }),
    revoked: noRevokedAccounts,
    isReady: () => true,
    telemetry: serverTelemetryByService([{ name: "product", services: [ProductService] }], telemetry),
  });
}
