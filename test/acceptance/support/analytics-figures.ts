/**
 * The analytics figures against the truth the other endpoints show (analytics.spec.ts, and the
 * outage test): the dashboard, the orders by status and the daily revenue, read over HTTP, and a
 * wait until they agree with what GET /api/orders and GET /api/users list.
 */
import { expect } from "chai";
import { api, type ApiResponse } from "./api.js";
import { pollUntil } from "./polling.js";

export interface Dashboard {
  readonly totalUsers: number;
  readonly totalOrders: number;
  readonly totalRevenue: number;
  readonly ordersToday: number;
}

export interface OrderStats {
  readonly totalOrders: number;
  readonly ordersByStatus: Record<string, number>;
}

export interface DailyRevenue {
  readonly date: string;
  readonly amount: number;
}

/** How long the pipeline may take to show what the other endpoints already show. */
export const settleMs = 60_000;

export const utcToday = (): string => new Date().toISOString().slice(0, 10);
export const paise = (amount: number): number => Math.round(amount * 100);

async function ok<T>(response: Promise<ApiResponse>): Promise<T> {
  const answer = await response;
  expect(answer.status, answer.text).to.equal(200);
  return answer.body as T;
}

export async function dashboard(token: string): Promise<Dashboard> {
  return ok(api("GET", "/api/analytics/dashboard", { token }));
}

export async function orderStats(token: string): Promise<OrderStats> {
  return ok(api("GET", "/api/analytics/orders", { token }));
}

export async function dailyRevenue(token: string, query = ""): Promise<DailyRevenue[]> {
  return (await ok<{ dailyRevenue: DailyRevenue[] }>(api("GET", `/api/analytics/revenue${query}`, { token })))
    .dailyRevenue;
}

/** What the other endpoints show now: every order by status, and the number of users. */
export async function truth(token: string): Promise<{ orders: OrderStats; users: number }> {
  const [orders, users] = await Promise.all([
    ok<{ status: string }[]>(api("GET", "/api/orders", { token })),
    ok<unknown[]>(api("GET", "/api/users", { token })),
  ]);
  const ordersByStatus: Record<string, number> = { CREATED: 0, CONFIRMED: 0, CANCELLED: 0 };
  for (const order of orders) ordersByStatus[order.status] = (ordersByStatus[order.status] ?? 0) + 1;
  return { orders: { totalOrders: orders.length, ordersByStatus }, users: users.length };
}

export interface Figures {
  readonly dashboard: Dashboard;
  readonly orders: OrderStats;
  readonly today: number;
}

/**
 * Polls until the analytics figures equal the truth and `extra` holds, then returns them; on
 * the deadline fails with the last figures and truth side by side. Without `extra`, the
 * revenue must also have stayed the same for a second (so that payments other suites left in
 * flight are in).
 */
export async function settled(
  token: string,
  what: string,
  extra?: (figures: Figures) => boolean,
  deadlineMs = settleMs,
): Promise<Figures> {
  let last: unknown;
  let steady: { readonly revenue: number; readonly since: number } | undefined;
  const unchanged = (figures: Figures): boolean => {
    const revenue = figures.dashboard.totalRevenue;
    if (steady?.revenue !== revenue) steady = { revenue, since: Date.now() };
    return Date.now() - steady.since >= 1_000;
  };
  try {
    return await pollUntil(
      what,
      async () => {
        const now = await truth(token);
        const figures: Figures = {
          dashboard: await dashboard(token),
          orders: await orderStats(token),
          today: (await dailyRevenue(token)).at(-1)?.amount ?? Number.NaN,
        };
        last = { figures, truth: now };
        const agrees =
          JSON.stringify(figures.orders) === JSON.stringify(now.orders) &&
          figures.dashboard.totalOrders === now.orders.totalOrders &&
          figures.dashboard.totalUsers === now.users;
        return agrees && (extra ?? unchanged)(figures) ? figures : undefined;
      },
      deadlineMs,
    );
  } catch (error) {
    throw new Error(`${(error as Error).message}; last seen: ${JSON.stringify(last)}`, { cause: error });
  }
}
