/**
 * The admin's dashboard: the four figures of `/api/analytics/dashboard`, the daily revenue over
 * a chosen range (`/api/analytics/revenue`) and the orders by status (`/api/analytics/orders`).
 */
import { useCallback, useState } from "react";
import { api, outcomeOf } from "../api/commerce.js";
import { useResource } from "../api/use-resource.js";
import { formatDay, formatMoney, humanize } from "../ui/format.js";
import { Page } from "../ui/page.js";
import { Loaded } from "../ui/status.js";
import { BarChart } from "./bar-chart.js";

/** A UTC day as the API writes it, `days` before today. */
function dayBefore(days: number): string {
  return new Date(Date.now() - days * 86_400_000).toISOString().slice(0, 10);
}

const count = (value: number): string => value.toLocaleString("en-IN");

export function DashboardPage() {
  const loadFigures = useCallback(
    (signal: AbortSignal) => outcomeOf(api.GET("/api/analytics/dashboard", { signal })),
    [],
  );
  const figures = useResource(loadFigures);
  const [range, setRange] = useState({ from: dayBefore(29), to: dayBefore(0) });
  const [draft, setDraft] = useState(range);
  const loadRevenue = useCallback(
    (signal: AbortSignal) =>
      outcomeOf(api.GET("/api/analytics/revenue", { params: { query: range }, signal })),
    [range],
  );
  const revenue = useResource(loadRevenue);
  const loadOrders = useCallback(
    (signal: AbortSignal) => outcomeOf(api.GET("/api/analytics/orders", { signal })),
    [],
  );
  const orders = useResource(loadOrders);

  return (
    <Page
      title="Dashboard"
      actions={
        <button
          type="button"
          className="secondary"
          onClick={() => {
            figures.reload();
            revenue.reload();
            orders.reload();
          }}
        >
          Refresh
        </button>
      }
    >
      <Loaded outcome={figures.outcome} what="the figures" retry={figures.reload}>
        {(data) => (
          <dl className="figures">
            <div className="card figure">
              <dt>Users</dt>
              <dd>{count(data.totalUsers)}</dd>
            </div>
            <div className="card figure">
              <dt>Orders</dt>
              <dd>{count(data.totalOrders)}</dd>
            </div>
            <div className="card figure">
              <dt>Revenue</dt>
              <dd>{formatMoney(data.totalRevenue)}</dd>
            </div>
            <div className="card figure">
              <dt>Orders today</dt>
              <dd>{count(data.ordersToday)}</dd>
            </div>
          </dl>
        )}
      </Loaded>
      <section className="card" aria-labelledby="revenue-heading">
        <h2 id="revenue-heading">Daily revenue</h2>
        <form
          className="filters"
          aria-label="Revenue range"
          onSubmit={(event) => {
            event.preventDefault();
            setRange(draft);
          }}
        >
          <div className="field">
            <label htmlFor="revenue-from">From</label>
            <input
              id="revenue-from"
              type="date"
              required
              value={draft.from}
              onChange={(event) => {
                setDraft((current) => ({ ...current, from: event.target.value }));
              }}
            />
          </div>
          <div className="field">
            <label htmlFor="revenue-to">To</label>
            <input
              id="revenue-to"
              type="date"
              required
              value={draft.to}
              onChange={(event) => {
                setDraft((current) => ({ ...current, to: event.target.value }));
              }}
            />
          </div>
          <button type="submit">Show</button>
        </form>
        <Loaded outcome={revenue.outcome} what="the revenue" retry={revenue.reload}>
          {(data) => (
            <BarChart
              title={`Revenue per day, ${formatDay(range.from)} to ${formatDay(range.to)}`}
              bars={data.dailyRevenue.map((day) => ({
                label: formatDay(day.date),
                shortLabel: formatDay(day.date, true),
                value: day.amount,
              }))}
              format={formatMoney}
              labelHeader="Day"
              valueHeader="Revenue"
            />
          )}
        </Loaded>
      </section>
      <section className="card" aria-labelledby="orders-heading">
        <h2 id="orders-heading">Orders by status</h2>
        <Loaded outcome={orders.outcome} what="the orders" retry={orders.reload}>
          {(data) => (
            <BarChart
              title={`Orders by status (${count(data.totalOrders)} in all)`}
              bars={Object.entries(data.ordersByStatus).map(([status, n]) => ({
                label: humanize(status),
                value: n,
              }))}
              format={count}
              labelHeader="Status"
              valueHeader="Orders"
            />
          )}
        </Loaded>
      </section>
    </Page>
  );
}
