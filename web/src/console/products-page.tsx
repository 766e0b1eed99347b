/**
 * The catalog as an admin keeps it: every product a page at a time, its price and stock edited
 * in place, soft deleted; a new product from a form; many at once from JSON pasted or read
 * from a file (`POST /api/products/bulk`: all valid or none created).
 */
import { useCallback, useState, type SubmitEvent } from "react";
import type { components } from "@commerce/client";
import { api, outcomeOf } from "../api/commerce.js";
import { useAction } from "../api/use-action.js";
import { useResource } from "../api/use-resource.js";
import { Link, navigate, useLocation, withQuery } from "../routing/router.js";
import { announce } from "../ui/announcer.js";
import { ConfirmDelete } from "../ui/confirm-delete.js";
import { DataTable } from "../ui/data-table.js";
import { Field } from "../ui/field.js";
import { Page } from "../ui/page.js";
import { Empty, Loaded, ProblemNotice } from "../ui/status.js";
import { Pager } from "../ui/pager.js";

type ProductSummary = components["schemas"]["ProductSummary"];
type ProductDraft = components["schemas"]["ProductDraft"];
type Category = components["schemas"]["Category"];

const pageSize = 20;

export function ProductsPage() {
  const { search } = useLocation();
  const page = Math.max(0, Number.parseInt(search.get("page") ?? "0", 10) || 0);
  const loadProducts = useCallback(
    (signal: AbortSignal) =>
      outcomeOf(api.GET("/api/products", { params: { query: { page, size: pageSize } }, signal })),
    [page],
  );
  const products = useResource(loadProducts);
  const loadCategories = useCallback(
    (signal: AbortSignal) => outcomeOf(api.GET("/api/categories", { signal })),
    [],
  );
  const categories = useResource(loadCategories);
  const categoryList = categories.outcome?.ok === true ? categories.outcome.data : [];
  // One action for the rows' saves and deletes: its problem shows in the row it was about.
  const changing = useAction();

  const save = (product: ProductSummary, change: { price: number; stock: number }): void => {
    const path = { productId: product.id };
    void changing.run(() => api.PUT("/api/products/{productId}", { params: { path }, body: change }), {
      about: product.id,
      done: () => {
        announce(`Saved ${product.name}.`);
        products.reload();
      },
    });
  };

  const remove = (product: ProductSummary): void => {
    const path = { productId: product.id };
    void changing.run(() => api.DELETE("/api/products/{productId}", { params: { path } }), {
      about: product.id,
      done: () => {
        announce(`Deleted ${product.name}.`);
        products.reload();
      },
    });
  };

  return (
    <Page title="Products">
      <div className="console-columns">
        <NewProduct categories={categoryList} onCreated={products.reload} />
        <BulkCreate onCreated={products.reload} />
      </div>
      <Loaded outcome={products.outcome} what="products" retry={products.reload}>
        {(found) =>
          found.content.length === 0 ? (
            <Empty>No products yet: create one above.</Empty>
          ) : (
            <>
              <DataTable
                caption={`${found.totalElements} product${found.totalElements === 1 ? "" : "s"}`}
                rows={found.content}
                rowKey={(product) => product.id}
                columns={[
                  {
                    header: "Product",
                    rowHeader: true,
                    cell: (product) => {
                      const problem = changing.problemAbout(product.id);
                      return (
                        <>
                          <Link to={`/products/${encodeURIComponent(product.id)}`}>{product.name}</Link>
                          <div className="muted">{product.brand}</div>
                          {problem === undefined ? null : <ProblemNotice problem={problem} />}
                        </>
                      );
                    },
                  },
                  { header: "Category", cell: (product) => product.category },
                  {
                    header: "Price and stock",
                    cell: (product) => (
                      <PriceAndStock
                        product={product}
                        saving={changing.busy}
                        save={(change) => {
                          save(product, change);
                        }}
                      />
                    ),
                  },
                  {
                    header: "Delete",
                    hideHeader: true,
                    cell: (product) => (
                      <ConfirmDelete
                        name={product.name}
                        onConfirm={() => {
                          remove(product);
                        }}
                      />
                    ),
                  },
                ]}
              />
              <Pager
                label="Pages of products"
                page={page}
                totalPages={found.totalPages}
                go={(to) => {
                  navigate(withQuery("/admin/products", { page: to }));
                }}
              />
            </>
          )
        }
      </Loaded>
    </Page>
  );
}

/** A product's price and stock, edited in place; `save` sends the two. */
function PriceAndStock({
  product,
  saving,
  save,
}: {
  product: ProductSummary;
  saving: boolean;
  save: (change: { price: number; stock: number }) => void;
}) {
  const [price, setPrice] = useState(String(product.price));
  const [stock, setStock] = useState(String(product.stock));
  return (
    <form
      className="inline-form compact"
      onSubmit={(event) => {
        event.preventDefault();
        save({ price: Number(price), stock: Number(stock) });
      }}
    >
      <div className="field">
        <label htmlFor={`price-${product.id}`}>Price</label>
        <input
          id={`price-${product.id}`}
          type="number"
          min={0}
          step="0.01"
          required
          value={price}
          onChange={(event) => {
            setPrice(event.target.value);
          }}
        />
      </div>
      <div className="field">
        <label htmlFor={`stock-${product.id}`}>Stock</label>
        <input
          id={`stock-${product.id}`}
          type="number"
          min={0}
          step="1"
          required
          value={stock}
          onChange={(event) => {
            setStock(event.target.value);
          }}
        />
      </div>
      <button type="submit" disabled={saving} aria-label={`Save price and stock of ${product.name}`}>
        Save
      </button>
    </form>
  );
}

