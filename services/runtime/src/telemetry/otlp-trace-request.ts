/**
 * OTLP's `ExportTraceServiceRequest` in protobuf, from finished spans: what the span export
 * (otlp-span-exporter.ts) posts to `/v1/traces`. The bytes are the OpenTelemetry SDK's own
 * serializer's, field for field (its spec compares them), written in one pass: ids go from hex
 * into the buffer natively, strings are written where they land, and a resource's and a scope's
 * message, the same for every span of a service, are encoded once and copied.
 *
 * The messages, by field number (opentelemetry-proto, `trace/v1/trace.proto` and
 * `common/v1/common.proto`):
 * - ExportTraceServiceRequest: resource_spans 1.
 * - ResourceSpans: resource 1, scope_spans 2. ScopeSpans: scope 1, spans 2, schema_url 3.
 * - Resource: attributes 1, dropped_attributes_count 2.
 * - InstrumentationScope: name 1, version 2, attributes 3, dropped_attributes_count 4.
 * - Span: trace_id 1, span_id 2, trace_state 3, parent_span_id 4, name 5, kind 6 (the API's
 *   plus one), start 7 and end 8 (fixed64 ns), attributes 9, dropped_attributes_count 10,
 *   events 11, dropped_events_count 12, links 13, dropped_links_count 14, status 15, flags 16.
 * - Event: time 1, name 2, attributes 3, dropped_attributes_count 4.
 * - Link: trace_id 1, span_id 2, trace_state 3, attributes 4, dropped_attributes_count 5, flags 6.
 * - Status: message 2, code 3. KeyValue: key 1, value 2.
 * - AnyValue: string 1, bool 2, int 3, double 4, array 5, kvlist 6, bytes 7.
 */
import type { Attributes, AttributeValue, HrTime, Link, SpanContext, SpanStatus } from "@opentelemetry/api";
import type { InstrumentationScope } from "@opentelemetry/core";
import type { Resource } from "@opentelemetry/resources";
import type { ReadableSpan, TimedEvent } from "@opentelemetry/sdk-trace-base";
import { ProtobufWriter, WireType } from "./protobuf-writer.js";

const { varint, fixed64, lengthDelimited, fixed32 } = WireType;

/** Span flags: the W3C trace flags in the low byte, and whether the parent was remote. */
const hasIsRemote = 0x100;
const isRemote = 0x200;

/** Encodes `spans` (any resources and scopes) as one export request. */
export function encodeTraceRequest(spans: readonly ReadableSpan[]): Uint8Array {
  const writer = new ProtobufWriter(256 + spans.length * 320);
  for (const [resource, byScope] of grouped(spans)) {
    writer.tag(1, lengthDelimited);
    const resourceSpans = writer.begin();
    writer.raw(encodedResource(resource));
    for (const scoped of byScope.values()) {
      writer.tag(2, lengthDelimited);
      const scopeSpans = writer.begin();
      const scope = (scoped[0] as ReadableSpan).instrumentationScope;
      writer.raw(encodedScope(scope));
      for (const span of scoped) {
        writer.tag(2, lengthDelimited);
        const start = writer.begin();
        writeSpan(writer, span);
        writer.end(start);
      }
      if (scope.schemaUrl) {
        writer.tag(3, lengthDelimited);
        writer.string(scope.schemaUrl);
      }
      writer.end(scopeSpans);
    }
    if (resource.schemaUrl) {
      writer.tag(3, lengthDelimited);
      writer.string(resource.schemaUrl);
    }
    writer.end(resourceSpans);
  }
  return writer.finish();
}

/** The spans by resource, then by scope, each in the order first met. */
function grouped(spans: readonly ReadableSpan[]): Map<Resource, Map<InstrumentationScope, ReadableSpan[]>> {
  const byResource = new Map<Resource, Map<InstrumentationScope, ReadableSpan[]>>();
  for (const span of spans) {
    let byScope = byResource.get(span.resource);
    if (byScope === undefined) {
      byScope = new Map<InstrumentationScope, ReadableSpan[]>();
      byResource.set(span.resource, byScope);
    }
    const scoped = byScope.get(span.instrumentationScope);
    if (scoped === undefined) byScope.set(span.instrumentationScope, [span]);
    else scoped.push(span);
  }
  return byResource;
}

