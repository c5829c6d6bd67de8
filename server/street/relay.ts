/**
 * Relaying the engine's answer (engine.ts EngineAnswer) as the gateway's StreetAnswer: successes and
 * the engine's own 4xx errors pass through with their status and body (streamed, so a 300 MB
 * expansion never sits in memory); anything that is not a Valhalla answer (5xx, garbage, empty)
 * becomes the spec's 503 text/plain (thrown as AppError ENGINE_UNAVAILABLE). Warnings the gateway
 * owes the client (dropped hard exclusions) are merged into JSON objects and always sent as a header.
 * An answer the embedded engine made whole (a string) is sent as it is, without a stream to check.
 */
import { CORS_ALLOW_ORIGIN } from "../cors.ts";
import { AppError } from "../errors.ts";
import type { EngineAnswer } from "./engine.ts";

/** The service's CORS headers (server/cors.ts), which Valhalla's answers get too. */
export { CORS_HEADERS } from "../cors.ts";

/**
 * What the gateway answers the client: status, headers (CORS and content type included) and the
 * body, whole, streamed (a large engine answer, passed on as it arrives) or none (a preflight).
 */
export interface StreetAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | ReadableStream<Uint8Array> | null;
}

export interface Warning {
  code: number;
  text: string;
}

export interface RelayOptions {
  /** the client asked for JSON (format json/osrm or none): a non-JSON success is garbage */
  expectJson: boolean;
  warnings: Warning[];
  /** largest success body buffered to merge warnings into; bigger ones get the header only */
  mergeLimitBytes?: number;
}

/** Engine error bodies are small; more than this is not a Valhalla error. */
const ERROR_BODY_LIMIT = 1 << 20;
const DEFAULT_MERGE_LIMIT = 32 << 20;

type Reader = { read(): Promise<{ done: true; value?: undefined } | { done: false; value: Uint8Array }>; cancel(reason?: unknown): Promise<void> };

const invalidAnswer = (why: string) => new AppError("ENGINE_UNAVAILABLE", `routing engine sent an invalid answer (${why})`);

export async function relay(answer: EngineAnswer, opts: RelayOptions): Promise<StreetAnswer> {
  const headers: Record<string, string> = { ...CORS_ALLOW_ORIGIN, "content-type": answer.contentType ?? "application/json" };
  if (opts.warnings.length) headers["x-interchange-warning"] = opts.warnings.map((w) => `${w.code} ${w.text}`).join("; ");
  const status = answer.status;

  if (typeof answer.body === "string") {
    // an answer the embedded engine already holds whole: no stream to check or re-chunk
    const merged = opts.warnings.length && answer.body.startsWith("{") ? mergeWarnings(answer.body, opts.warnings) : null;
    return { status, headers, body: merged ?? answer.body };
  }

  const ok = status >= 200 && status < 300;
  // Valhalla's own refusals: 4xx, and 501 for "not implemented" combinations (codes 141, 142).
  const engineRefusal = (status >= 400 && status < 500) || status === 501;
  if (!ok && !engineRefusal) {
    await answer.body?.cancel().catch(() => {});
    throw new AppError("ENGINE_UNAVAILABLE", `routing engine failed to answer (HTTP ${status})`);
  }
  const reader = answer.body?.getReader() as Reader | undefined;
  if (!reader) throw invalidAnswer("empty body");

  if (engineRefusal) {
    const { text, complete } = await readUpTo(reader, ERROR_BODY_LIMIT);
    if (!complete) throw invalidAnswer("oversized error body");
    try {
      const parsed = JSON.parse(text) as unknown;
      if (!parsed || typeof parsed !== "object") throw new Error("not an object");
    } catch {
      throw invalidAnswer(`HTTP ${status} without a JSON error`);
    }
    headers["content-type"] = "application/json";
    return { status, headers, body: text };
  }

  // Success: look at the first bytes to catch garbage before committing to a 200.
  const head: Uint8Array[] = [];
  let first = -1;
  while (first < 0) {
    const { done, value } = await reader.read();
    if (done) break;
    head.push(value);
    first = value.findIndex((b: number) => b !== 0x20 && b !== 0x0a && b !== 0x0d && b !== 0x09);
  }
  if (first < 0 && opts.expectJson) throw invalidAnswer("empty body");
  const firstByte = first < 0 ? -1 : head[head.length - 1]![first]!;
  if (opts.expectJson && firstByte !== 0x7b /* { */ && firstByte !== 0x5b /* [ */) {
    await reader.cancel().catch(() => {});
    throw invalidAnswer("not JSON");
  }

  if (opts.warnings.length && firstByte === 0x7b) {
    const limit = opts.mergeLimitBytes ?? DEFAULT_MERGE_LIMIT;
    if (!((answer.contentLength ?? NaN) > limit)) {
      const rest = await readUpTo(reader, limit, head);
      if (rest.complete) return { status, headers, body: mergeWarnings(rest.text, opts.warnings) ?? rest.text };
      return { status, headers, body: prepend(rest.chunks, reader) };
    }
  }
  return { status, headers, body: prepend(head, reader) };
}

/** Adds warnings to a JSON object answer: top-level `warnings`, and `trip.warnings` for route-shaped answers. */
export function mergeWarnings(text: string, warnings: Warning[]): string | null {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return null;
  }
  if (!body || typeof body !== "object" || Array.isArray(body)) return null;
  const o = body as Record<string, unknown>;
  o.warnings = [...(Array.isArray(o.warnings) ? o.warnings : []), ...warnings];
  const trip = o.trip as Record<string, unknown> | undefined;
  if (trip && typeof trip === "object" && !Array.isArray(trip)) trip.warnings = [...(Array.isArray(trip.warnings) ? trip.warnings : []), ...warnings];
  return JSON.stringify(o);
}

async function readUpTo(
  reader: Reader,
  limit: number,
  start: Uint8Array[] = [],
): Promise<{ text: string; complete: boolean; chunks: Uint8Array[] }> {
  const chunks = [...start];
  let size = chunks.reduce((n, c) => n + c.byteLength, 0);
  while (size <= limit) {
    const { done, value } = await reader.read();
    if (done) return { text: new TextDecoder().decode(Buffer.concat(chunks)), complete: true, chunks };
    chunks.push(value);
    size += value.byteLength;
  }
  return { text: "", complete: false, chunks };
}

/** A stream of the chunks already read followed by the rest of the reader. */
function prepend(chunks: Uint8Array[], reader: Reader): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream<Uint8Array>({
    async pull(ctrl) {
      if (i < chunks.length) return ctrl.enqueue(chunks[i++]!);
      try {
        const { done, value } = await reader.read();
        if (done) ctrl.close();
        else ctrl.enqueue(value);
      } catch (e) {
        ctrl.error(e);
      }
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}
