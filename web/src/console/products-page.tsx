/**
 * The catalog as an admin keeps it: every product a page at a time, its price and stock edited
 * in place, soft deleted; a new product from a form; many at once from JSON pasted or read
 * from a file (`POST /api/products/bulk`: all valid or none created).
 */
import { useCallback, useState, type SubmitEvent } from "react";
import type { components } from "@commerce/client";
import { api, outcomeOf } from "../api/commerce.js";
import type { Problem } from "../api/problem.js";
import { useResource } from "../api/use-resource.js";
import { Link, navigate, useLocation, withQuery } from "../routing/router.js";
import { announce } from "../ui/announcer.js";
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
              <div className="table-wrap">
                <table>
                  <caption>
                    {found.totalElements} product{found.totalElements === 1 ? "" : "s"}
                  </caption>
                  <thead>
                    <tr>
                      <th scope="col">Product</th>
                      <th scope="col">Category</th>
                      <th scope="col">Price and stock</th>
                      <th scope="col">
                        <span className="visually-hidden">Delete</span>
                      </th>
                    </tr>
                  </thead>
                  <tbody>
                    {found.content.map((product) => (
                      <ProductRow key={product.id} product={product} onChanged={products.reload} />
                    ))}
                  </tbody>
                </table>
              </div>
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

function ProductRow({ product, onChanged }: { product: ProductSummary; onChanged: () => void }) {
  const [price, setPrice] = useState(String(product.price));
  const [stock, setStock] = useState(String(product.stock));
  const [problem, setProblem] = useState<Problem | undefined>(undefined);
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);

  const save = async (event: SubmitEvent): Promise<void> => {
    event.preventDefault();
    setBusy(true);
    setProblem(undefined);
    const saved = await outcomeOf(
      api.PUT("/api/products/{productId}", {
        params: { path: { productId: product.id } },
        body: { price: Number(price), stock: Number(stock) },
      }),
    );
    setBusy(false);
    if (!saved.ok) {
      setProblem(saved.problem);
      return;
    }
    announce(`Saved ${product.name}.`);
    onChanged();
  };

  const remove = async (): Promise<void> => {
    setProblem(undefined);
    const removed = await outcomeOf(
      api.DELETE("/api/products/{productId}", { params: { path: { productId: product.id } } }),
    );
    if (!removed.ok) {
      setProblem(removed.problem);
      return;
    }
    announce(`Deleted ${product.name}.`);
    onChanged();
  };

  return (
    <tr>
      <th scope="row">
        <Link to={`/products/${encodeURIComponent(product.id)}`}>{product.name}</Link>
        <div className="muted">{product.brand}</div>
        {problem === undefined ? null : <ProblemNotice problem={problem} />}
      </th>
      <td>{product.category}</td>
      <td>
        <form className="inline-form compact" onSubmit={(event) => void save(event)}>
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
          <button type="submit" disabled={busy} aria-label={`Save price and stock of ${product.name}`}>
            Save
          </button>
        </form>
      </td>
      <td>
        {confirming ? (
          <div className="actions">
            <button type="button" className="danger" onClick={() => void remove()}>
              Yes, delete {product.name}
            </button>
            <button
              type="button"
              className="secondary"
              onClick={() => {
                setConfirming(false);
              }}
            >
              Keep it
            </button>
          </div>
        ) : (
          <button
            type="button"
            className="secondary"
            aria-label={`Delete ${product.name}`}
            onClick={() => {
              setConfirming(true);
            }}
          >
            Delete
          </button>
        )}
      </td>
    </tr>
  );
}

function NewProduct({ categories, onCreated }: { categories: readonly Category[]; onCreated: () => void }) {
  const empty = { name: "", description: "", price: "", stock: "", brand: "", categoryId: "" };
  const [form, setForm] = useState(empty);
  const [problem, setProblem] = useState<Problem | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const set =
    (name: keyof typeof form) =>
    (event: { target: { value: string } }): void => {
      setForm((current) => ({ ...current, [name]: event.target.value }));
    };
  const create = async (event: SubmitEvent): Promise<void> => {
    event.preventDefault();
    setBusy(true);
    setProblem(undefined);
    const draft: ProductDraft = {
      name: form.name.trim(),
      description: form.description.trim(),
      price: Number(form.price),
      stock: Number(form.stock),
      brand: form.brand.trim(),
      categoryId: form.categoryId,
    };
    const created = await outcomeOf(api.POST("/api/products", { body: draft }));
    setBusy(false);
    if (!created.ok) {
      setProblem(created.problem);
      return;
    }
    setForm(empty);
    announce(`Created ${draft.name}.`);
    onCreated();
  };
  return (
    <form className="card stacked" onSubmit={(event) => void create(event)}>
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
  const [problem, setProblem] = useState<Problem | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const create = async (event: SubmitEvent): Promise<void> => {
    event.preventDefault();
    setProblem(undefined);
    const drafts = parseDrafts(text);
    if (typeof drafts === "string") {
      setProblem({ status: 400, code: "INVALID_JSON", title: "That list was not read.", detail: drafts });
      return;
    }
    setBusy(true);
    const created = await outcomeOf(api.POST("/api/products/bulk", { body: drafts }));
    setBusy(false);
    if (!created.ok) {
      setProblem({ ...created.problem, title: `No product was created. ${created.problem.title}` });
      return;
    }
    setText("");
    announce(created.data.message);
    onCreated();
  };
  return (
    <form className="card stacked" onSubmit={(event) => void create(event)}>
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