function writeSpan(writer: ProtobufWriter, span: ReadableSpan): void {
  const context = span.spanContext();
  writeIds(writer, context);
  const parentSpanId = span.parentSpanContext?.spanId;
  if (parentSpanId) {
    writer.tag(4, lengthDelimited);
    writer.hex(parentSpanId);
  }
  writer.tag(5, lengthDelimited);
  writer.string(span.name);
  writer.tag(6, varint);
  writer.varint(span.kind + 1);
  writer.tag(7, fixed64);
  writeTime(writer, span.startTime);
  writer.tag(8, fixed64);
  writeTime(writer, span.endTime);
  writeAttributes(writer, 9, span.attributes);
  writer.tag(10, varint);
  writer.varint(span.droppedAttributesCount);
  for (const event of span.events) writeEvent(writer, event);
  writer.tag(12, varint);
  writer.varint(span.droppedEventsCount);
  for (const link of span.links) writeLink(writer, link);
  writer.tag(14, varint);
  writer.varint(span.droppedLinksCount);
  writer.tag(15, lengthDelimited);
  writeStatus(writer, span.status);
  writer.tag(16, fixed32);
  writer.fixed32(flags(context, span.parentSpanContext?.isRemote));
}

/** `trace_id` 1, `span_id` 2, `trace_state` 3 of a span or a link. */
function writeIds(writer: ProtobufWriter, context: SpanContext): void {
  writer.tag(1, lengthDelimited);
  writer.hex(context.traceId);
  writer.tag(2, lengthDelimited);
  writer.hex(context.spanId);
  const traceState = context.traceState?.serialize();
  if (traceState) {
    writer.tag(3, lengthDelimited);
    writer.string(traceState);
  }
}

function flags(context: SpanContext, remote: boolean | undefined): number {
  return (context.traceFlags & 0xff) | hasIsRemote | (remote === true ? isRemote : 0);
}

function writeStatus(writer: ProtobufWriter, status: SpanStatus): void {
  const start = writer.begin();
  if (status.message) {
    writer.tag(2, lengthDelimited);
    writer.string(status.message);
  }
  writer.tag(3, varint);
  writer.varint(status.code);
  writer.end(start);
}

function writeEvent(writer: ProtobufWriter, event: TimedEvent): void {
  writer.tag(11, lengthDelimited);
  const start = writer.begin();
  writer.tag(1, fixed64);
  writeTime(writer, event.time);
  writer.tag(2, lengthDelimited);
  writer.string(event.name);
  if (event.attributes !== undefined) writeAttributes(writer, 3, event.attributes);
  writer.tag(4, varint);
  writer.varint(event.droppedAttributesCount ?? 0);
  writer.end(start);
}

function writeLink(writer: ProtobufWriter, link: Link): void {
  writer.tag(13, lengthDelimited);
  const start = writer.begin();
  writeIds(writer, link.context);
  if (link.attributes !== undefined) writeAttributes(writer, 4, link.attributes);
  writer.tag(5, varint);
  writer.varint(link.droppedAttributesCount ?? 0);
  writer.tag(6, fixed32);
  writer.fixed32(flags(link.context, link.context.isRemote));
  writer.end(start);
}

/**
 * Nanoseconds since the epoch as fixed64, from `[seconds, nanoseconds]`. `seconds × 10⁹` passes
 * 2⁵³, so it is built from halves of `seconds` that each stay exact.
 */
function writeTime(writer: ProtobufWriter, [seconds, nanos]: HrTime): void {
  const upper = Math.floor(seconds / 0x1_0000); // seconds = upper × 2¹⁶ + lower
  const lower = seconds & 0xffff;
  const upperNanos = upper * 1e9; // × 2¹⁶ below; < 2⁵³
  const lowerNanos = lower * 1e9 + nanos; // < 2⁵³
  const low = (upperNanos % 0x1_0000) * 0x1_0000 + (lowerNanos % 0x1_0000_0000);
  const high = Math.floor(upperNanos / 0x1_0000) + Math.floor(lowerNanos / 0x1_0000_0000);
  writer.fixed64(low % 0x1_0000_0000, high + Math.floor(low / 0x1_0000_0000));
}

