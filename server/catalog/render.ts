/**
 * Response bodies for the three formats:
 * - json: `{"<key>": [...], "meta": {"after", "next"}}` (meta only when a next page exists);
 * - geojson: a FeatureCollection, every field but geometry in `properties`, meta at the top level;
 * - geojsonl: one Feature per line, next page (if any) only in the `Link` header.
 * A body is either built in memory (bounded pages) or streamed from an async source of text
 * pieces, so memory stays flat however many rows a request covers.
 */
import type { Format } from "./params.ts";

export interface Item {
  /** JSON object of every field, geometry included */
  json: string;
  /** GeoJSON Feature */
  feature: string;
}

export interface Page {
  /** cursor of the next page (meta.after), or null on the last page */
  after: number | null;
  /** full URL of the next page, or null */
  next: string | null;
}

const CONTENT_TYPE: Record<Format, string> = {
  json: "application/json; charset=utf-8",
  geojson: "application/geo+json; charset=utf-8",
  geojsonl: "application/x-ndjson; charset=utf-8",
};

/** The request URL with `after` replaced; every other parameter (apikey included) kept. */
export function nextUrl(requestUrl: string, after: number): string {
  const u = new URL(requestUrl);
  u.searchParams.set("after", String(after));
  return u.toString();
}

function headersFor(format: Format, page: Page | null): Record<string, string> {
  const h: Record<string, string> = { "content-type": CONTENT_TYPE[format] };
  if (page?.next) h.link = `<${page.next}>; rel="next"`;
  return h;
}

const metaText = (page: Page | null) => (page?.next ? `,"meta":${JSON.stringify({ after: page.after, next: page.next })}` : "");

function opening(format: Format, key: string): string {
  if (format === "json") return `{"${key}":[`;
  if (format === "geojson") return `{"type":"FeatureCollection","features":[`;
  return "";
}
const closing = (format: Format, page: Page | null) => (format === "geojsonl" ? "" : `]${metaText(page)}}`);

const pieceOf = (format: Format, it: Item) => (format === "json" ? it.json : it.feature);

/** A whole body built in memory (pages of at most MAX_LIMIT rows). */
export function listResponse(format: Format, key: string, items: Item[], page: Page | null): Response {
  let body: string;
  if (format === "geojsonl") body = items.map((it) => `${it.feature}\n`).join("");
  else body = opening(format, key) + items.map((it) => pieceOf(format, it)).join(",") + closing(format, page);
  return new Response(body, { status: 200, headers: headersFor(format, page) });
}

const encoder = new TextEncoder();

/**
 * A streamed body: `source` yields batches of items (one DuckDB chunk each); `done` runs exactly
 * once when the stream ends, fails or is cancelled by the client.
 */
export function streamResponse(format: Format, key: string, source: AsyncGenerator<Item[]>, page: Page | null, done: () => void): Response {
  let started = false;
  let first = true;
  let finished = false;
  const finish = () => {
    if (!finished) {
      finished = true;
      done();
    }
  };
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
            finish();
            return;
          }
          const parts: string[] = [];
          for (const it of value) {
            if (format === "geojsonl") parts.push(`${it.feature}\n`);
            else {
              parts.push(first ? pieceOf(format, it) : `,${pieceOf(format, it)}`);
              first = false;
            }
          }
          text += parts.join("");
          if (text) controller.enqueue(encoder.encode(text));
        } catch (e) {
          finish();
          controller.error(e);
        }
      },
      async cancel() {
        try {
          await source.return(undefined);
        } finally {
          finish();
        }
      },
    },
    { highWaterMark: 1 },
  );
  return new Response(stream, { status: 200, headers: headersFor(format, page) });
}
