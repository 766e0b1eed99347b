/** The signed-in person's payments, with the order each pays. */
import { useCallback } from "react";
import { api, outcomeOf } from "../api/commerce.js";
import { useResource } from "../api/use-resource.js";
import { Link } from "../routing/router.js";
import { formatMoment, formatMoney } from "../ui/format.js";
import { DataTable } from "../ui/data-table.js";
import { Page } from "../ui/page.js";
import { Empty, Loaded } from "../ui/status.js";
import { StatusBadge } from "./order-status.js";

export function PaymentsPage() {
  const load = useCallback((signal: AbortSignal) => outcomeOf(api.GET("/api/payments/my", { signal })), []);
  const { outcome, reload } = useResource(load);
  return (
    <Page title="My payments">
      <Loaded outcome={outcome} what="your payments" retry={reload}>
        {(payments) =>
          payments.length === 0 ? (
            <Empty>You have made no payments yet.</Empty>
          ) : (
            <DataTable
              caption="Your payments"
              hideCaption
              rows={payments}
              rowKey={(payment) => payment.paymentId}
              columns={[
                { header: "Payment", rowHeader: true, cell: (payment) => <code>{payment.paymentId}</code> },
                {
                  header: "Order",
                  cell: (payment) => (
                    <Link to={`/orders/${encodeURIComponent(payment.orderId)}`}>{payment.orderId}</Link>
                  ),
                },
                { header: "When", cell: (payment) => formatMoment(payment.createdAt) },
                { header: "Amount", amount: true, cell: (payment) => formatMoney(payment.amount) },
                { header: "Status", cell: (payment) => <StatusBadge status={payment.status} /> },
              ]}
            />
          )
        }
      </Loaded>
    </Page>
  );
}
