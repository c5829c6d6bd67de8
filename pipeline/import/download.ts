/**
 * Downloading a feed (or a street import's OSM extract or elevation file, into a file as it
 * arrives: downloadToFile) from an http(s) URL: a conditional request when
 * the dataset holds the bytes the URL last answered with (If-None-Match / If-Modified-Since from
 * pipeline/store/sources.ts; a 304 ends the import there), a time-out that covers each attempt's
 * whole answer (a server that sends its headers and then stalls is cut off too), and retries with
 * exponential back-off for what may pass (network errors, time-outs, HTTP 408, 425, 429 and 5xx).
 * Other answers (404, 403, ...) fail at once: asking again will not change them.
 */
import { createHash } from "node:crypto";
import { createWriteStream, renameSync } from "node:fs";
import { Readable, Transform } from "node:stream";
import { pipeline as streamPipeline } from "node:stream/promises";
import { DataError } from "../report.ts";

export interface FetchPolicy {
  /** time-out of one attempt, from the request to the last byte of the answer */
  timeoutMs: number;
  /** attempts after the first one */
  retries: number;
  /** wait before the first retry; doubled before each further one (at most MAX_BACKOFF_MS) */
  backoffMs: number;
}

export const DEFAULT_FETCH_POLICY: FetchPolicy = { timeoutMs: 120_000, retries: 2, backoffMs: 5_000 };
/** no wait between attempts is longer than this (a Retry-After header included) */
export const MAX_BACKOFF_MS = 60_000;

/** What the URL said about the bytes it answered with, for the next conditional request. */
export interface Validators {
  etag: string | null;
  last_modified: string | null;
}

export type Download =
  | { status: "not_modified"; attempts: number; http_status: 304 }
  | { status: "ok"; attempts: number; http_status: number; bytes: Uint8Array; validators: Validators };

/** A URL that gave no usable answer after every attempt. */
export class FetchError extends DataError {
  constructor(message: string, readonly attempts: number, readonly httpStatus: number | null) {
    super(message);
  }
}

type Answer<T> = { status: "not_modified"; attempts: number; http_status: 304 } | { status: "ok"; attempts: number; http_status: number; value: T; validators: Validators };

type Attempt<T> =
  | { ok: true; res: Answer<T> }
  | { ok: false; retryable: boolean; message: string; httpStatus: number | null; retryAfterMs?: number };

const RETRYABLE_STATUS = new Set([408, 425, 429]);

/** GET `url`, conditional on `known` when given, under `policy`; throws FetchError when every attempt failed. */
export async function download(url: string, policy: FetchPolicy, known: Validators | null, progress: (msg: string) => void = () => {}, fetchFn: typeof fetch = fetch): Promise<Download> {
  const a = await fetchWithRetries(url, policy, known, async (res) => new Uint8Array(await res.arrayBuffer()), progress, fetchFn);
  return a.status === "not_modified" ? a : { status: "ok", attempts: a.attempts, http_status: a.http_status, bytes: a.value, validators: a.validators };
}

/** A download written to a file as it arrives (large inputs, e.g. OSM extracts), with the SHA-1 and size of what was written. */
export type FileDownload = { status: "not_modified"; attempts: number; http_status: 304 } | { status: "ok"; attempts: number; http_status: number; sha1: string; bytes: number; validators: Validators };

/**
 * GET `url` into `file` (each attempt into a part file, renamed to `file` when whole), conditional on `known` when given, under
 * `policy` (its time-out covers each attempt's whole answer); throws FetchError when every attempt failed.
 */
export async function downloadToFile(url: string, file: string, policy: FetchPolicy, known: Validators | null, progress: (msg: string) => void = () => {}, fetchFn: typeof fetch = fetch): Promise<FileDownload> {
  let parts = 0;
  const a = await fetchWithRetries(
    url,
    policy,
    known,
    async (res) => {
      const hash = createHash("sha1");
      let bytes = 0;
      // each attempt into a file of its own (a timed-out one may still be winding down), renamed when whole
      const part = `${file}.part${++parts}`;
      const out = createWriteStream(part);
      const counted = new Transform({
        transform(chunk: Buffer, _enc, done) {
          hash.update(chunk);
          bytes += chunk.length;
          done(null, chunk);
        },
      });
      if (!res.body) throw new Error("no body");
      await streamPipeline(Readable.fromWeb(res.body as import("node:stream/web").ReadableStream), counted, out);
      renameSync(part, file);
      return { sha1: hash.digest("hex"), bytes };
    },
    progress,
    fetchFn,
  );
  return a.status === "not_modified" ? a : { status: "ok", attempts: a.attempts, http_status: a.http_status, sha1: a.value.sha1, bytes: a.value.bytes, validators: a.validators };
}

