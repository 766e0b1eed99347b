/**
 * The purchases recorded before customers were keyed by account (ADR 0101): those order lines
 * are keyed by the owner's email, which may since have passed to a later account. Each order of
 * them is written again under the account that the Auth service says held the email when the
 * order was placed (`FindEmailHolders`), with its lines' latest state, and those accounts'
 * purchases are listed again; an order no account certainly held stays under its email, which no
 * read asks for. The email rows stay: co-purchases and best sellers count orders, not customers,
 * and a row written twice under two keys is one order there.
 *
 * Run once, as the service's document migration (its record in the service's own database), a
 * batch of emails at a time; running it again writes the same rows under the same keys.
 */
import type { Client } from "@connectrpc/connect";
import { type AnalyticsRow, type AnalyticsStore, sql, sqlList } from "@commerce/runtime/analytics";
import { emailHoldersOf } from "@commerce/runtime/identity";
import type { DocumentMigration } from "@commerce/runtime/store";
import type { AccountService } from "@commerce/runtime/gen/commerce/auth/v1/account_pb.js";
import { customerKey } from "./purchase-facts.js";
import { listPurchases } from "./ranking-refresh.js";

/** Emails per batch. */
const emailsPerBatch = 200;

type Line = {
  readonly customer: string;
  readonly order_id: string;
  readonly product_id: string;
  readonly cancelled_now: number;
  readonly latest: number;
  readonly placed: number;
};

export function purchaseOwnersMigration(
  store: AnalyticsStore,
  accounts: Client<typeof AccountService>,
): DocumentMigration {
  /** The owner of each order (by `email\norder`), as Auth says. */
  async function ownersOf(lines: readonly Line[], signal: AbortSignal): Promise<Map<string, number>> {
    const orders = new Map<string, { email: string; atMs: number }>();
    for (const line of lines) {
      orders.set(`${line.customer}\n${line.order_id}`, { email: line.customer, atMs: line.placed * 1_000 });
    }
    const holders = await emailHoldersOf(accounts, [...orders.values()], signal);
    return new Map([...orders.keys()].map((key, i) => [key, holders[i] ?? 0]));
  }

  return {
    version: 1,
    description: "the purchases recorded by email, keyed again by the account that held the email then",
    async run(signal) {
      let after = "";
      for (;;) {
        const page = await store.query<{ customer: string }>(
          sql`SELECT DISTINCT customer FROM recommendation_order_lines
            WHERE customer > ${after} AND position(customer, '@') > 0 ORDER BY customer LIMIT ${emailsPerBatch}`,
          signal,
        );
        const last = page[page.length - 1];
        if (last === undefined) return;
        after = last.customer;
        // Each line's latest state (the aliases differ from the columns: ClickHouse 18.16).
        const lines = await store.query<Line>(
          sql`SELECT customer, order_id, product_id, argMax(cancelled, version) AS cancelled_now,
              max(version) AS latest, toUInt32(any(placed_at)) AS placed
            FROM recommendation_order_lines WHERE customer IN ${sqlList(page.map((row) => row.customer))}
            GROUP BY customer, order_id, product_id`,
          signal,
        );
        const owners = await ownersOf(lines, signal);
        const rows: AnalyticsRow[] = [];
        const keyed = new Set<string>();
        for (const line of lines) {
          const owner = owners.get(`${line.customer}\n${line.order_id}`) ?? 0;
          if (owner === 0) continue;
          const customer = customerKey(owner);
          keyed.add(customer);
          rows.push({
            customer,
            order_id: line.order_id,
            product_id: line.product_id,
            placed_at: new Date(line.placed * 1_000),
            cancelled: line.cancelled_now,
            version: line.latest,
          });
        }
        if (rows.length > 0) await store.insert("recommendation_order_lines", rows, signal);
        await listPurchases(store, [...keyed].sort(), signal);
        if (page.length < emailsPerBatch) return;
      }
    },
  };
}
