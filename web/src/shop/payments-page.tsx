/** The signed-in person's payments, with the order each pays. */
import { useCallback } from "react";
import { api, outcomeOf } from "../api/commerce.js";
import { useResource } from "../api/use-resource.js";
import { Link } from "../routing/router.js";
import { formatMoment, formatMoney } from "../ui/format.js";
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
            <div className="table-wrap">
              <table>
                <caption className="visually-hidden">Your payments</caption>
                <thead>
                  <tr>
                    <th scope="col">Payment</th>
                    <th scope="col">Order</th>
                    <th scope="col">When</th>
                    <th scope="col">Amount</th>
                    <th scope="col">Status</th>
                  </tr>
                </thead>
                <tbody>
                  {payments.map((payment) => (
                    <tr key={payment.paymentId}>
                      <th scope="row">
                        <code>{payment.paymentId}</code>
                      </th>
                      <td>
                        <Link to={`/orders/${encodeURIComponent(payment.orderId)}`}>{payment.orderId}</Link>
                      </td>
                      <td>{formatMoment(payment.createdAt)}</td>
                      <td className="amount">{formatMoney(payment.amount)}</td>
                      <td>
                        <StatusBadge status={payment.status} />
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
