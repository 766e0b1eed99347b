/**
 * Messaging spans per the semantic conventions: the outbox relay's PRODUCER span per published
 * record (`send <topic>`) and the consumers' CONSUMER span (`process <topic>`), with
 * `messaging.system`, `messaging.destination.name`, `messaging.operation.type` and
 * `messaging.operation.name`, the event id and, on the consumer, the group. Both hang under the
 * context the record carries, captured when the event was recorded (event-factory.ts): the
 * producer span as its child; a single record's consumer span as its child too, a batch's span
 * with a link per record. Neither the key (an aggregate id, a user's for some events) nor the
 * payload is recorded: they may be personal data.
 */
import {
  SpanKind,
  ROOT_CONTEXT,
  SpanStatusCode,
  trace,
  type Context,
  type Attributes,
  type Link,
  type Span,
} from "@opentelemetry/api";
import type { BatchHandler, EventHandler, EventRecord } from "../events/event-bus.js";
import { underOwnSignal } from "./own-signal.js";
import type { ServiceTelemetry } from "./telemetry.js";
import { bindTraceContext, contextFromFields, sampledOut } from "./trace-context.js";

function messagingAttributes(system: string, topic: string, operation: "send" | "process"): Attributes {
  return {
    "messaging.system": system,
    "messaging.destination.name": topic,
    "messaging.operation.type": operation,
    "messaging.operation.name": operation,
  };
}

/** Ends `span`, an ERROR (its exception's type only: a message may quote data) on `error`. */
function endMessagingSpan(span: Span, error: unknown): void {
  if (error !== undefined) {
    span.setStatus({ code: SpanStatusCode.ERROR });
    span.setAttribute("error.type", error instanceof Error ? error.name : "unknown");
  }
  span.end();
}

/**
 * Publishes `records` through `publish` under a PRODUCER span per record, each the child of the
 * context the record was recorded in (a root when it carries none); plain `publish` with
 * tracing off. The records go out unchanged: their context stays the recorded one, so a
 * record published twice (at-least-once) still names its cause.
 */
export async function publishWithSpans(
  telemetry: ServiceTelemetry,
  system: string,
  records: readonly EventRecord[],
  publish: () => Promise<void>,
): Promise<void> {
  if (!telemetry.enabled) return publish();
  const spans = records.flatMap((record) => {
    const parent = contextFromFields(record);
    // An event of a request its sampler left out: no span (trace-context.ts, `sampledOut`).
    if (sampledOut(parent)) return [];
    return [
      telemetry.tracer.startSpan(
        `send ${record.topic}`,
        {
          kind: SpanKind.PRODUCER,
          attributes: {
            ...messagingAttributes(system, record.topic, "send"),
            "messaging.message.id": record.id,
          },
        },
        parent,
      ),
    ];
  });
  let failure: unknown;
  try {
    await publish();
  } catch (error) {
    failure = error;
    throw error;
  } finally {
    for (const span of spans) endMessagingSpan(span, failure);
  }
}

/**
 * `handler` under a CONSUMER span per record, the child of the record's context, bound to the
 * signal the handler runs under (`signalFor`) so that its store and peer calls, log lines and the
 * events it records join the trace of the request that caused the record. `handler` itself with
 * tracing off.
 */
export function withConsumerSpan(
  handler: EventHandler,
  telemetry: ServiceTelemetry,
  system: string,
  group: string,
): EventHandler {
  if (!telemetry.enabled) return handler;
  return async (record, signal) => {
    const parent = contextFromFields(record);
    if (sampledOut(parent)) return underTraceContext(signal, parent, (own) => handler(record, own));
    const span = telemetry.tracer.startSpan(
      `process ${record.topic}`,
      {
        kind: SpanKind.CONSUMER,
        attributes: {
          ...messagingAttributes(system, record.topic, "process"),
          "messaging.consumer.group.name": group,
          "messaging.message.id": record.id,
        },
      },
      parent,
    );
    let failure: unknown;
    try {
      await underTraceContext(signal, trace.setSpan(parent, span), (own) => handler(record, own));
    } catch (error) {
      failure = error;
      throw error;
    } finally {
      endMessagingSpan(span, failure);
    }
  };
}

/**
 * `handler` under one CONSUMER span per batch, a root with a link to each record's context (a
 * batch has many causes, so no one of them is its parent); `handler` itself with tracing off.
 */
export function withBatchConsumerSpan(
  handler: BatchHandler,
  telemetry: ServiceTelemetry,
  system: string,
  group: string,
): BatchHandler {
  if (!telemetry.enabled) return handler;
  return async (batch, signal) => {
    const links: Link[] = [];
    for (const record of batch.records) {
      const cause = trace.getSpanContext(contextFromFields(record));
      if (cause !== undefined) links.push({ context: cause });
    }
    const span = telemetry.tracer.startSpan(`process ${batch.topic}`, {
      kind: SpanKind.CONSUMER,
      root: true,
      links,
      attributes: {
        ...messagingAttributes(system, batch.topic, "process"),
        "messaging.consumer.group.name": group,
        "messaging.batch.message_count": batch.records.length,
      },
    });
    let failure: unknown;
    try {
      await underTraceContext(signal, trace.setSpan(ROOT_CONTEXT, span), (own) => handler(batch, own));
    } catch (error) {
      failure = error;
      throw error;
    } finally {
      endMessagingSpan(span, failure);
    }
  };
}

/**
 * `work` under a signal of its own that follows the consumer's, with `ctx` bound to it: the
 * consumer's signal serves every record, so it cannot carry one record's trace.
 */
function underTraceContext(consumer: AbortSignal, ctx: Context, work: (own: AbortSignal) => Promise<void>) {
  return underOwnSignal(consumer, (own) => {
    bindTraceContext(own, ctx);
    return work(own);
  });
}
