/** One product, for any visitor, with a quantity to add to the cart, and what was bought with it. */
import { useCallback, useState, type SubmitEvent } from "react";
import { api, outcomeOf } from "../api/commerce.js";
import { useResource } from "../api/use-resource.js";
import { cart } from "../cart/cart-store.js";
import { Link } from "../routing/router.js";
import { announce } from "../ui/announcer.js";
import { formatMoney } from "../ui/format.js";
import { Page } from "../ui/page.js";
import { Loaded } from "../ui/status.js";
import { AlsoBought } from "./also-bought.js";

export function ProductPage({ productId }: { productId: string }) {
  const load = useCallback(
    (signal: AbortSignal) =>
      outcomeOf(api.GET("/api/products/{productId}", { params: { path: { productId } }, signal })),
    [productId],
  );
  const { outcome, reload } = useResource(load);
  const [quantity, setQuantity] = useState(1);
  const title =
    outcome?.ok === true ? outcome.data.name : outcome === undefined ? "Product" : "Product not found";

  return (
    <Page title={title}>
      <p>
        <Link to="/">← Back to the catalog</Link>
      </p>
      <Loaded outcome={outcome} what="the product" retry={reload}>
        {(product) => {
          const add = (event: SubmitEvent): void => {
            event.preventDefault();
            cart.add(product, quantity);
            announce(`Added ${quantity} × ${product.name} to your cart.`);
          };
          return (
            <article className="card product-detail">
              {product.description === "" ? null : <p>{product.description}</p>}
              <dl className="facts">
                <dt>Price</dt>
                <dd className="price">{formatMoney(product.price)}</dd>
                <dt>Brand</dt>
                <dd>{product.brand === "" ? "—" : product.brand}</dd>
                <dt>Category</dt>
                <dd>{product.category}</dd>
                <dt>SKU</dt>
                <dd>{product.sku}</dd>
                <dt>Availability</dt>
                <dd>{product.stock > 0 ? `${product.stock} in stock` : "Out of stock"}</dd>
              </dl>
              {product.stock > 0 ? (
                <form className="inline-form" onSubmit={add}>
                  <div className="field">
                    <label htmlFor="quantity">Quantity</label>
                    <input
                      id="quantity"
                      type="number"
                      min={1}
                      max={product.stock}
                      value={quantity}
                      onChange={(event) => {
                        setQuantity(Math.max(1, Math.min(product.stock, event.target.valueAsNumber || 1)));
                      }}
                    />
                  </div>
                  <button type="submit">Add to cart</button>
                  <Link to="/cart">View cart</Link>
                </form>
              ) : null}
            </article>
          );
        }}
      </Loaded>
      {outcome?.ok === true ? <AlsoBought productId={productId} /> : null}
    </Page>
  );
}
