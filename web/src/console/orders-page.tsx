/**
 * Every order, for an admin, with the status moves the API allows from the status shown:
 * CREATED → CONFIRMED, CONFIRMED → CANCELLED. An order that moved meanwhile (its payment
 * confirmed it, another admin cancelled it) is refused with 409: the API's answer is shown and
 * the list read again.
 */
import { useCallback } from "react";
import type { components } from "@commerce/client";
import { api, outcomeOf } from "../api/commerce.js";
import { useAction } from "../api/use-action.js";
import { useResource } from "../api/use-resource.js";
import { Link } from "../routing/router.js";
import { announce } from "../ui/announcer.js";
import { DataTable } from "../ui/data-table.js";
import { formatMoney } from "../ui/format.js";
import { Page } from "../ui/page.js";
import { Empty, Loaded, ProblemNotice } from "../ui/status.js";
import { StatusBadge } from "../shop/order-status.js";

type OrderSummary = components["schemas"]["OrderSummary"];
type Move = { readonly to: "CONFIRMED" | "CANCELLED"; readonly label: string };

/** The moves the API allows from each status (the order service's state machine). */
const movesFrom: Readonly<Record<string, readonly Move[]>> = {
  CREATED: [{ to: "CONFIRMED", label: "Confirm" }],
  CONFIRMED: [{ to: "CANCELLED", label: "Cancel" }],
};

export function OrdersPage() {
  const load = useCallback((signal: AbortSignal) => outcomeOf(api.GET("/api/orders", { signal })), []);
  const { outcome, reload } = useResource(load);
  const moving = useAction();

  const move = (order: OrderSummary, to: Move["to"]): void => {
    const { orderId } = order;
    void moving.run(
      () => api.PUT("/api/orders/{orderId}/status", { params: { path: { orderId } }, body: { status: to } }),
      {
        about: orderId,
        reword: (refused) => ({ ...refused, title: `Order ${orderId} was not changed. ${refused.title}` }),
        // Refused or not, the list is read again: a refusal means the order moved meanwhile.
        failed: reload,
        done: () => {
          announce(`Order ${orderId} is ${to.toLowerCase()}.`);
          reload();
        },
      },
    );
  };

  return (
    <Page
      title="Orders"
      actions={
        <button type="button" className="secondary" onClick={reload}>
          Refresh
        </button>
      }
    >
      {moving.problem === undefined ? null : <ProblemNotice problem={moving.problem} />}
      <Loaded outcome={outcome} what="orders" retry={reload}>
        {(orders) =>
          orders.length === 0 ? (
            <Empty>No orders yet.</Empty>
          ) : (
            <DataTable
              caption={`${orders.length} order${orders.length === 1 ? "" : "s"}`}
              rows={orders}
              rowKey={(order) => order.orderId}
              rowClassName={(order) =>
                moving.problemAbout(order.orderId) === undefined ? undefined : "refused"
              }
              columns={[
                {
                  header: "Order",
                  rowHeader: true,
                  cell: (order) => (
                    <Link to={`/orders/${encodeURIComponent(order.orderId)}`}>{order.orderId}</Link>
                  ),
                },
                { header: "Customer", cell: (order) => order.customerId },
                { header: "Total", amount: true, cell: (order) => formatMoney(order.totalAmount) },
                { header: "Status", cell: (order) => <StatusBadge status={order.status} /> },
                {
                  header: "Change status",
                  cell: (order) => (
                    <div className="actions">
                      {(movesFrom[order.status] ?? []).map((option) => (
                        <button
                          key={option.to}
                          type="button"
                          className={option.to === "CANCELLED" ? "danger" : undefined}
                          aria-label={`${option.label} order ${order.orderId}`}
                          onClick={() => {
                            move(order, option.to);
                          }}
                        >
                          {option.label}
                        </button>
                      ))}
                      {(movesFrom[order.status] ?? []).length === 0 ? (
                        <span className="muted">None</span>
                      ) : null}
                    </div>
                  ),
                },
              ]}
            />
          )
        }
      </Loaded>
    </Page>
  );
}
