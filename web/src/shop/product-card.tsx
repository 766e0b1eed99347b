/** A product as a card: its name linking to its page, what it costs, its stock, and "Add to cart". */
import type { components } from "@commerce/client";
import { cart } from "../cart/cart-store.js";
import { Link } from "../routing/router.js";
import { announce } from "../ui/announcer.js";
import { formatMoney } from "../ui/format.js";

type ProductSummary = components["schemas"]["ProductSummary"];

export function ProductCard({ product, headingLevel }: { product: ProductSummary; headingLevel: 2 | 3 }) {
  const Heading = headingLevel === 2 ? "h2" : "h3";
  return (
    <li className="card product-card">
      <Heading>
        <Link to={`/products/${encodeURIComponent(product.id)}`}>{product.name}</Link>
      </Heading>
      <p className="muted">
        {product.brand === "" ? "" : `${product.brand} · `}
        {product.category}
      </p>
      <p className="price">{formatMoney(product.price)}</p>
      <p className={product.stock > 0 ? "stock" : "stock out"}>
        {product.stock > 0 ? `${product.stock} in stock` : "Out of stock"}
      </p>
      <button
        type="button"
        disabled={product.stock === 0}
        aria-label={`Add to cart: ${product.name}`}
        onClick={() => {
          cart.add(product, 1);
          announce(`Added ${product.name} to your cart.`);
        }}
      >
        Add to cart
      </button>
    </li>
  );
}
