/**
 * Categories have no write endpoint (ADR 0045): a default set is seeded at every start,
 * idempotently, and never changes afterwards, so the service keeps them in memory once read.
 */
import { DuplicateKeyError, type Collection } from "@commerce/runtime/store";
import type { CategoryDocument } from "./product-store.js";

/** The default set; ids are stable slugs, so clients and data can rely on them. */
export const defaultCategories: readonly CategoryDocument[] = [
  { _id: "electronics", name: "Electronics" },
  { _id: "books", name: "Books" },
  { _id: "home-kitchen", name: "Home & Kitchen" },
  { _id: "fashion", name: "Fashion" },
  { _id: "sports", name: "Sports" },
  { _id: "toys", name: "Toys" },
  { _id: "beauty", name: "Beauty" },
  { _id: "grocery", name: "Grocery" },
];

export interface Categories {
  /** Inserts the missing default categories and loads all of them. Run once at start. */
  seed(): Promise<void>;
  /** Every category, by name. */
  list(): readonly CategoryDocument[];
  byId(id: string): CategoryDocument | undefined;
  /** The category a list filter means: an id, or a name exactly as read responses show it. */
  resolveFilter(idOrName: string): CategoryDocument | undefined;
}

export function createCategories(collection: Collection<CategoryDocument>): Categories {
  let loaded: readonly CategoryDocument[] = [];
  let ids = new Map<string, CategoryDocument>();
  let names = new Map<string, CategoryDocument>();
  return {
    async seed() {
      for (const category of defaultCategories) {
        try {
          await collection.insert(category);
        } catch (error) {
          if (!(error instanceof DuplicateKeyError)) throw error; // seeded before
        }
      }
      loaded = await collection.find({}, { sort: [{ field: "name", direction: 1 }] });
      ids = new Map(loaded.map((c) => [c._id, c]));
      names = new Map(loaded.map((c) => [c.name, c]));
    },
    list: () => loaded,
    byId: (id) => ids.get(id),
    resolveFilter: (idOrName) => ids.get(idOrName) ?? names.get(idOrName),
  };
}