/** The retry loop of both: each attempt's answer taken by `take` (which a time-out aborts). */
async function fetchWithRetries<T>(url: string, policy: FetchPolicy, known: Validators | null, take: (res: Response) => Promise<T>, progress: (msg: string) => void, fetchFn: typeof fetch): Promise<Answer<T>> {
  const headers: Record<string, string> = { accept: "application/zip, application/octet-stream;q=0.9, */*;q=0.8" };
  if (known?.etag) headers["if-none-match"] = known.etag;
  if (known?.last_modified) headers["if-modified-since"] = known.last_modified;
  const attempts = 1 + Math.max(0, Math.floor(policy.retries));
  let last: Extract<Attempt<T>, { ok: false }> | null = null;
  let made = 0;
  for (let n = 1; n <= attempts; n++) {
    made = n;
    const a = await attempt(url, headers, policy.timeoutMs, n, take, fetchFn);
    if (a.ok) return a.res;
    last = a;
    if (!a.retryable || n === attempts) break;
    const wait = Math.min(MAX_BACKOFF_MS, Math.max(policy.backoffMs * 2 ** (n - 1), a.retryAfterMs ?? 0));
    progress(`fetch attempt ${n} of ${attempts} failed (${a.message}); retrying in ${(wait / 1000).toFixed(1)} s`);
    await new Promise((r) => setTimeout(r, wait));
  }
  const tries = made > 1 ? ` (${made} attempts)` : last!.retryable ? "" : " (not retried)";
  throw new FetchError(`cannot fetch ${url}: ${last!.message}${tries}`, made, last!.httpStatus);
}

async function attempt<T>(url: string, headers: Record<string, string>, timeoutMs: number, n: number, take: (res: Response) => Promise<T>, fetchFn: typeof fetch): Promise<Attempt<T>> {
  const ctrl = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<Attempt<T>>((resolve) => {
    timer = setTimeout(() => {
      ctrl.abort();
      resolve({ ok: false, retryable: true, httpStatus: null, message: `timed out (no complete answer within ${timeoutMs} ms)` });
    }, timeoutMs);
  });
  const work = (async (): Promise<Attempt<T>> => {
    try {
      const res = await fetchFn(url, { signal: ctrl.signal, redirect: "follow", headers });
      if (res.status === 304) {
        await res.body?.cancel().catch(() => {});
        return { ok: true, res: { status: "not_modified", attempts: n, http_status: 304 } };
      }
      if (!res.ok) {
        await res.body?.cancel().catch(() => {});
        const retryable = res.status >= 500 || RETRYABLE_STATUS.has(res.status);
        return { ok: false, retryable, httpStatus: res.status, message: `HTTP ${res.status}`, retryAfterMs: retryAfter(res.headers.get("retry-after")) };
      }
      const value = await take(res);
      const validators = { etag: res.headers.get("etag"), last_modified: res.headers.get("last-modified") };
      return { ok: true, res: { status: "ok", attempts: n, http_status: res.status, value, validators } };
    } catch (e) {
      return { ok: false, retryable: true, httpStatus: null, message: ctrl.signal.aborted ? `timed out (no complete answer within ${timeoutMs} ms)` : (e as Error).message };
    }
  })();
  try {
    return await Promise.race([work, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

/** Retry-After in seconds or as an HTTP date, in ms (undefined when absent or unreadable). */
function retryAfter(v: string | null): number | undefined {
  if (!v) return undefined;
  const s = Number(v);
  if (Number.isFinite(s)) return Math.max(0, s * 1000);
  const at = Date.parse(v);
  return Number.isFinite(at) ? Math.max(0, at - Date.now()) : undefined;
}
