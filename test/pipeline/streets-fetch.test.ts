/**
 * FEATURE UNDER TEST: a street import's URLs (pipeline/street/import-streets.ts over
 * pipeline/import/download.ts downloadToFile): conditional requests with the validators of the
 * answer whose bytes built a listed street dataset (a 304 for every URL is "unchanged" without
 * downloading anything), the bytes of a URL that answered 304 fetched after all when the dataset
 * wanted is a new one, retries with back-off, and the validators kept only once the dataset is
 * listed. A local HTTP server serves the shared Monaco extract and its elevation tile.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { gunzipSync, gzipSync } from "node:zlib";
import { importStreets } from "../../pipeline/street/import-streets.ts";
import { readSourceState } from "../../pipeline/store/sources.ts";
import { readManifest } from "../../pipeline/schema/manifest.ts";
import { elevationFile, osm, tempDir } from "../support/dataset.ts";

interface Served {
  body: Uint8Array;
  etag: string;
  /** answers with this status this many times first */
  failFirst: number;
  failStatus: number;
}
/** what the server was asked: path, the If-None-Match sent, the status answered */
const log: { path: string; ifNoneMatch: string | null; status: number }[] = [];
const files = new Map<string, Served>();
let server: ReturnType<typeof Bun.serve>;
const url = (path: string) => `http://127.0.0.1:${server.port}${path}`;

beforeAll(() => {
  files.set("/monaco.osm.pbf", { body: new Uint8Array(readFileSync(osm("monaco"))), etag: '"osm-1"', failFirst: 0, failStatus: 503 });
  files.set("/N43E007.hgt.gz", { body: new Uint8Array(readFileSync(elevationFile("N43E007.hgt.gz"))), etag: '"dem-1"', failFirst: 0, failStatus: 503 });
  server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(req) {
      const path = new URL(req.url).pathname;
      const f = files.get(path);
      const inm = req.headers.get("if-none-match");
      const answer = (status: number, body: Uint8Array | null = null) => {
        log.push({ path, ifNoneMatch: inm, status });
        return new Response(body, { status, headers: f ? { etag: f.etag } : {} });
      };
      if (!f) return answer(404);
      if (f.failFirst > 0) {
        f.failFirst--;
        return answer(f.failStatus);
      }
      if (inm === f.etag) return answer(304);
      return answer(200, f.body);
    },
  });
});
afterAll(() => server?.stop(true));

const fast = { retries: 2, backoffMs: 10 };

describe("street import from URLs", () => {
  const data = tempDir("interchange-streets-fetch-");
  let first: string;

  test("the first import downloads both URLs and keeps their validators once the dataset is listed", async () => {
    log.length = 0;
    const r = await importStreets({ dataDir: data, osm: [url("/monaco.osm.pbf")], elevation: [url("/N43E007.hgt.gz")], fetch: fast });
    expect(r.status).toBe("imported");
    first = r.sha1!;
    expect(log).toEqual([
      { path: "/monaco.osm.pbf", ifNoneMatch: null, status: 200 },
      { path: "/N43E007.hgt.gz", ifNoneMatch: null, status: 200 },
    ]);
    const entry = readManifest(data).streets!.find((s) => s.sha1 === first)!;
    expect(entry.osm[0]!.source).toBe(url("/monaco.osm.pbf"));
    expect(readSourceState(data, url("/monaco.osm.pbf"))).toMatchObject({ etag: '"osm-1"', sha1: entry.osm[0]!.sha1 });
    expect(readSourceState(data, url("/N43E007.hgt.gz"))).toMatchObject({ etag: '"dem-1"', sha1: entry.elevation[0]!.sha1 });
  });

  test("again: both URLs asked conditionally, both 304, unchanged without a byte downloaded", async () => {
    log.length = 0;
    const r = await importStreets({ dataDir: data, osm: [url("/monaco.osm.pbf")], elevation: [url("/N43E007.hgt.gz")], fetch: fast });
    expect([r.status, r.sha1]).toEqual(["unchanged", first]);
    expect(log).toEqual([
      { path: "/monaco.osm.pbf", ifNoneMatch: '"osm-1"', status: 304 },
      { path: "/N43E007.hgt.gz", ifNoneMatch: '"dem-1"', status: 304 },
    ]);
  });

  test("new elevation bytes: the extract answers 304, then is downloaded after all for the new dataset", async () => {
    const dem = files.get("/N43E007.hgt.gz")!;
    // the same tile, compressed otherwise: other bytes, another SHA-1
    dem.body = new Uint8Array(gzipSync(gunzipSync(dem.body), { level: 1 }));
    dem.etag = '"dem-2"';
    log.length = 0;
    const r = await importStreets({ dataDir: data, osm: [url("/monaco.osm.pbf")], elevation: [url("/N43E007.hgt.gz")], fetch: fast });
    expect(r.status).toBe("imported");
    expect(r.sha1).not.toBe(first);
    expect(log).toEqual([
      { path: "/monaco.osm.pbf", ifNoneMatch: '"osm-1"', status: 304 },
      { path: "/N43E007.hgt.gz", ifNoneMatch: '"dem-1"', status: 200 },
      { path: "/monaco.osm.pbf", ifNoneMatch: null, status: 200 },
    ]);
    expect(readSourceState(data, url("/N43E007.hgt.gz"))).toMatchObject({ etag: '"dem-2"' });
    expect(readManifest(data).active_streets).toBe(r.sha1!);
  });

  test("a URL that fails twice with 503 is retried with back-off; one that answers 404 is not retried and refuses the import", async () => {
    const f = files.get("/monaco.osm.pbf")!;
    f.failFirst = 2;
    f.etag = '"osm-2"'; // a new ETag for the same bytes: downloaded, the dataset found
    log.length = 0;
    const r = await importStreets({ dataDir: data, osm: [url("/monaco.osm.pbf")], elevation: [url("/N43E007.hgt.gz")], fetch: fast });
    expect(r.status).toBe("unchanged");
    expect(log.filter((l) => l.path === "/monaco.osm.pbf").map((l) => l.status)).toEqual([503, 503, 200]);
    expect(readSourceState(data, url("/monaco.osm.pbf"))).toMatchObject({ etag: '"osm-2"' });
    log.length = 0;
    const missing = await importStreets({ dataDir: data, osm: [url("/nope.osm.pbf")], fetch: fast });
    expect(missing.status).toBe("rejected");
    expect(missing.error!.message).toContain("HTTP 404");
    expect(log).toEqual([{ path: "/nope.osm.pbf", ifNoneMatch: null, status: 404 }]);
  });
});