function NewProduct({ categories, onCreated }: { categories: readonly Category[]; onCreated: () => void }) {
  const empty = { name: "", description: "", price: "", stock: "", brand: "", categoryId: "" };
  const [form, setForm] = useState(empty);
  const { run, busy, problem } = useAction();
  const set =
    (name: keyof typeof form) =>
    (event: { target: { value: string } }): void => {
      setForm((current) => ({ ...current, [name]: event.target.value }));
    };
  const create = (event: SubmitEvent): void => {
    event.preventDefault();
    const draft: ProductDraft = {
      name: form.name.trim(),
      description: form.description.trim(),
      price: Number(form.price),
      stock: Number(form.stock),
      brand: form.brand.trim(),
      categoryId: form.categoryId,
    };
    void run(() => api.POST("/api/products", { body: draft }), {
      done: () => {
        setForm(empty);
        announce(`Created ${draft.name}.`);
        onCreated();
      },
    });
  };
  return (
    <form className="card stacked" onSubmit={create}>
      <fieldset>
        <legend>New product</legend>
        {problem === undefined ? null : <ProblemNotice problem={problem} />}
        <Field label="Name" required value={form.name} onChange={set("name")} />
        <Field label="Description" value={form.description} onChange={set("description")} />
        <Field
          label="Price (₹)"
          type="number"
          min={0}
          step="0.01"
          required
          value={form.price}
          onChange={set("price")}
        />
        <Field
          label="Stock"
          type="number"
          min={0}
          step="1"
          required
          value={form.stock}
          onChange={set("stock")}
        />
        <Field label="Brand" value={form.brand} onChange={set("brand")} />
        <div className="field">
          <label htmlFor="new-product-category">Category</label>
          <select id="new-product-category" required value={form.categoryId} onChange={set("categoryId")}>
            <option value="">Choose a category</option>
            {categories.map((category) => (
              <option key={category.id} value={category.id}>
                {category.name}
              </option>
            ))}
          </select>
        </div>
        <button type="submit" disabled={busy}>
          {busy ? "Creating…" : "Create product"}
        </button>
      </fieldset>
    </form>
  );
}

/** The bulk body: a JSON array of product drafts, as `POST /api/products/bulk` takes it. */
function parseDrafts(text: string): ProductDraft[] | string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return "This is not JSON: check the brackets, commas and quotes.";
  }
  if (!Array.isArray(parsed)) return "The JSON must be a list of products: [ {...}, {...} ].";
  if (parsed.length === 0) return "The list is empty.";
  // Each draft's fields are the API's to judge: it answers which one is wrong.
  return parsed as ProductDraft[];
}

const example = `[
  { "name": "Fountain pen", "description": "Blue ink", "price": 19.99, "stock": 10, "brand": "Acme", "categoryId": "books" }
]`;

function BulkCreate({ onCreated }: { onCreated: () => void }) {
  const [text, setText] = useState("");
  const { run, showProblem, busy, problem } = useAction();
  const create = (event: SubmitEvent): void => {
    event.preventDefault();
    const drafts = parseDrafts(text);
    if (typeof drafts === "string") {
      showProblem({ status: 400, code: "INVALID_JSON", title: "That list was not read.", detail: drafts });
      return;
    }
    void run(() => api.POST("/api/products/bulk", { body: drafts }), {
      reword: (refused) => ({ ...refused, title: `No product was created. ${refused.title}` }),
      done: (created) => {
        setText("");
        announce(created.message);
        onCreated();
      },
    });
  };
  return (
    <form className="card stacked" onSubmit={create}>
      <fieldset>
        <legend>Many products at once</legend>
        {problem === undefined ? null : <ProblemNotice problem={problem} />}
        <div className="field">
          <label htmlFor="bulk-json">Products as JSON</label>
          <textarea
            id="bulk-json"
            rows={8}
            required
            value={text}
            placeholder={example}
            aria-describedby="bulk-hint"
            onChange={(event) => {
              setText(event.target.value);
            }}
          />
          <p className="hint" id="bulk-hint">
            A list of products, each with name, price, stock, categoryId, and optionally description and
            brand. All are created, or none.
          </p>
        </div>
        <div className="field">
          <label htmlFor="bulk-file">Or read a JSON file</label>
          <input
            id="bulk-file"
            type="file"
            accept="application/json,.json"
            onChange={(event) => {
              const file = event.target.files?.[0];
              if (file !== undefined) void file.text().then(setText);
            }}
          />
        </div>
        <button type="submit" disabled={busy}>
          {busy ? "Creating…" : "Create all"}
        </button>
      </fieldset>
    </form>
  );
}
