/**
 * Wiring of the Payment service: ports in (store, bus, the Order service, a gateway), routes,
 * the outbox relay and the owner backfill out, no socket. Its migrations run first at start
 * (ADR 0102).
 */
import { createClient } from "@connectrpc/connect";
import { createEventFactory, createServiceOutbox } from "@commerce/runtime/events";
import type { ServiceContext, ServiceModule } from "@commerce/runtime/server";
import { backfillMigration, createBackfillTask, migrateDocumentStore } from "@commerce/runtime/store";
import { PayableOrderService } from "@commerce/runtime/gen/commerce/order/v1/payable_pb.js";
import { PaymentService } from "@commerce/runtime/gen/commerce/payment/v1/payment_pb.js";
import { SandboxCheckoutService } from "@commerce/runtime/gen/commerce/payment/v1/sandbox_checkout_pb.js";
import { createHttpGateway, hostedCheckoutUrl } from "./gateway/http-gateway.js";
import type { PaymentGateway } from "./gateway/payment-gateway.js";
import { createSandboxGateway, isSandboxGateway } from "./gateway/sandbox-gateway.js";
import { createPaymentHandler } from "./payment-handler.js";
import type { PaymentSettings } from "./payment-settings.js";
import { openPaymentCollections } from "./payment-store.js";
import { createPaymentMetrics } from "./payment-metrics.js";
import { paymentOwners } from "./payment-owners.js";
import { createPayments } from "./payments.js";
import { createSandboxCheckout } from "./sandbox-checkout.js";
import { createSandboxCheckoutHandler } from "./sandbox-checkout-handler.js";

export interface PaymentOptions {
  /** A gateway of the caller's (the embedded platform's sandbox, tests); else from `settings`. */
  readonly gateway?: PaymentGateway;
  /** Pause between the owner backfill's passes after its migration. Default: the safety pass's. */
  readonly ownerBackfillIntervalMs?: number;
}

/** The adapter the settings select: the HTTP gateway of PAYMENT_GATEWAY_URL, or the sandbox. */
export function gatewayFor(settings: PaymentSettings): PaymentGateway {
  const { gateway } = settings;
  if (gateway.kind === "sandbox") return createSandboxGateway(settings);
  return createHttpGateway({ baseUrl: gateway.baseUrl, keyId: gateway.keyId, keySecret: settings.keySecret });
}

/** Where customers pay a gateway order: the gateway's hosted checkout; none with the sandbox. */
function hostedCheckoutOf(settings: PaymentSettings): { url: string; keyId: string } | undefined {
  const { gateway } = settings;
  return gateway.kind === "http"
    ? { url: hostedCheckoutUrl(gateway.baseUrl), keyId: gateway.keyId }
    : undefined;
}

export async function buildPaymentService(
  ctx: ServiceContext,
  settings: PaymentSettings,
  options: PaymentOptions = {},
): Promise<ServiceModule> {
  const collections = await openPaymentCollections(ctx.store);
  const outbox = createServiceOutbox({ bus: ctx.bus, logger: ctx.logger, telemetry: ctx.telemetry });
  const gateway = options.gateway ?? gatewayFor(settings);
  const stored = outbox.track(collections.payments);
  const orders = createClient(PayableOrderService, ctx.transport);
  const owners = paymentOwners(stored, orders);
  const ownersLater = createBackfillTask(owners, ctx.logger, options.ownerBackfillIntervalMs);
  const payments = createPayments({
    payments: stored,
    gatewayOrders: collections.gatewayOrders,
    orders,
    gateway,
    secrets: settings,
    currency: settings.currency,
    events: createEventFactory("/commerce/payment"),
    clock: ctx.clock,
    logger: ctx.logger,
    metrics: createPaymentMetrics(ctx.telemetry.meter),
  });
  const sandboxCheckout = createSandboxCheckout({
    sandbox: isSandboxGateway(gateway) ? gateway : undefined,
    payments,
  });
  return {
    name: "payment",
    services: [PaymentService, SandboxCheckoutService],
    register(router) {
      router.service(PaymentService, createPaymentHandler(payments, hostedCheckoutOf(settings)));
      router.service(SandboxCheckoutService, createSandboxCheckoutHandler(sandboxCheckout));
    },
    async start() {
      if (isSandboxGateway(gateway)) {
        ctx.logger.warn(
          { gateway: "sandbox" },
          "payments go to the sandbox gateway, which takes no money: customers pay at POST /api/payments/sandbox/checkout",
        );
      }
      await migrateDocumentStore(ctx.store, [backfillMigration(1, owners)], { logger: ctx.logger });
      outbox.start();
      ownersLater.start();
    },
    async stop() {
      await ownersLater.stop();
      await outbox.stop();
    },
  };
}
