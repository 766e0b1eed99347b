/**
 * The cart, kept in this browser (localStorage) until an order is placed from it: it survives a
 * reload and a later visit, before and after logging in, and tabs share it. A line remembers
 * the name and price it was added with, to show; the order is priced by the API.
 */
import { useSyncExternalStore } from "react";

export interface CartLine {
  readonly productId: string;
  readonly name: string;
  readonly price: number;
  readonly quantity: number;
}

const storageKey = "commerce.cart";
const listeners = new Set<() => void>();

function isLine(value: unknown): value is CartLine {
  if (typeof value !== "object" || value === null) return false;
  const line = value as Record<string, unknown>;
  return (
    typeof line["productId"] === "string" &&
    typeof line["name"] === "string" &&
    typeof line["price"] === "number" &&
    typeof line["quantity"] === "number" &&
    Number.isInteger(line["quantity"]) &&
    line["quantity"] > 0
  );
}

function read(): readonly CartLine[] {
  try {
    const parsed = JSON.parse(localStorage.getItem(storageKey) ?? "[]") as unknown;
    return Array.isArray(parsed) ? parsed.filter(isLine) : [];
  } catch {
    return [];
  }
}

let lines = read();

function write(next: readonly CartLine[]): void {
  lines = next;
  try {
    localStorage.setItem(storageKey, JSON.stringify(next));
  } catch {
    // Storage refused: the cart lasts as long as the page.
  }
  for (const listener of listeners) listener();
}

// Another tab changed the cart.
window.addEventListener("storage", (event) => {
  if (event.key !== storageKey) return;
  lines = read();
  for (const listener of listeners) listener();
});

export const cart = {
  lines: (): readonly CartLine[] => lines,
  /** Adds `quantity` of a product, to its line if it has one. */
  add(product: { id: string; name: string; price: number }, quantity: number): void {
    const existing = lines.find((line) => line.productId === product.id);
    write(
      existing === undefined
        ? [...lines, { productId: product.id, name: product.name, price: product.price, quantity }]
        : lines.map((line) =>
            line === existing ? { ...line, price: product.price, quantity: line.quantity + quantity } : line,
          ),
    );
  },
  setQuantity(productId: string, quantity: number): void {
    write(lines.map((line) => (line.productId === productId ? { ...line, quantity } : line)));
  },
  remove(productId: string): void {
    write(lines.filter((line) => line.productId !== productId));
  },
  clear(): void {
    write([]);
  },
  subscribe: (listener: () => void): (() => void) => {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
};

export function useCart(): readonly CartLine[] {
  return useSyncExternalStore(cart.subscribe, cart.lines);
}

/** How many items the cart holds, all lines together. */
export function itemCount(cartLines: readonly CartLine[]): number {
  return cartLines.reduce((total, line) => total + line.quantity, 0);
}
