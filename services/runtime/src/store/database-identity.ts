/**
 * Which database a store is, as its telemetry names it (telemetry/database-spans.ts): the
 * system, the database's name and, for a networked store, the server. Never credentials: the
 * connection string's user and password stay in the adapter.
 */
export interface DatabaseIdentity {
  /**
   * `db.system.name`: `mongodb` for the MongoDB adapter (FerretDB included: it is what the
   * driver speaks), `commerce_embedded_store` for the embedded store, `clickhouse` for both
   * analytics adapters (chDB is ClickHouse in process).
   */
  readonly system: string;
  /** `db.namespace`: the database's name. */
  readonly namespace: string;
  /** `server.address` / `server.port`: a networked store's server; none in process. */
  readonly server?: { readonly address: string; readonly port: number };
}
