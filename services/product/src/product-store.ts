/**
 * What the Product service stores, in its own database: categories, products, the stock ledger
 * and order reservations. Stock is not a field of the product: it is the balance of the
 * product's newest ledger entry (see stock-ledger.ts for why).
 */
import type { OutboxCarrier } from "@commerce/runtime/events";
import type {
  Collection,
  CollectionSpec,
  DocumentStore,
  StoredDocument,
  VersionedDocument,
} from "@commerce/runtime/store";

/** A category; seeded at start (there is no write endpoint), never changed afterwards. */
export interface CategoryDocument extends StoredDocument {
  /** A stable slug, e.g. "home-kitchen". */
  readonly _id: string;
  readonly name: string;
}

/**
 * ACTIVE: listed and sold. INACTIVE: soft-deleted. PENDING: written by a bulk creation that has
 * not finished; invisible everywhere until the whole batch is written (see bulk-creation.ts).
 */
export type ProductStatus = "ACTIVE" | "INACTIVE" | "PENDING";

export interface ProductDocument extends OutboxCarrier {
  /** Opaque (a UUID). */
  readonly _id: string;
  readonly name: string;
  readonly description: string;
  /** Unit price in minor units (paise). */
  readonly priceMinor: number;
  readonly brand: string;
  readonly categoryId: string;
  /** Server-generated, unique. */
  readonly sku: string;
  readonly status: ProductStatus;
  /**
   * Enforces "one active product per name and brand" with a unique index, the one check that
   * is atomic on every backend: the case-folded name and brand while the product is ACTIVE or
   * PENDING, a key of its own (`inactive:<id>`) once it is deleted.
   */
  readonly nameKey: string;
  /** Epoch milliseconds; lists show the newest first. */
  readonly createdAt: number;
  /** Set on the products of a bulk creation: the batch id and how many products it has. */
  readonly batchId?: string;
  readonly batchSize?: number;
}

/** Why a ledger entry exists. INITIAL entries are reported by PRODUCT_CREATED, not by an event of their own. */
export type StockReason = "INITIAL" | "ADMIN_UPDATE" | "ORDER_RESERVED" | "ORDER_RELEASED";

/** One change of one product's stock; never changed after insert (except its outbox, by the relay). */
export interface StockEntryDocument extends OutboxCarrier {
  /** `<productId>#<seq, zero-padded to 10 digits>`: unique, so one entry per sequence number. */
  readonly _id: string;
  readonly productId: string;
  /** 1, 2, 3, … per product, without gaps. */
  readonly seq: number;
  /** Signed change. */
  readonly delta: number;
  /** Stock after this entry; never negative. */
  readonly balance: number;
  readonly reason: StockReason;
  readonly orderId?: string;
  /** Idempotency key, unique: `initial:<productId>`, `reserve:<orderId>:<productId>`, … */
  readonly key: string;
  readonly at: string;
}

/**
 * PENDING: being reserved (by the call that inserted it). HELD: every line reserved. COMMITTED:
 * held, and the order exists (the sweeper checked). REFUSED: a line was short or unknown;
 * nothing is held. RELEASING: giving the stock back was decided and is under way. RELEASED:
 * given back (or never taken: a release that came before any reservation leaves one, so that a
 * late reservation of that order is refused).
 */
export type ReservationState = "PENDING" | "HELD" | "COMMITTED" | "REFUSED" | "RELEASING" | "RELEASED";

export interface ReservedLine {
  readonly productId: string;
  readonly quantity: number;
}

export interface ReservationDocument extends VersionedDocument {
  /** The order id: one reservation per order. */
  readonly _id: string;
  /** One line per product, sorted by product id. */
  readonly lines: readonly ReservedLine[];
  readonly state: ReservationState;
  /** Epoch milliseconds of the first ReserveStock call; the sweeper's TTL counts from here. */
  readonly heldAt: number;
  /** When REFUSED for stock: the first product that was short. */
  readonly shortProductId?: string;
  /** When REFUSED because a product is unknown or inactive. */
  readonly missingProductId?: string;
  /** Once RELEASING or RELEASED: the state it was released from (HELD and COMMITTED held stock). */
  readonly releasedFrom?: ReservationState;
}

export interface ProductCollections {
  readonly categories: Collection<CategoryDocument>;
  readonly products: Collection<ProductDocument>;
  readonly stockEntries: Collection<StockEntryDocument>;
  readonly reservations: Collection<ReservationDocument>;
}

const categoriesSpec: CollectionSpec<CategoryDocument> = {
  name: "categories",
  indexes: [{ fields: ["name"], unique: true }],
};

// The embedded store reads through the first index whose fields the filter fixes by equality,
// so the more selective catalog filters come first; MongoDB's planner picks for itself.
const productsSpec: CollectionSpec<ProductDocument> = {
  name: "products",
  indexes: [
    { fields: ["nameKey"], unique: true },
    { fields: ["sku"], unique: true },
    { fields: ["categoryId", "brand", "status"] },
    { fields: ["categoryId", "status"] },
    { fields: ["brand", "status"] },
    { fields: ["status", "createdAt"] },
    { fields: ["status"] },
    { fields: ["batchId"] },
    { fields: ["outboxPending"] },
  ],
};

// The ledger itself reads entries by `_id` only (stock-ledger.ts); ["productId", "seq"] serves
// reading a product's history.
const stockEntriesSpec: CollectionSpec<StockEntryDocument> = {
  name: "stock_entries",
  indexes: [
    { fields: ["key"], unique: true },
    { fields: ["productId", "seq"] },
    { fields: ["outboxPending"] },
  ],
};

const reservationsSpec: CollectionSpec<ReservationDocument> = {
  name: "reservations",
  indexes: [{ fields: ["state"] }],
};

export async function openProductCollections(store: DocumentStore): Promise<ProductCollections> {
  return {
    categories: await store.collection(categoriesSpec),
    products: await store.collection(productsSpec),
    stockEntries: await store.collection(stockEntriesSpec),
    reservations: await store.collection(reservationsSpec),
  };
}
