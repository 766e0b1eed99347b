/**
 * One piece of local test infrastructure (FerretDB, Kafka, ClickHouse), started and stopped by
 * the `infra:up` / `infra:down` commands.
 *
 * Both operations are idempotent, so the commands can be run again at any time: `up` on a
 * running, healthy component only reports how to reach it, `down` on a stopped one does nothing.
 */
export interface InfraComponent {
  readonly name: string;
  /**
   * Starts the component if it is not running and waits until it answers. Resolves to the
   * environment variables that point the tests at it (e.g. `MONGODB_URL`).
   */
  up(): Promise<Readonly<Record<string, string>>>;
  down(): Promise<void>;
}