function writeAttributes(writer: ProtobufWriter, field: number, attributes: Attributes): void {
  for (const key in attributes) {
    if (!Object.hasOwn(attributes, key)) continue;
    writer.tag(field, lengthDelimited);
    const start = writer.begin();
    writeKeyValue(writer, key, attributes[key]);
    writer.end(start);
  }
}

function writeKeyValue(writer: ProtobufWriter, key: string, value: unknown): void {
  writer.tag(1, lengthDelimited);
  writer.string(key);
  writer.tag(2, lengthDelimited);
  const start = writer.begin();
  writeAnyValue(writer, value);
  writer.end(start);
}

/** int64's range: integers in it are `int_value`, other numbers `double_value`. */
const int64Low = -(2 ** 63);
const int64High = 2 ** 63;

/** An attribute's value (or an item of an array value); nothing for null and what is not a value. */
function writeAnyValue(writer: ProtobufWriter, value: unknown): void {
  switch (typeof value) {
    case "string":
      writer.tag(1, lengthDelimited);
      writer.string(value);
      return;
    case "boolean":
      writer.tag(2, varint);
      writer.varint(value ? 1 : 0);
      return;
    case "number":
      if (Number.isInteger(value) && value >= int64Low && value < int64High) {
        writer.tag(3, varint);
        writer.varint(value);
      } else {
        writer.tag(4, fixed64);
        writer.double(value);
      }
      return;
    case "object":
      if (value === null) return;
      if (value instanceof Uint8Array) {
        writer.tag(7, lengthDelimited);
        writer.bytes(value);
      } else if (Array.isArray(value)) {
        writer.tag(5, lengthDelimited);
        const array = writer.begin();
        for (const item of value as AttributeValue[]) {
          writer.tag(1, lengthDelimited);
          const start = writer.begin();
          writeAnyValue(writer, item);
          writer.end(start);
        }
        writer.end(array);
      } else {
        writer.tag(6, lengthDelimited);
        const list = writer.begin();
        for (const key in value) {
          if (!Object.hasOwn(value, key)) continue;
          writer.tag(1, lengthDelimited);
          const start = writer.begin();
          writeKeyValue(writer, key, (value as Record<string, unknown>)[key]);
          writer.end(start);
        }
        writer.end(list);
      }
      return;
    default:
      return;
  }
}

const resources = new WeakMap<Resource, Uint8Array>();
const scopes = new WeakMap<InstrumentationScope, Uint8Array>();

/** ResourceSpans' `resource` (field 1, tag included), encoded once per resource. */
function encodedResource(resource: Resource): Uint8Array {
  let encoded = resources.get(resource);
  if (encoded === undefined) {
    const writer = new ProtobufWriter(256);
    writer.tag(1, lengthDelimited);
    const start = writer.begin();
    writeAttributes(writer, 1, resource.attributes);
    writer.tag(2, varint);
    writer.varint(0);
    writer.end(start);
    encoded = writer.finish();
    resources.set(resource, encoded);
  }
  return encoded;
}

/** ScopeSpans' `scope` (field 1, tag included), encoded once per scope. */
function encodedScope(scope: InstrumentationScope): Uint8Array {
  let encoded = scopes.get(scope);
  if (encoded === undefined) {
    const writer = new ProtobufWriter(64);
    writer.tag(1, lengthDelimited);
    const start = writer.begin();
    writer.tag(1, lengthDelimited);
    writer.string(scope.name);
    if (scope.version) {
      writer.tag(2, lengthDelimited);
      writer.string(scope.version);
    }
    writer.end(start);
    encoded = writer.finish();
    scopes.set(scope, encoded);
  }
  return encoded;
}
