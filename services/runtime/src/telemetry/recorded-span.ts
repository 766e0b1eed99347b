/**
 * A span the platform's tracer records (platform-tracer.ts): the OpenTelemetry API's `Span` for
 * the code that makes it, and the SDK's `ReadableSpan` for the span processors and exporters it
 * ends into. It keeps what the SDK's span keeps, under the specification's default limits (128
 * attributes, events and links, 128 attributes per event and link, values whole), and holds its
 * times as the wall clock's millisecond at its start plus the monotonic clock since: the HrTime
 * pairs a reader asks for are made when asked, once the span has ended (at export).
 */
import {
  diag,
  SpanStatusCode,
  type Attributes,
  type AttributeValue,
  type Exception,
  type HrTime,
  type Link,
  type Span,
  type SpanContext,
  type SpanKind,
  type SpanStatus,
  type TimeInput,
} from "@opentelemetry/api";
import {
  isAttributeValue,
  isTimeInput,
  sanitizeAttributes,
  type InstrumentationScope,
} from "@opentelemetry/core";
import type { Resource } from "@opentelemetry/resources";
import type { ReadableSpan, SpanProcessor, TimedEvent } from "@opentelemetry/sdk-trace-base";
import { performance } from "node:perf_hooks";

/** What every span of one tracer shares. */
export interface SpanOrigin {
  readonly resource: Resource;
  readonly instrumentationScope: InstrumentationScope;
  readonly processor: SpanProcessor;
}

/** The specification's default span limits. */
const attributeCountLimit = 128;
const eventCountLimit = 128;
const linkCountLimit = 128;
const attributePerEventCountLimit = 128;
const attributePerLinkCountLimit = 128;

const unset: SpanStatus = { code: SpanStatusCode.UNSET };

export class RecordedSpan implements Span, ReadableSpan {
  readonly kind: SpanKind;
  readonly parentSpanContext?: SpanContext;
  readonly attributes: Attributes = {};
  readonly links: Link[] = [];
  readonly events: TimedEvent[] = [];
  name: string;
  status: SpanStatus = unset;
  droppedAttributesCount = 0;
  droppedEventsCount = 0;
  droppedLinksCount = 0;
  readonly #origin: SpanOrigin;
  readonly #context: SpanContext;
  #attributeCount = 0;
  /** The wall clock's whole millisecond the span's times count from (`Date.now()` at its start). */
  readonly #epochMillis: number;
  /** The monotonic clock (`performance.now()`) at `#epochMillis`. */
  readonly #monotonicBase: number;
  /** Milliseconds after `#epochMillis`: the start (0 unless given), and the end once ended. */
  #startOffset = 0;
  #endOffset = 0;
  #ended = false;

  constructor(
    origin: SpanOrigin,
    context: SpanContext,
    name: string,
    kind: SpanKind,
    parent: SpanContext | undefined,
    attributes: Attributes | undefined,
    links: readonly Link[] | undefined,
    startTime: TimeInput | undefined,
  ) {
    this.#origin = origin;
    this.#context = context;
    this.name = name;
    this.kind = kind;
    if (parent !== undefined) this.parentSpanContext = parent;
    this.#epochMillis = Date.now();
    this.#monotonicBase = performance.now();
    if (startTime !== undefined) this.#startOffset = this.#offsetOf(startTime);
    if (attributes !== undefined) this.setAttributes(attributes);
    if (links !== undefined) this.addLinks(links);
  }

  get resource(): Resource {
    return this.#origin.resource;
  }

  get instrumentationScope(): InstrumentationScope {
    return this.#origin.instrumentationScope;
  }

  get startTime(): HrTime {
    return this.#hrTime(this.#startOffset);
  }

  /** `[0, 0]` until the span has ended. */
  get endTime(): HrTime {
    return this.#ended ? this.#hrTime(this.#endOffset) : [0, 0];
  }

