/**
 * Builds and reads events from the payload messages in `proto/commerce/events/v1`. Each payload
 * message names its contract event type and topic in the option `(commerce.options.v1.event)`, so the
 * table of eleven events lives once, in proto, and no service spells a type or topic by hand.
 */
import {
  create,
  fromJsonString,
  getOption,
  hasOption,
  toJsonString,
  type DescMessage,
  type MessageInitShape,
  type MessageShape,
} from "@bufbuild/protobuf";
import { randomUUID } from "node:crypto";
import { event as eventOption } from "../../gen/commerce/options/v1/options_pb.js";
import type { EventRecord } from "./event-bus.js";
import type { OutboxEntry } from "./outbox.js";
import { PermanentEventError } from "./permanent-event-error.js";

/** An event payload message's contract name (CloudEvents type) and topic. */
export interface EventContract {
  readonly type: string;
  readonly topic: string;
}

const contracts = new WeakMap<DescMessage, EventContract>();

/**
 * The contract of a payload message. Throws when the message carries no
 * `(commerce.options.v1.event)` option: a programming error that surfaces on first use.
 */
export function eventContract(schema: DescMessage): EventContract {
  let found = contracts.get(schema);
  if (found === undefined) {
    const option = hasOption(schema, eventOption) ? getOption(schema, eventOption) : undefined;
    if (option === undefined || option.type === "" || option.topic === "") {
      throw new Error(`${schema.typeName} is not an event payload: it has no (commerce.options.v1.event)`);
    }
    found = { type: option.type, topic: option.topic };
    contracts.set(schema, found);
  }
  return found;
}

export interface EventFactory {
  /**
   * An outbox entry for `payload`, to be stored in the same write as the change it reports.
   * `subject` is the aggregate id: the partition key that keeps the aggregate's events in order.
   * The write that records it adds its cause's W3C context (events/event-cause.ts).
   */
  event<Desc extends DescMessage>(
    schema: Desc,
    payload: MessageInitShape<Desc>,
    subject: string,
  ): OutboxEntry;
}

/** `source` is the CloudEvents source of every event the service publishes, e.g. /commerce/order. */
export function createEventFactory(source: string): EventFactory {
  if (source === "") throw new TypeError("an event source must not be empty");
  return {
    event(schema, payload, subject) {
      const { type, topic } = eventContract(schema);
      if (subject === "") throw new TypeError(`${type}: the subject (aggregate id) must not be empty`);
      const entry: OutboxEntry = {
        id: randomUUID(),
        type,
        source,
        time: new Date().toISOString(),
        subject,
        topic,
        data: toJsonString(schema, create(schema, payload), { alwaysEmitImplicit: true }),
      };
      return entry;
    },
  };
}

/**
 * The payload of `record` as a `schema` message. Throws `PermanentEventError` when the record is
 * of another type or its data does not parse: retrying cannot fix either, so `withDeadLetters`
 * dead-letters it. Unknown fields are ignored so that a consumer keeps working when a
 * producer adds a field (proto's own compatibility rule).
 */
export function parseEventData<Desc extends DescMessage>(
  schema: Desc,
  record: EventRecord,
): MessageShape<Desc> {
  const { type } = eventContract(schema);
  if (record.type !== type) {
    throw new PermanentEventError(`event ${record.id} has type ${record.type}, expected ${type}`);
  }
  try {
    return fromJsonString(schema, record.data, { ignoreUnknownFields: true });
  } catch (error) {
    throw new PermanentEventError(`event ${record.id} (${type}) has unreadable data`, { cause: error });
  }
}
