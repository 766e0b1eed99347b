/**
 * Every order, for an admin, with the status moves the API allows from the status shown:
 * CREATED → CONFIRMED, CONFIRMED → CANCELLED. An order that moved meanwhile (its payment
 * confirmed it, another admin cancelled it) is refused with 409: the API's answer is shown and
 * the list read again.
 */
import { useCallback, useState } from "react";
import type { components } from "@commerce/client";
import { api, outcomeOf } from "../api/commerce.js";
import type { Problem } from "../api/problem.js";
import { useResource } from "../api/use-resource.js";
import { Link } from "../routing/router.js";
import { announce } from "../ui/announcer.js";
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
  const [problem, setProblem] = useState<{ orderId: string; problem: Problem } | undefined>(undefined);

  const move = async (order: OrderSummary, to: Move["to"]): Promise<void> => {
    setProblem(undefined);
    const moved = await outcomeOf(
      api.PUT("/api/orders/{orderId}/status", {
        params: { path: { orderId: order.orderId } },
        body: { status: to },
      }),
    );
    if (!moved.ok) {
      setProblem({ orderId: order.orderId, problem: moved.problem });
      reload();
      return;
    }
    announce(`Order ${order.orderId} is ${to.toLowerCase()}.`);
    reload();
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
      {problem === undefined ? null : (
        <ProblemNotice
          problem={{
            ...problem.problem,
            title: `Order ${problem.orderId} was not changed. ${problem.problem.title}`,
          }}
        />
      )}
      <Loaded outcome={outcome} what="orders" retry={reload}>
        {(orders) =>
          orders.length === 0 ? (
            <Empty>No orders yet.</Empty>
          ) : (
            <div className="table-wrap">
              <table>
                <caption>
                  {orders.length} order{orders.length === 1 ? "" : "s"}
                </caption>
                <thead>
                  <tr>
                    <th scope="col">Order</th>
                    <th scope="col">Customer</th>
                    <th scope="col">Total</th>
                    <th scope="col">Status</th>
                    <th scope="col">Change status</th>
                  </tr>
                </thead>
                <tbody>
                  {orders.map((order) => (
                    <tr
                      key={order.orderId}
                      className={problem?.orderId === order.orderId ? "refused" : undefined}
                    >
                      <th scope="row">
                        <Link to={`/orders/${encodeURIComponent(order.orderId)}`}>{order.orderId}</Link>
                      </th>
                      <td>{order.customerId}</td>
                      <td className="amount">{formatMoney(order.totalAmount)}</td>
                      <td>
                        <StatusBadge status={order.status} />
                      </td>
                      <td>
                        <div className="actions">
                          {(movesFrom[order.status] ?? []).map((option) => (
                            <button
                              key={option.to}
                              type="button"
                              className={option.to === "CANCELLED" ? "danger" : undefined}
                              aria-label={`${option.label} order ${order.orderId}`}
                              onClick={() => void move(order, option.to)}
                            >
                              {option.label}
                            </button>
                          ))}
                          {(movesFrom[order.status] ?? []).length === 0 ? (
                            <span className="muted">None</span>
                          ) : null}
                        </div>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </Loaded>
    </Page>
  );
}
