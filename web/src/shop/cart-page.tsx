/**
 * The cart and placing an order from it. The API prices the order and checks the stock: a line
 * it refuses (not enough stock, a product no longer sold) is marked with what the API said.
 */
import { api } from "../api/commerce.js";
import type { Problem } from "../api/problem.js";
import { useSession } from "../api/session.js";
import { useAction } from "../api/use-action.js";
import { cart, itemCount, useCart, type CartLine } from "../cart/cart-store.js";
import { Link, navigate, withQuery } from "../routing/router.js";
import { announce } from "../ui/announcer.js";
import { formatMoney } from "../ui/format.js";
import { DataTable } from "../ui/data-table.js";
import { Page } from "../ui/page.js";
import { Empty, ProblemNotice } from "../ui/status.js";

/** What the API's refusal says about one line, when its message names the line's product. */
function lineNote(problem: Problem | undefined, line: CartLine): string | undefined {
  if (problem?.detail?.includes(line.productId) !== true) return undefined;
  if (problem.status === 404) return "No longer sold: remove it to order the rest.";
  if (/stock/i.test(problem.detail)) return "Not that many in stock: lower the quantity.";
  return problem.detail;
}

export function CartPage() {
  const lines = useCart();
  const { session } = useSession();
  const { run, busy, problem } = useAction();
  const total = lines.reduce((sum, line) => sum + line.price * line.quantity, 0);

  const placeOrder = (): void => {
    const items = lines.map(({ productId, quantity }) => ({ productId, quantity }));
    void run(() => api.POST("/api/orders", { body: { items } }), {
      reword: (refused) => ({ ...refused, title: `Your order was not placed. ${refused.title}` }),
      done: (placed) => {
        cart.clear();
        announce("Your order was placed.");
        navigate(`/orders/${encodeURIComponent(placed.orderId)}`);
      },
    });
  };

  return (
    <Page title="Your cart">
      {lines.length === 0 ? (
        <Empty>
          Your cart is empty. <Link to="/">Browse the catalog</Link>
        </Empty>
      ) : (
        <>
          {problem === undefined ? null : <ProblemNotice problem={problem} />}
          <DataTable
            caption="Items in your cart"
            hideCaption
            rows={lines}
            rowKey={(line) => line.productId}
            rowClassName={(line) => (lineNote(problem, line) === undefined ? undefined : "refused")}
            columns={[
              {
                header: "Product",
                rowHeader: true,
                cell: (line) => {
                  const note = lineNote(problem, line);
                  return (
                    <>
                      <Link to={`/products/${encodeURIComponent(line.productId)}`}>{line.name}</Link>
                      {note === undefined ? null : <p className="line-note">{note}</p>}
                    </>
                  );
                },
              },
              { header: "Price", amount: true, cell: (line) => formatMoney(line.price) },
              {
                header: "Quantity",
                cell: (line) => (
                  <input
                    className="quantity"
                    type="number"
                    min={1}
                    value={line.quantity}
                    aria-label={`Quantity of ${line.name}`}
                    onChange={(event) => {
                      const quantity = event.target.valueAsNumber;
                      if (Number.isInteger(quantity) && quantity > 0)
                        cart.setQuantity(line.productId, quantity);
                    }}
                  />
                ),
              },
              { header: "Subtotal", amount: true, cell: (line) => formatMoney(line.price * line.quantity) },
              {
                header: "Actions",
                hideHeader: true,
                cell: (line) => (
                  <button
                    type="button"
                    className="secondary"
                    aria-label={`Remove ${line.name}`}
                    onClick={() => {
                      cart.remove(line.productId);
                      announce(`Removed ${line.name} from your cart.`);
                    }}
                  >
                    Remove
                  </button>
                ),
              },
            ]}
          />
          <p className="total">
            {itemCount(lines)} item{itemCount(lines) === 1 ? "" : "s"}, about {formatMoney(total)}
            <span className="muted"> (the order is priced at today&apos;s prices)</span>
          </p>
          {session === undefined ? (
            <p>
              <Link className="button" to={withQuery("/login", { next: "/cart" })}>
                Log in to place your order
              </Link>
            </p>
          ) : (
            <button type="button" disabled={busy} onClick={placeOrder}>
              {busy ? "Placing your order…" : "Place order"}
            </button>
          )}
        </>
      )}
    </Page>
  );
}
