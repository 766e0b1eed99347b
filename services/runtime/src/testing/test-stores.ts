/**
 * Test support: the document-store backends a suite runs on. The embedded store always; the
 * MongoDB adapter against the server in MONGODB_URL (FerretDB in `npm test`, whose conditional
 * updates are not atomic), which a suite requires rather than skips: a race suite that silently
 * did not run would read as one that holds.
 */
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MongoClient } from "mongodb";
import type { DocumentStore } from "../store/document-store.js";
import { createEmbeddedStoreProvider } from "../store/embedded-store.js";
import { createMongoStoreProvider } from "../store/mongo-store.js";

export interface TestStore {
  readonly store: DocumentStore;
  close(): Promise<void>;
}

export interface TestStoreBackend {
  readonly name: string;
  /** A fresh, empty database. */
  open(): Promise<TestStore>;
}

/** MONGODB_URL, or an error that says how to run `spec` with FerretDB. */
export function requiredMongoUrl(spec: string): string {
  const url = process.env["MONGODB_URL"];
  if (url === undefined || url === "") {
    throw new Error(
      'MONGODB_URL is not set. Start FerretDB with `eval "$(npm run -s infra:up)"` and run ' +
        `\`MONGODB_URL=$MONGODB_URL npx mocha ${spec}\`.`,
    );
  }
  return url;
}

/** The MongoDB adapter on a fresh database of the server in MONGODB_URL, dropped on close. */
export function mongoTestStore(spec: string): TestStoreBackend {
  return {
    name: "MongoDB adapter",
    async open() {
      const url = requiredMongoUrl(spec);
      const database = `test_${randomBytes(6).toString("hex")}`;
      const provider = createMongoStoreProvider({ url });
      const store = await provider.open(database);
      return {
        store,
        async close() {
          await provider.close();
          const client = new MongoClient(url);
          try {
            await client.db(database).dropDatabase();
          } finally {
            await client.close();
          }
        },
      };
    },
  };
}

export function testStoreBackends(spec: string): readonly TestStoreBackend[] {
  return [
    {
      name: "embedded store",
      async open() {
        const dir = await mkdtemp(join(tmpdir(), "test-store-"));
        const provider = createEmbeddedStoreProvider({ dataDir: dir });
        const store = await provider.open("test");
        return {
          store,
          async close() {
            await provider.close();
            await rm(dir, { recursive: true, force: true });
          },
        };
      },
    },
    mongoTestStore(spec),
  ];
}
