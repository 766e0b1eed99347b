/**
 * How an `EventRecord` looks on a Kafka topic (ADR 0038), in the CloudEvents 1.0 Kafka
 * protocol binding's binary mode: the payload alone is the value, the attributes travel as
 * `ce_`-prefixed headers, the key is the aggregate id.
 *
 *   key        record.subject (the partition key: one aggregate's events stay in order)
 *   value      record.data, the payload as protobuf JSON, untouched
 *   headers    ce_specversion "1.0", ce_id, ce_type, ce_source, ce_time, ce_subject,
 *              content-type "application/json", traceparent and tracestate (when traced),
 *              dead_letter_group / _topic / _error / _time (only on a dead-letter copy)
 *
 * The dead-letter details are headers of our own, not CloudEvents extensions: they describe
 * the delivery, not the event, and an extension would change the event a replay hands back.
 *
 * Plain shapes only (no client types), so the mapping outlives a change of Kafka client.
 */
import { eventRecord, type DeadLetterInfo, type EventRecord } from "./event-bus.js";

/** The header names, in one place for the adapter and for tests reading the wire. */
export const kafkaHeaders = {
  specversion: "ce_specversion",
  id: "ce_id",
  type: "ce_type",
  source: "ce_source",
  time: "ce_time",
  subject: "ce_subject",
  contentType: "content-type",
  traceparent: "traceparent",
  tracestate: "tracestate",
  deadLetterGroup: "dead_letter_group",
  deadLetterTopic: "dead_letter_topic",
  deadLetterError: "dead_letter_error",
  deadLetterTime: "dead_letter_time",
} as const;

const specversion = "1.0";
const contentType = "application/json";

/** A record as the producer sends it. */
export interface KafkaOutgoingMessage {
  readonly key: string;
  readonly value: string;
  readonly headers: Readonly<Record<string, string>>;
}

/** A record as the consumer receives it (the shape Kafka clients hand out). */
export interface KafkaIncomingMessage {
  readonly key: Buffer | string | null;
  readonly value: Buffer | string | null;
  readonly headers?: Readonly<Record<string, Buffer | string | readonly (Buffer | string)[] | undefined>>;
}

/** The Kafka record that carries `record` (see the table above). */
export function toKafkaMessage(record: EventRecord): KafkaOutgoingMessage {
  const headers: Record<string, string> = {
    [kafkaHeaders.specversion]: specversion,
    [kafkaHeaders.id]: record.id,
    [kafkaHeaders.type]: record.type,
    [kafkaHeaders.source]: record.source,
    [kafkaHeaders.time]: record.time,
    [kafkaHeaders.subject]: record.subject,
    [kafkaHeaders.contentType]: contentType,
  };
  if (record.traceparent !== undefined) headers[kafkaHeaders.traceparent] = record.traceparent;
  if (record.tracestate !== undefined) headers[kafkaHeaders.tracestate] = record.tracestate;
  if (record.deadLetter !== undefined) {
    headers[kafkaHeaders.deadLetterGroup] = record.deadLetter.group;
    headers[kafkaHeaders.deadLetterTopic] = record.deadLetter.topic;
    headers[kafkaHeaders.deadLetterError] = record.deadLetter.error;
    headers[kafkaHeaders.deadLetterTime] = record.deadLetter.time;
  }
  return { key: record.subject, value: record.data, headers };
}

/** A consumed record read back as an event, or why it is not one. */
export type DecodedRecord =
  { readonly ok: true; readonly record: EventRecord } | { readonly ok: false; readonly reason: string };

function text(value: Buffer | string | readonly (Buffer | string)[] | null | undefined): string | undefined {
  if (value === undefined || value === null) return undefined;
  // A repeated header: the last value wins, as in Kafka's own `Headers.lastHeader`.
  if (typeof value === "string") return value;
  if (Buffer.isBuffer(value)) return value.toString("utf8");
  return text(value.at(-1));
}

/**
 * Rebuilds the event from a consumed record. A record that is not one of ours (no value, or a
 * CloudEvents attribute missing, or another spec version) is refused with the reason, so the
 * consumer can log it instead of handing a half-made event to a handler.
 */
export function fromKafkaMessage(topic: string, message: KafkaIncomingMessage): DecodedRecord {
  const header = (name: string): string | undefined => text(message.headers?.[name]);
  const version = header(kafkaHeaders.specversion);
  if (version !== specversion) {
    return { ok: false, reason: `${kafkaHeaders.specversion} is ${JSON.stringify(version)}, not "1.0"` };
  }
  const data = text(message.value);
  if (data === undefined) return { ok: false, reason: "the record has no value" };
  const id = header(kafkaHeaders.id);
  const type = header(kafkaHeaders.type);
  const source = header(kafkaHeaders.source);
  const time = header(kafkaHeaders.time);
  // The key is the subject too; the header wins, the key serves records without it.
  const subject = header(kafkaHeaders.subject) ?? text(message.key);
  if (id === undefined || type === undefined || source === undefined || time === undefined) {
    return {
      ok: false,
      reason: "a CloudEvents attribute header (ce_id, ce_type, ce_source, ce_time) is missing",
    };
  }
  if (subject === undefined) return { ok: false, reason: "the record has neither ce_subject nor a key" };

  const record = eventRecord({
    id,
    type,
    source,
    time,
    subject,
    topic,
    data,
    traceparent: header(kafkaHeaders.traceparent),
    tracestate: header(kafkaHeaders.tracestate),
    deadLetter: deadLetterOf(header),
  });
  return { ok: true, record };
}

function deadLetterOf(header: (name: string) => string | undefined): DeadLetterInfo | undefined {
  const group = header(kafkaHeaders.deadLetterGroup);
  const topic = header(kafkaHeaders.deadLetterTopic);
  const error = header(kafkaHeaders.deadLetterError);
  const time = header(kafkaHeaders.deadLetterTime);
  if (group === undefined || topic === undefined || error === undefined || time === undefined)
    return undefined;
  return { group, topic, error, time };
}
