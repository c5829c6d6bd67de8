/**
 * The HTTP rendering of a catalog Listing (called by routes.ts), in the three formats:
 * - json: `{"<key>": [...], "meta": {"after", "next"}}` (meta only when a next page exists);
 * - geojson: a FeatureCollection, every field but geometry in `properties`, meta at the top level;
 * - geojsonl: one Feature per line, next page (if any) only in the `Link` header.
 * A body is either built in memory (bounded pages) or streamed from the listing's batches, so
 * memory stays flat however many rows a request covers.
 */
import { CORS_ALLOW_ORIGIN } from "../cors.ts";
import type { Item, Listing } from "./listing.ts";
import type { Format } from "./params.ts";

interface Page {
  /** cursor of the next page (meta.after) */
  after: number;
  /** full URL of the next page */
  next: string;
}

const CONTENT_TYPE: Record<Format, string> = {
  json: "application/json; charset=utf-8",
  geojson: "application/geo+json; charset=utf-8",
  geojsonl: "application/x-ndjson; charset=utf-8",
};

/**
 * The next page's URL: the request's path and parameters with `after` replaced, behind `origin`
 * (the configured public origin, or "" for a link relative to the request: server/origin.ts). The
 * API key is never copied into it, whether it came as a parameter or a header.
 */
export function nextUrl(origin: string, requestUrl: string, after: number): string {
  const start = requestUrl.indexOf("/", requestUrl.indexOf("://") + 3);
  const q = requestUrl.indexOf("?", start);
  const path = q < 0 ? requestUrl.slice(start) : requestUrl.slice(start, q);
  const params = new URLSearchParams(q < 0 ? "" : requestUrl.slice(q + 1));
  params.delete("apikey");
  params.set("after", String(after));
  return `${origin}${path}?${params}`;
}

/** A listing's headers; the CORS header that every catalog answer carries (server/cors.ts) is set here, in the same place as withCorsHeader would put it, so that it need not be added to the finished answer. */
function headersFor(format: Format, page: Page | null): Record<string, string> {
  const h: Record<string, string> = { "content-type": CONTENT_TYPE[format] };
  if (page) h.link = `<${page.next}>; rel="next"`;
  h["access-control-allow-origin"] = CORS_ALLOW_ORIGIN["access-control-allow-origin"];
  return h;
}

const metaText = (page: Page | null) => (page ? `,"meta":${JSON.stringify({ after: page.after, next: page.next })}` : "");

function opening(format: Format, key: string): string {
  if (format === "json") return `{"${key}":[`;
  if (format === "geojson") return `{"type":"FeatureCollection","features":[`;
  return "";
}
const closing = (format: Format, page: Page | null) => (format === "geojsonl" ? "" : `]${metaText(page)}}`);

const json = (it: Item) => (it.geometryInJson ? `${it.props},"geometry":${it.geometry}}` : `${it.props}}`);
const feature = (it: Item) => `{"type":"Feature","geometry":${it.geometry},"properties":${it.props}}}`;
const pieceOf = (format: Format, it: Item) => (format === "json" ? json(it) : feature(it));

/** A listing as a 200 Response: `key` names the json list ("stops", "trips"), next links point past `after` (behind `origin`). */
export function listingResponse(format: Format, key: string, listing: Listing, requestUrl: string, origin: string): Response {
  const page = listing.after === null ? null : { after: listing.after, next: nextUrl(origin, requestUrl, listing.after) };
  return Array.isArray(listing.items) ? listResponse(format, key, listing.items, page) : streamResponse(format, key, listing.items, page);
}

/** A whole body built in memory (pages of at most MAX_LIMIT rows). */
function listResponse(format: Format, key: string, items: Item[], page: Page | null): Response {
  let body: string;
  if (format === "geojsonl") body = items.map((it) => `${feature(it)}\n`).join("");
  else body = opening(format, key) + items.map((it) => pieceOf(format, it)).join(",") + closing(format, page);
  return new Response(body, { status: 200, headers: headersFor(format, page) });
}

const encoder = new TextEncoder();

/**
 * A streamed body: `source` yields batches of items (one DuckDB chunk each) and is returned when
 * the client cancels (the listing then lets go of the dataset).
 */
function streamResponse(format: Format, key: string, source: AsyncIterator<Item[]>, page: Page | null): Response {
  let started = false;
  let first = true;
  const stream = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          let text = "";
          if (!started) {
            started = true;
            text = opening(format, key);
          }
          const { value, done: end } = await source.next();
          if (end) {
            text += closing(format, page);
            if (text) controller.enqueue(encoder.encode(text));
            controller.close();
            return;
          }
          const parts: string[] = [];
          for (const it of value) {
            if (format === "geojsonl") parts.push(`${feature(it)}\n`);
            else {
              parts.push(first ? pieceOf(format, it) : `,${pieceOf(format, it)}`);
              first = false;
            }
          }
          text += parts.join("");
          if (text) controller.enqueue(encoder.encode(text));
        } catch (e) {
          controller.error(e);
        }
      },
      async cancel() {
        await source.return?.(undefined);
      },
    },
    { highWaterMark: 1 },
  );
  return new Response(stream, { status: 200, headers: headersFor(format, page) });
}
