/**
 * "Customers also bought" under a product: what the platform recommends from orders, as cards.
 * Nothing is shown while it loads, when it fails, or when there is nothing to recommend: the
 * product page stands without it.
 */
import { useCallback } from "react";
import { api, outcomeOf } from "../api/commerce.js";
import { useResource } from "../api/use-resource.js";
import { ProductCard } from "./product-card.js";

const shown = 4;

export function AlsoBought({ productId }: { productId: string }) {
  const load = useCallback(
    (signal: AbortSignal) =>
      outcomeOf(
        api.GET("/api/products/{productId}/recommendations", {
          params: { path: { productId }, query: { size: shown } },
          signal,
        }),
      ),
    [productId],
  );
  const { outcome } = useResource(load);
  if (outcome?.ok !== true || outcome.data.length === 0) return null;
  return (
    <section aria-labelledby="also-bought">
      <h2 id="also-bought">Customers also bought</h2>
      <ul className="product-grid">
        {outcome.data.map((product) => (
          <ProductCard key={product.id} product={product} headingLevel={3} />
        ))}
      </ul>
    </section>
  );
}
