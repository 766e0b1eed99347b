/** The signed-in person's orders, newest as the API lists them, with their status. */
import { useCallback } from "react";
import { api, outcomeOf } from "../api/commerce.js";
import { useResource } from "../api/use-resource.js";
import { Link } from "../routing/router.js";
import { formatMoment, formatMoney } from "../ui/format.js";
import { Page } from "../ui/page.js";
import { Empty, Loaded } from "../ui/status.js";
import { StatusBadge } from "./order-status.js";

export function OrdersPage() {
  const load = useCallback((signal: AbortSignal) => outcomeOf(api.GET("/api/orders/my", { signal })), []);
  const { outcome, reload } = useResource(load);
  return (
    <Page title="My orders">
      <Loaded outcome={outcome} what="your orders" retry={reload}>
        {(orders) =>
          orders.length === 0 ? (
            <Empty>
              You have no orders yet. <Link to="/">Browse the catalog</Link>
            </Empty>
          ) : (
            <div className="table-wrap">
              <table>
                <caption className="visually-hidden">Your orders</caption>
                <thead>
                  <tr>
                    <th scope="col">Order</th>
                    <th scope="col">Placed</th>
                    <th scope="col">Status</th>
                    <th scope="col">Total</th>
                  </tr>
                </thead>
                <tbody>
                  {orders.map((order) => (
                    <tr key={order.orderId}>
                      <th scope="row">
                        <Link to={`/orders/${encodeURIComponent(order.orderId)}`}>{order.orderId}</Link>
                      </th>
                      <td>{formatMoment(order.orderDate)}</td>
                      <td>
                        <StatusBadge status={order.status} />
                      </td>
                      <td className="amount">{formatMoney(order.totalAmount)}</td>
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
