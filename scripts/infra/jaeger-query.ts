/**
 * Reading traces back from Jaeger's query API (`/api/traces/<id>`, `/api/traces?service=…`), as
 * the tests that check what the platform exported do. Jaeger answers in its own model: a span's
 * parent and links are `references` (`CHILD_OF`, and `FOLLOWS_FROM` for an OpenTelemetry link),
 * its kind and status are the tags `span.kind` and `otel.status_code`, and its service is the
 * `serviceName` of its process.
 */
export interface JaegerReference {
  readonly refType: "CHILD_OF" | "FOLLOWS_FROM";
  readonly traceID: string;
  readonly spanID: string;
}

export interface JaegerTag {
  readonly key: string;
  readonly type: string;
  readonly value: string | number | boolean;
}

export interface JaegerSpan {
  readonly traceID: string;
  readonly spanID: string;
  readonly operationName: string;
  readonly processID: string;
  readonly references: readonly JaegerReference[];
  readonly tags: readonly JaegerTag[];
}

export interface JaegerTrace {
  readonly traceID: string;
  readonly spans: readonly JaegerSpan[];
  readonly processes: Readonly<Record<string, { readonly serviceName: string }>>;
}

/** A span with what the tests ask of it resolved: its service, kind, parent and tags. */
export interface TracedSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly name: string;
  readonly service: string;
  /** `server`, `client`, `producer`, `consumer` or `internal`. */
  readonly kind: string;
  /** The parent's span id, undefined for a root. */
  readonly parentId: string | undefined;
  /** The spans it links to (OpenTelemetry links). */
  readonly links: readonly { readonly traceId: string; readonly spanId: string }[];
  readonly attributes: Readonly<Record<string, string | number | boolean>>;
}

function resolved(trace: JaegerTrace): TracedSpan[] {
  return trace.spans.map((span) => {
    const attributes = Object.fromEntries(span.tags.map((tag) => [tag.key, tag.value]));
    const { ["span.kind"]: kind, ...rest } = attributes;
    return {
      traceId: span.traceID,
      spanId: span.spanID,
      name: span.operationName,
      service: trace.processes[span.processID]?.serviceName ?? "",
      kind: typeof kind === "string" ? kind : "internal",
      parentId: span.references.find((r) => r.refType === "CHILD_OF" && r.traceID === span.traceID)?.spanID,
      links: span.references
        .filter((r) => r.refType === "FOLLOWS_FROM")
        .map((r) => ({ traceId: r.traceID, spanId: r.spanID })),
      attributes: rest,
    };
  });
}

async function tracesAt(url: string): Promise<JaegerTrace[]> {
  const response = await fetch(url);
  if (response.status === 404) return [];
  if (response.status !== 200) throw new Error(`Jaeger answered ${response.status} to ${url}`);
  return ((await response.json()) as { data: readonly JaegerTrace[] | null }).data?.slice() ?? [];
}

/** The spans Jaeger holds of one trace (none yet: empty). */
export async function spansOfTrace(queryUrl: string, traceId: string): Promise<TracedSpan[]> {
  return (await tracesAt(`${queryUrl}/api/traces/${traceId}`)).flatMap(resolved);
}

/** The spans of the last `limit` traces in which `service` took part, within `lookbackMs`. */
export async function spansOfService(
  queryUrl: string,
  service: string,
  options: { readonly limit: number; readonly lookbackMs: number },
): Promise<TracedSpan[]> {
  const end = Date.now() * 1000;
  const query = new URLSearchParams({
    service,
    limit: String(options.limit),
    start: String(end - options.lookbackMs * 1000),
    end: String(end),
  });
  return (await tracesAt(`${queryUrl}/api/traces?${query.toString()}`)).flatMap(resolved);
}
