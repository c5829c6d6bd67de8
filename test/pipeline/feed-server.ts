/**
 * A local HTTP server for the nightly-job tests (Bun.serve on port 0): it serves real feeds read
 * from ../shared/data/gtfs at test time with an ETag and/or a Last-Modified, answers 304 to a
 * conditional request for the bytes it serves, and plays the failures a feed URL has at night:
 * a slow answer, headers then a stalled body, an HTTP error status. Each request is logged.
 */
import { createHash } from "node:crypto";

export interface FeedRoute {
  /** the answer's bytes (a 200) */
  body?: Uint8Array;
  /** send an ETag (default true) */
  etag?: boolean;
  /** send this Last-Modified (and honour If-Modified-Since) */
  lastModified?: Date;
  /** wait this long before answering */
  delayMs?: number;
  /** send the headers and the first bytes, then stall this long before the rest */
  stallMs?: number;
  /** answer with this status and no feed */
  status?: number;
}

export interface Hit {
  path: string;
  /** the request carried If-None-Match or If-Modified-Since */
  conditional: boolean;
  status: number;
}

export interface FeedServer {
  url(path: string): string;
  set(path: string, route: FeedRoute): void;
  hits(path?: string): Hit[];
  stop(): void;
}

const etagOf = (b: Uint8Array) => `"${createHash("sha1").update(b).digest("hex").slice(0, 20)}"`;

export function startFeedServer(routes: Record<string, FeedRoute>): FeedServer {
  const table = new Map(Object.entries(routes));
  const log: Hit[] = [];
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const path = new URL(req.url).pathname;
      const inm = req.headers.get("if-none-match");
      const ims = req.headers.get("if-modified-since");
      const hit: Hit = { path, conditional: Boolean(inm || ims), status: 0 };
      log.push(hit);
      const route = table.get(path);
      const answer = (res: Response) => ((hit.status = res.status), res);
      if (!route) return answer(new Response("not found", { status: 404 }));
      if (route.delayMs) await Bun.sleep(route.delayMs);
      if (route.status) return answer(new Response("feed server error", { status: route.status }));
      const body = route.body!;
      const headers: Record<string, string> = { "content-type": "application/zip" };
      const tag = etagOf(body);
      if (route.etag !== false) headers.etag = tag;
      if (route.lastModified) headers["last-modified"] = route.lastModified.toUTCString();
      // RFC 9110: If-None-Match wins over If-Modified-Since
      const fresh = inm !== null ? route.etag !== false && inm === tag : ims !== null && route.lastModified !== undefined && Date.parse(ims) >= Math.floor(route.lastModified.getTime() / 1000) * 1000;
      if (fresh) return answer(new Response(null, { status: 304, headers }));
      if (route.stallMs) {
        const stall = route.stallMs;
        const stream = new ReadableStream<Uint8Array>({
          async start(ctrl) {
            ctrl.enqueue(body.subarray(0, 1024));
            await Bun.sleep(stall);
            try {
              ctrl.enqueue(body.subarray(1024));
              ctrl.close();
            } catch { /* the client gave up */ }
          },
        });
        return answer(new Response(stream, { headers: { ...headers, "content-length": String(body.length) } }));
      }
      return answer(new Response(body, { headers }));
    },
  });
  return {
    url: (path) => `http://127.0.0.1:${server.port}${path}`,
    set: (path, route) => void table.set(path, route),
    hits: (path) => log.filter((h) => path === undefined || h.path === path),
    stop: () => void server.stop(true),
  };
}

/**
 * The same zip with a different archive comment: other bytes (another feed version, by SHA-1),
 * the same GTFS files. The shared zips end with a comment-less end-of-central-directory record.
 */
export function withZipComment(zip: Uint8Array, comment: string): Uint8Array {
  const eocd = zip.length - 22;
  const dv = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  if (dv.getUint32(eocd, true) !== 0x06054b50 || dv.getUint16(eocd + 20, true) !== 0) throw new Error("zip with a comment already");
  const c = new TextEncoder().encode(comment);
  const out = new Uint8Array(zip.length + c.length);
  out.set(zip);
  new DataView(out.buffer).setUint16(eocd + 20, c.length, true);
  out.set(c, zip.length);
  return out;
}
