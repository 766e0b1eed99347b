/**
 * The store and the broker a bench deployment runs on, chosen by name, each started for that
 * deployment alone (two deployments would otherwise share collections, topics and consumer
 * groups). A bench that compares a "before" and an "after" deployment names one of each per
 * side, so that moving either side to other infrastructure (another store behind FerretDB,
 * another Kafka line) is one entry here and one name in its setting.
 */
import { startFerretDb } from "../infra/ferretdb.js";
import { startKafka } from "../infra/kafka.js";

/** A store server started for one deployment: what the services reach, and what to count. */
export interface StoreServer {
  /** `MONGODB_URL`. */
  readonly url: string;
  /** The launcher's pid: its CPU, and its children's (a database under it), are the store's. */
  readonly pid: number;
  stop(): Promise<void>;
}

export interface StoreChoice {
  /** What the figures call it. */
  readonly title: string;
  /** None: the services keep their documents in their own process (the embedded store). */
  readonly start: (dataDir: string) => Promise<StoreServer | undefined>;
}

export interface BrokerServer {
  /** `KAFKA_BROKERS`. */
  readonly brokers: string;
  readonly pid: number;
  stop(): Promise<void>;
}

export interface BrokerChoice {
  readonly title: string;
  readonly start: (dataDir: string) => Promise<BrokerServer>;
}

const quiet = { log: () => undefined };

/** The stores a deployment can run on, by the names the bench settings use. */
export const storeChoices: Readonly<Record<string, StoreChoice>> = {
  embedded: { title: "embedded stores", start: () => Promise.resolve(undefined) },
  ferretdb: {
    title: "FerretDB 1.24 on PostgreSQL",
    start: (dataDir) => startFerretDb({ dataDir, ...quiet }),
  },
  // The test server before ADR 0121, kept for the comparison.
  "ferretdb-sqlite": {
    title: "FerretDB 1.24 on SQLite",
    start: (dataDir) => startFerretDb({ dataDir, backend: "sqlite", ...quiet }),
  },
};

/** The brokers a deployment can run on, by name. */
export const brokerChoices: Readonly<Record<string, BrokerChoice>> = {
  kafka: { title: "Kafka 4", start: (dataDir) => startKafka({ dataDir, ...quiet }) },
  // The broker before ADR 0120, kept for the comparison.
  "kafka-3.9": { title: "Kafka 3.9", start: (dataDir) => startKafka({ dataDir, line: "3.9", ...quiet }) },
};

/** What each side of a before-and-after comparison runs on: the names of its store and broker. */
export interface SidesInfrastructure {
  readonly before: { readonly store: string; readonly broker: string };
  readonly after: { readonly store: string; readonly broker: string };
}

/**
 * One side's choices by name, or a clear error naming the choices there are. `pair` is `name`
 * (both sides) or `before/after`.
 */
export function sidesOf(stores: string, brokers: string): SidesInfrastructure {
  const split = (pair: string, known: Readonly<Record<string, unknown>>, what: string): [string, string] => {
    const names = pair.split("/");
    const [before = "", after = before] = names;
    if (names.length > 2 || !(before in known) || !(after in known)) {
      throw new Error(
        `${what} "${pair}": expected a name or before/after of ${Object.keys(known).join(", ")}`,
      );
    }
    return [before, after];
  };
  const [storeBefore, storeAfter] = split(stores, storeChoices, "store");
  const [brokerBefore, brokerAfter] = split(brokers, brokerChoices, "broker");
  return {
    before: { store: storeBefore, broker: brokerBefore },
    after: { store: storeAfter, broker: brokerAfter },
  };
}

export function storeChoice(name: string): StoreChoice {
  const choice = storeChoices[name];
  if (choice === undefined) throw new Error(`no store named ${name}`);
  return choice;
}

export function brokerChoice(name: string): BrokerChoice {
  const choice = brokerChoices[name];
  if (choice === undefined) throw new Error(`no broker named ${name}`);
  return choice;
}
