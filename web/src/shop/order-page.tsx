/**
 * One of the person's orders: its lines, its status and its payments; an order still CREATED
 * and not paid can be paid here. After a payment (here, or back from the gateway's hosted
 * checkout: `?payment=returned`) the page reads the order again until its status moves (the
 * payment's event confirms it), for at most half a minute. `?payment=cancelled` is a customer
 * who left the gateway's checkout without paying.
 */
import { useCallback, useEffect, useState } from "react";
import { api, outcomeOf, type Outcome } from "../api/commerce.js";
import { useSession } from "../api/session.js";
import { useResource } from "../api/use-resource.js";
import type { components } from "@commerce/client";
import { Link, useLocation } from "../routing/router.js";
import { DataTable } from "../ui/data-table.js";
import { formatMoment, formatMoney } from "../ui/format.js";
import { Page } from "../ui/page.js";
import { Loaded } from "../ui/status.js";
import { StatusBadge } from "./order-status.js";
import { PaymentCheckout } from "./payment-checkout.js";
import { unreadChanged } from "./unread-count.js";

type Order = components["schemas"]["Order"];
type Payment = components["schemas"]["Payment"];

interface OrderView {
  readonly order: Order;
  /** The products' names, where the catalog still has them. */
  readonly names: ReadonlyMap<string, string>;
  readonly payments: readonly Payment[];
}

async function loadOrder(orderId: string, signal: AbortSignal): Promise<Outcome<OrderView>> {
  const [order, payments] = await Promise.all([
    outcomeOf(api.GET("/api/orders/{orderId}", { params: { path: { orderId } }, signal })),
    outcomeOf(api.GET("/api/payments/my", { signal })),
  ]);
  if (!order.ok) return order;
  const products = await Promise.all(
    order.data.items.map((item) =>
      outcomeOf(
        api.GET("/api/products/{productId}", { params: { path: { productId: item.productId } }, signal }),
      ),
    ),
  );
  const names = new Map(
    products.flatMap((product) => (product.ok ? [[product.data.id, product.data.name]] : [])),
  );
  return {
    ok: true,
    data: {
      order: order.data,
      names,
      payments: payments.ok ? payments.data.filter((payment) => payment.orderId === orderId) : [],
    },
  };
}

const watchEveryMs = 1000;
const watchForMs = 30_000;

export function OrderPage({ orderId }: { orderId: string }) {
  const load = useCallback((signal: AbortSignal) => loadOrder(orderId, signal), [orderId]);
  const { outcome, reload } = useResource(load);
  // Only the customer pays; an admin opening the order sees it as it is.
  const email = useSession().session?.profile.email;
  const returnedFrom = useLocation().search.get("payment");
  const [paidAt, setPaidAt] = useState<number | undefined>(() =>
    returnedFrom === "returned" ? Date.now() : undefined,
  );
  const status = outcome?.ok === true ? outcome.data.order.status : undefined;
  const watching = paidAt !== undefined && status === "CREATED";

  useEffect(() => {
    if (!watching) return undefined;
    const timer = window.setInterval(() => {
      if (Date.now() - paidAt > watchForMs) window.clearInterval(timer);
      else reload();
    }, watchEveryMs);
    return () => {
      window.clearInterval(timer);
    };
  }, [watching, paidAt, reload]);

  useEffect(() => {
    // The confirmation came with a notification.
    if (paidAt !== undefined && status === "CONFIRMED") unreadChanged();
  }, [paidAt, status]);

  return (
    <Page title="Order">
      <p>
        <Link to="/orders">← All my orders</Link>
      </p>
      <Loaded outcome={outcome} what="the order" retry={reload}>
        {({ order, names, payments }) => {
          const paid = payments.some((payment) => payment.status === "SUCCESS");
          return (
            <>
              <dl className="facts card">
                <dt>Order</dt>
                <dd>
                  <code>{order.orderId}</code>
                </dd>
                <dt>Placed</dt>
                <dd>{formatMoment(order.orderDate)}</dd>
                <dt>Status</dt>
                <dd aria-live="polite">
                  <StatusBadge status={order.status} />
                  {watching ? <span className="muted"> Paid; waiting for the confirmation…</span> : null}
                </dd>
                <dt>Total</dt>
                <dd className="price">{formatMoney(order.totalAmount)}</dd>
              </dl>
              <DataTable
                caption="Items"
                rows={order.items}
                rowKey={(item) => item.productId}
                columns={[
                  {
                    header: "Product",
                    rowHeader: true,
                    cell: (item) =>
                      names.has(item.productId) ? (
                        <Link to={`/products/${encodeURIComponent(item.productId)}`}>
                          {names.get(item.productId)}
                        </Link>
                      ) : (
                        <span>
                          {item.productId} <span className="muted">(no longer sold)</span>
                        </span>
                      ),
                  },
                  { header: "Quantity", cell: (item) => item.quantity },
                  { header: "Price each", amount: true, cell: (item) => formatMoney(item.price) },
                ]}
              />
              {order.status === "CREATED" && !paid && paidAt === undefined && order.customerId === email ? (
                <>
                  {returnedFrom === "cancelled" ? (
                    <p className="notice" role="status">
                      You left the gateway&apos;s checkout without paying. Nothing was charged; you can pay
                      again.
                    </p>
                  ) : null}
                  <PaymentCheckout
                    orderId={order.orderId}
                    customerEmail={order.customerId}
                    amount={order.totalAmount}
                    onPaid={() => {
                      setPaidAt(Date.now());
                      reload();
                    }}
                  />
                </>
              ) : null}
              {payments.length === 0 ? null : (
                <section aria-labelledby="payments-heading">
                  <h2 id="payments-heading">Payments</h2>
                  <ul className="plain">
                    {payments.map((payment) => (
                      <li key={payment.paymentId}>
                        {formatMoment(payment.createdAt)}: {formatMoney(payment.amount)}{" "}
                        <StatusBadge status={payment.status} />
                      </li>
                    ))}
                  </ul>
                </section>
              )}
            </>
          );
        }}
      </Loaded>
    </Page>
  );
}
