/**
 * Reading a realtime feed's bytes: an http(s) URL under one time-out that covers the whole
 * answer (a server that sends headers and then stalls is cut off too), or a file. Failures are
 * returned as an outcome, not thrown.
 */
import { readFileSync } from "node:fs";

export type FetchFn = (url: string, init: RequestInit) => Promise<Response>;

/** A larger answer is refused (GTFS-Realtime feeds are kilobytes to a few megabytes). */
export const MAX_FEED_BYTES = 64 * 1024 * 1024;

export type Fetched = { ok: true; bytes: Uint8Array } | { ok: false; outcome: "timeout" | "fetch_error"; message: string };

export const isUrl = (s: string) => /^https?:\/\//i.test(s);

export async function readFeedBytes(source: string, opts: { timeoutMs: number; fetch?: FetchFn; signal?: AbortSignal }): Promise<Fetched> {
  if (!isUrl(source)) {
    try {
      return { ok: true, bytes: new Uint8Array(readFileSync(source)) };
    } catch (e) {
      return { ok: false, outcome: "fetch_error", message: `cannot read ${source}: ${(e as Error).message}` };
    }
  }
  const ctrl = new AbortController();
  const onAbort = () => ctrl.abort();
  opts.signal?.addEventListener("abort", onAbort);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<Fetched>((resolve) => {
    timer = setTimeout(() => {
      ctrl.abort();
      resolve({ ok: false, outcome: "timeout", message: `no complete answer from ${source} within ${opts.timeoutMs} ms` });
    }, opts.timeoutMs);
  });
  const work = (async (): Promise<Fetched> => {
    try {
      const res = await (opts.fetch ?? fetch)(source, { signal: ctrl.signal, redirect: "follow", headers: { accept: "application/x-protobuf, application/octet-stream" } });
      if (!res.ok) {
        await res.body?.cancel().catch(() => {});
        return { ok: false, outcome: "fetch_error", message: `${source}: HTTP ${res.status}` };
      }
      const length = Number(res.headers.get("content-length") ?? 0);
      if (length > MAX_FEED_BYTES) {
        await res.body?.cancel().catch(() => {});
        return { ok: false, outcome: "fetch_error", message: `${source}: ${length} bytes, more than ${MAX_FEED_BYTES}` };
      }
      const bytes = new Uint8Array(await res.arrayBuffer());
      if (bytes.length > MAX_FEED_BYTES) return { ok: false, outcome: "fetch_error", message: `${source}: ${bytes.length} bytes, more than ${MAX_FEED_BYTES}` };
      return { ok: true, bytes };
    } catch (e) {
      return { ok: false, outcome: ctrl.signal.aborted ? "timeout" : "fetch_error", message: `${source}: ${(e as Error).message}` };
    }
  })();
  try {
    return await Promise.race([work, timedOut]);
  } finally {
    clearTimeout(timer);
    opts.signal?.removeEventListener("abort", onAbort);
  }
}
