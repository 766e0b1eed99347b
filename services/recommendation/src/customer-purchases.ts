/**
 * What customers bought, as the `bought` lists hold it (rankings.ts): each customer's lines at
 * their latest version (argMax, taken before any condition), kept when not cancelled and placed
 * after the customer was last forgotten (a deleted account; a customer never forgotten joins the
 * epoch), counted per product. `where` selects customers, on the `customer` column of both tables.
 */
import { sql, type Sql } from "@commerce/runtime/analytics";

export const customerPurchases = (where: Sql): Sql =>
  sql`SELECT customer, product_id, toInt64(count()) AS orders FROM (
      SELECT customer, order_id, product_id, argMax(cancelled, version) AS cancelled_now, any(placed_at) AS placed
      FROM recommendation_order_lines ${where}
      GROUP BY customer, order_id, product_id) AS lines
    ANY LEFT JOIN (
      SELECT customer, max(forgotten_at) AS forgotten FROM recommendation_forgotten_customers ${where}
      GROUP BY customer) AS forgotten_customers USING customer
    WHERE cancelled_now = 0 AND placed > forgotten
    GROUP BY customer, product_id`;