  /** `[-1, -1]` until the span has ended. */
  get duration(): HrTime {
    if (!this.#ended) return [-1, -1];
    const nanos = Math.round((this.#endOffset - this.#startOffset) * 1e6);
    return [Math.floor(nanos / 1e9), nanos % 1e9];
  }

  get ended(): boolean {
    return this.#ended;
  }

  spanContext(): SpanContext {
    return this.#context;
  }

  isRecording(): boolean {
    return !this.#ended;
  }

  setAttribute(key: string, value: AttributeValue | undefined): this {
    // JavaScript callers may pass null, which the types leave out.
    if (value === undefined || (value as unknown) === null || this.#ended) return this;
    if (key.length === 0) {
      diag.warn(`Invalid attribute key: ${key}`);
      return this;
    }
    const kind = typeof value;
    if (kind !== "string" && kind !== "number" && kind !== "boolean" && !isAttributeValue(value)) {
      diag.warn(`Invalid attribute value set for key: ${key}`);
      return this;
    }
    if (!Object.hasOwn(this.attributes, key)) {
      if (this.#attributeCount >= attributeCountLimit) {
        this.droppedAttributesCount += 1;
        return this;
      }
      this.#attributeCount += 1;
    }
    this.attributes[key] = value;
    return this;
  }

  setAttributes(attributes: Attributes): this {
    for (const key in attributes) {
      if (Object.hasOwn(attributes, key)) this.setAttribute(key, attributes[key]);
    }
    return this;
  }

  addEvent(name: string, attributesOrTime?: Attributes | TimeInput, time?: TimeInput): this {
    if (this.#ended) return this;
    let attributes: Attributes | undefined;
    if (isTimeInput(attributesOrTime)) time ??= attributesOrTime;
    else attributes = attributesOrTime;
    if (this.events.length >= eventCountLimit) {
      this.events.shift();
      this.droppedEventsCount += 1;
    }
    const [kept, dropped] = limited(attributes, attributePerEventCountLimit);
    this.events.push({
      name,
      attributes: kept,
      time: this.#hrTime(time === undefined ? performance.now() - this.#monotonicBase : this.#offsetOf(time)),
      droppedAttributesCount: dropped,
    });
    return this;
  }

  addLink(link: Link): this {
    if (this.#ended) return this;
    if (this.links.length >= linkCountLimit) {
      this.links.shift();
      this.droppedLinksCount += 1;
    }
    const [kept, dropped] = limited(link.attributes, attributePerLinkCountLimit);
    this.links.push({
      context: link.context,
      ...(Object.keys(kept).length > 0 ? { attributes: kept } : {}),
      ...(dropped > 0 ? { droppedAttributesCount: dropped } : {}),
    });
    return this;
  }

  addLinks(links: readonly Link[]): this {
    for (const link of links) this.addLink(link);
    return this;
  }

  /** An OK status is final; UNSET changes nothing; a message is kept on ERROR only. */
  setStatus(status: SpanStatus): this {
    if (this.#ended || status.code === SpanStatusCode.UNSET) return this;
    if (this.status.code === SpanStatusCode.OK) return this;
    this.status =
      status.code === SpanStatusCode.ERROR && typeof status.message === "string"
        ? { code: status.code, message: status.message }
        : { code: status.code };
    return this;
  }

  updateName(name: string): this {
    if (!this.#ended) this.name = name;
    return this;
  }

  /** An `exception` event with the exception's type, message and stack, as the conventions name them. */
  recordException(exception: Exception, time?: TimeInput): void {
    const attributes: Attributes = {};
    if (typeof exception === "string") attributes["exception.message"] = exception;
    else {
      const type = exception.code ? String(exception.code) : exception.name;
      if (type) attributes["exception.type"] = type;
      if (exception.message) attributes["exception.message"] = exception.message;
      if (exception.stack) attributes["exception.stacktrace"] = exception.stack;
    }
    if (attributes["exception.type"] === undefined && attributes["exception.message"] === undefined) {
      diag.warn("Failed to record an exception: it has neither a type nor a message");
      return;
    }
    this.addEvent("exception", attributes, time);
  }

  end(endTime?: TimeInput): void {
    if (this.#ended) {
      diag.error(
        `${this.name} ${this.#context.traceId}-${this.#context.spanId} - You can only call end() on a span once.`,
      );
      return;
    }
    const end = endTime === undefined ? performance.now() - this.#monotonicBase : this.#offsetOf(endTime);
    if (end < this.#startOffset) {
      diag.warn("Inconsistent start and end time, startTime > endTime. Setting span duration to 0ms.");
    }
    this.#endOffset = Math.max(end, this.#startOffset);
    this.#ended = true;
    const { processor } = this.#origin;
    processor.onEnding?.(this);
    processor.onEnd(this);
  }

  /**
   * Milliseconds after `#epochMillis` of a time given to the API: an HrTime or a Date is on the
   * wall clock; a number is milliseconds, on the monotonic clock (`performance.now()`) when it
   * is not past it, else on the wall clock, as the SDK reads it.
   */
  #offsetOf(time: TimeInput): number {
    if (typeof time === "number") {
      return time <= performance.now() ? time - this.#monotonicBase : time - this.#epochMillis;
    }
    if (time instanceof Date) return time.getTime() - this.#epochMillis;
    return time[0] * 1_000 - this.#epochMillis + time[1] / 1e6;
  }

  /** `#epochMillis` plus `offset` milliseconds, as `[seconds, nanoseconds]`. */
  #hrTime(offset: number): HrTime {
    const millis = this.#epochMillis + Math.floor(offset);
    let seconds = Math.floor(millis / 1_000);
    let nanos = (millis - seconds * 1_000) * 1e6 + Math.round((offset - Math.floor(offset)) * 1e6);
    if (nanos >= 1e9) {
      seconds += 1;
      nanos -= 1e9;
    }
    return [seconds, nanos];
  }
}

/** The valid attributes of an event or a link, at most `limit` of them, and how many were dropped. */
function limited(attributes: Attributes | undefined, limit: number): [Attributes, number] {
  const valid = sanitizeAttributes(attributes);
  const keys = Object.keys(valid);
  if (keys.length <= limit) return [valid, 0];
  return [Object.fromEntries(keys.slice(0, limit).map((key) => [key, valid[key]])), keys.length - limit];
}
