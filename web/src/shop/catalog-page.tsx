/**
 * The catalog, for any visitor: a page of products at a time, filtered by category and brand.
 * The page and the filters are in the address, so a filtered page can be linked, reloaded and
 * left with Back.
 */
import { useCallback, useState, type SubmitEvent } from "react";
import { api, outcomeOf } from "../api/commerce.js";
import { useResource } from "../api/use-resource.js";
import { navigate, useLocation, withQuery } from "../routing/router.js";
import { Page } from "../ui/page.js";
import { Empty, Loaded } from "../ui/status.js";
import { Pager } from "../ui/pager.js";
import { ProductCard } from "./product-card.js";

const pageSize = 12;

export function CatalogPage() {
  const { search } = useLocation();
  const page = Math.max(0, Number.parseInt(search.get("page") ?? "0", 10) || 0);
  const category = search.get("category") ?? "";
  const brand = search.get("brand") ?? "";

  const loadCategories = useCallback(
    (signal: AbortSignal) => outcomeOf(api.GET("/api/categories", { signal })),
    [],
  );
  const categories = useResource(loadCategories);
  const loadProducts = useCallback(
    (signal: AbortSignal) =>
      outcomeOf(
        api.GET("/api/products", {
          params: {
            query: {
              page,
              size: pageSize,
              ...(category === "" ? {} : { category }),
              ...(brand === "" ? {} : { brand }),
            },
          },
          signal,
        }),
      ),
    [page, category, brand],
  );
  const products = useResource(loadProducts);

  const [brandText, setBrandText] = useState(brand);
  const filter = (next: { category?: string; brand?: string }): void => {
    navigate(withQuery("/", { category: next.category ?? category, brand: next.brand ?? brand }));
  };
  const applyBrand = (event: SubmitEvent): void => {
    event.preventDefault();
    filter({ brand: brandText.trim() });
  };

  return (
    <Page title="Catalog">
      <form className="filters" onSubmit={applyBrand} aria-label="Filter products">
        <div className="field">
          <label htmlFor="filter-category">Category</label>
          <select
            id="filter-category"
            value={category}
            onChange={(event) => {
              filter({ category: event.target.value });
            }}
          >
            <option value="">All categories</option>
            {categories.outcome?.ok === true
              ? categories.outcome.data.map((c) => (
                  <option key={c.id} value={c.id}>
                    {c.name}
                  </option>
                ))
              : null}
          </select>
        </div>
        <div className="field">
          <label htmlFor="filter-brand">Brand</label>
          <input
            id="filter-brand"
            value={brandText}
            onChange={(event) => {
              setBrandText(event.target.value);
            }}
            placeholder="Any brand"
          />
        </div>
        <button type="submit">Apply</button>
        {category !== "" || brand !== "" ? (
          <button
            type="button"
            className="secondary"
            onClick={() => {
              setBrandText("");
              navigate("/");
            }}
          >
            Clear filters
          </button>
        ) : null}
      </form>
      <Loaded outcome={products.outcome} what="products" retry={products.reload}>
        {(found) =>
          found.content.length === 0 ? (
            <Empty>
              {category !== "" || brand !== ""
                ? "No products match these filters."
                : "There are no products in the catalog yet."}
            </Empty>
          ) : (
            <>
              <p className="result-count" aria-live="polite">
                {found.totalElements} product{found.totalElements === 1 ? "" : "s"}
                {products.loading ? " (updating…)" : ""}
              </p>
              <ul className="product-grid">
                {found.content.map((product) => (
                  <ProductCard key={product.id} product={product} headingLevel={2} />
                ))}
              </ul>
              <Pager
                label="Pages of products"
                page={page}
                totalPages={found.totalPages}
                go={(to) => {
                  navigate(withQuery("/", { category, brand, page: to }));
                }}
              />
            </>
          )
        }
      </Loaded>
    </Page>
  );
}
