/** The signed-in person's orders, newest as the API lists them, with their status. */
import { useCallback } from "react";
import { api, outcomeOf } from "../api/commerce.js";
import { useResource } from "../api/use-resource.js";
import { Link } from "../routing/router.js";
import { formatMoment, formatMoney } from "../ui/format.js";
import { DataTable } from "../ui/data-table.js";
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
            <DataTable
              caption="Your orders"
              hideCaption
              rows={orders}
              rowKey={(order) => order.orderId}
              columns={[
                {
                  header: "Order",
                  rowHeader: true,
                  cell: (order) => (
                    <Link to={`/orders/${encodeURIComponent(order.orderId)}`}>{order.orderId}</Link>
                  ),
                },
                { header: "Placed", cell: (order) => formatMoment(order.orderDate) },
                { header: "Status", cell: (order) => <StatusBadge status={order.status} /> },
                { header: "Total", amount: true, cell: (order) => formatMoney(order.totalAmount) },
              ]}
            />
          )
        }
      </Loaded>
    </Page>
  );
}
