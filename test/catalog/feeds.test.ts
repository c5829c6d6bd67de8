/**
 * FEATURE UNDER TEST: the feed endpoints of the catalog, end to end on real feeds imported by the
 * real pipeline: /feeds, /feeds/{key}, /feeds/{key}/feed_versions, /feed_versions,
 * /feed_versions/{key} (with its validation summary and reports), /agencies, /agencies/{key},
 * /agencies/{key}/routes, /operators, /operators/{key} and /onestop_id/{id}. Fields are checked
 * against the GTFS files (the tests' own reader), the manifest and the import options; filters
 * against brute-force answers; geometries contain every stop; no local path reaches a client.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { importFeed } from "../../pipeline/import.ts";
import { readManifest } from "../../pipeline/schema/manifest.ts";
import { serverConfigFrom } from "../../server/config.ts";
import { startServer, type RunningServer } from "../../server/main.ts";
import { gtfs, tempDir } from "../support/dataset.ts";
import { gtfsFeed } from "../support/gtfs-reader.ts";
import { allPages, parseLines } from "./harness.ts";

const BASE = "/api/v2/rest";
const CALTRAIN = "f-9q9-caltrain";
const LICENSE = { redistribution_allowed: "no", commercial_use_allowed: "yes" } as const;
let dataDir: string;
let server: RunningServer;
let old2017: string;
let caltrainSha: string;
const get = (path: string, headers: Record<string, string> = {}) => fetch(server.url + path, { headers, redirect: "manual" });
async function json(path: string): Promise<any> {
  const r = await get(path);
  if (r.status !== 200) throw new Error(`GET ${path}: ${r.status} ${await r.text()}`);
  return r.json();
}

beforeAll(async () => {
  dataDir = tempDir("interchange-feeds-");
  // caltrain: an older version (2017) replaced by the current one, validated, with a licence
  const a = await importFeed({ dataDir, source: gtfs("caltrain-2017"), feedId: CALTRAIN });
  old2017 = a.sha1!;
  const b = await importFeed({ dataDir, source: gtfs("caltrain"), feedId: CALTRAIN, license: LICENSE, validate: true });
  caltrainSha = b.sha1!;
  for (const f of ["bart", "wmata-rail"]) {
    const r = await importFeed({ dataDir, source: gtfs(f) });
    if (r.status === "rejected") throw new Error(`${f}: ${r.error?.message}`);
  }
  server = await startServer(serverConfigFrom({ data: dataDir, port: 0, host: "127.0.0.1", noAuth: true }), { log: { info() {}, warn() {}, error: (m, f) => console.error(m, f) } });
}, 240_000);
afterAll(() => server?.stop());

type Ring = [number, number][];
/** every point inside (or on) a convex GeoJSON geometry */
function containsAll(geometry: any, points: [number, number][]): boolean {
  if (geometry.type === "Point") return points.every(([x, y]) => x === geometry.coordinates[0] && y === geometry.coordinates[1]);
  expect(geometry.type).toBe("Polygon");
  const ring: Ring = geometry.coordinates[0];
  expect(ring[0]).toEqual(ring[ring.length - 1]!);
  return points.every(([x, y]) => {
    for (let i = 0; i + 1 < ring.length; i++) {
      const [ax, ay] = ring[i]!;
      const [bx, by] = ring[i + 1]!;
      if ((bx - ax) * (y - ay) - (by - ay) * (x - ax) < -1e-9) return false;
    }
    return true;
  });
}
const stopPoints = (name: string, filter: (stopId: string) => boolean = () => true): [number, number][] =>
  gtfsFeed(gtfs(name))
    .table("stops")
    .filter((s) => s.stop_lat && s.stop_lon && filter(s.stop_id!))
    .map((s) => [Number(s.stop_lon), Number(s.stop_lat)]);

describe("feeds", () => {
  test("every feed of the manifest, with its versions, active version, licence and no local path", async () => {
    const m = readManifest(dataDir);
    const r = await get(`${BASE}/feeds`);
    const text = await r.text();
    expect(r.status).toBe(200);
    expect(text).not.toContain("/shared/data");
    const body = JSON.parse(text);
    expect(body.feeds.map((f: any) => f.onestop_id)).toEqual([...m.feeds].sort((a, b) => a.id - b.id).map((f) => f.onestop_id));
    const caltrain = body.feeds.find((f: any) => f.onestop_id === CALTRAIN);
    expect(caltrain.spec).toBe("gtfs");
    expect(caltrain.feed_state.feed_version.sha1).toBe(caltrainSha);
    expect(caltrain.feed_versions.map((v: any) => v.sha1)).toEqual([caltrainSha, old2017]);
    expect(caltrain.license.redistribution_allowed).toBe("no");
    expect(caltrain.license.commercial_use_allowed).toBe("yes");
    expect(caltrain.license.share_alike_optional).toBe("unknown");
    expect(caltrain.urls.static_current).toBe(""); // imported from a file: no URL to show
    expect(containsAll(caltrain.feed_state.feed_version.geometry, stopPoints("caltrain"))).toBe(true);
  });

  test("by key (Onestop ID, any case, or id), in every format; 404 for an unknown key", async () => {
    const byOsid = await json(`${BASE}/feeds/${CALTRAIN.toUpperCase()}`);
    expect(byOsid.feeds).toHaveLength(1);
    const byId = await json(`${BASE}/feeds/${byOsid.feeds[0].id}`);
    expect(byId.feeds[0].onestop_id).toBe(CALTRAIN);
    const gj = await json(`${BASE}/feeds/${CALTRAIN}.geojson`);
    expect(gj.type).toBe("FeatureCollection");
    expect(gj.features[0].properties.onestop_id).toBe(CALTRAIN);
    expect(containsAll(gj.features[0].geometry, stopPoints("caltrain"))).toBe(true);
    const lines = parseLines(await (await get(`${BASE}/feeds.geojsonl`)).text());
    expect(lines).toHaveLength(3);
    const missing = await get(`${BASE}/feeds/f-nope`);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as any).error).toContain("f-nope");
  });

  test("filters: search, licence, spec, area, tags, url; pages", async () => {
    const ids = async (q: string) => (await json(`${BASE}/feeds?${q}`)).feeds.map((f: any) => f.onestop_id);
    expect(await ids("search=caltrain")).toEqual([CALTRAIN]);
    expect(await ids("license_redistribution_allowed=no")).toEqual([CALTRAIN]);
    expect((await ids("license_redistribution_allowed=exclude_no")).sort()).not.toContain(CALTRAIN);
    expect(await ids("spec=gtfs")).toHaveLength(3);
    expect(await ids("spec=GTFS_RT")).toEqual([]);
    expect(await ids("tag_key=unstable_url")).toEqual([]);
    // imported from files: no feed has a URL to show
    expect(await ids("url_type=static_current")).toEqual([]);
    // around Washington's Metro Center: only WMATA's feed has stops there
    const wmata = await ids("lat=38.8983&lon=-77.0281&radius=800");
    expect(wmata).toHaveLength(1);
    expect(wmata[0]).toContain("wmata");
    expect((await ids("bbox=-122.5,37.7,-122.3,37.8")).sort()).toEqual((await ids("search=9q9")).sort());
    const pages = await allPages({ json } as any, `${BASE}/feeds?limit=1`, "feeds");
    expect(pages.pages).toBe(3);
    expect(new Set(pages.rows.map((f: any) => f.id)).size).toBe(3);
    for (const [q, param] of [["tag_value=x", "tag_value"], ["spec=xml", "spec"], ["url_type=ftp", "url_type"], ["lat=1&lon=2", "radius"], ["limit=0", "limit"]]) {
      const r = await get(`${BASE}/feeds?${q}`);
      expect(r.status).toBe(400);
      expect(((await r.json()) as any).parameter).toBe(param);
    }
  });
});

describe("feed versions", () => {
  test("every version, active or not; fields from the GTFS files and the import", async () => {
    const m = readManifest(dataDir);
    const all = await allPages({ json } as any, `${BASE}/feed_versions?limit=2`, "feed_versions");
    expect(all.rows.map((v: any) => v.sha1).sort()).toEqual(m.versions.map((v) => v.sha1).sort());
    const v = (await json(`${BASE}/feed_versions/${caltrainSha}`)).feed_versions[0];
    const raw = gtfsFeed(gtfs("caltrain"));
    const files = Object.fromEntries(v.files.map((f: any) => [f.name, f.rows]));
    expect(files["stop_times.txt"]).toBe(raw.table("stop_times").length);
    expect(files["stops.txt"]).toBe(raw.table("stops").length);
    expect(v.feed_infos[0].feed_publisher_name).toBe(raw.table("feed_info")[0]!.feed_publisher_name);
    expect(v.feed.onestop_id).toBe(CALTRAIN);
    expect(v.active).toBe(true);
    expect(v.fetched_at).toBe(m.versions.find((x) => x.sha1 === caltrainSha)!.fetched_at);
    const dates = raw.table("calendar").flatMap((c) => [c.start_date!, c.end_date!]).concat(raw.table("calendar_dates").map((d) => d.date!));
    expect(v.earliest_calendar_date.replaceAll("-", "") >= dates.sort()[0]!).toBe(true);
    expect(containsAll(v.geometry, stopPoints("caltrain"))).toBe(true);
    const old = (await json(`${BASE}/feed_versions/${old2017}`)).feed_versions[0];
    expect(old.active).toBe(false);
    expect(old.validation).toBeNull();
  });

  test("filters: feed, sha1, fetched_before/after, covers dates, area", async () => {
    const m = readManifest(dataDir);
    const shas = async (q: string) => (await json(`${BASE}/feed_versions?${q}`)).feed_versions.map((v: any) => v.sha1).sort();
    expect(await shas(`feed_onestop_id=${CALTRAIN}`)).toEqual([caltrainSha, old2017].sort());
    expect(await shas(`sha1=${old2017.toUpperCase()}`)).toEqual([old2017]);
    const times = m.versions.map((v) => v.fetched_at).sort();
    const mid = times[1]!;
    expect(await shas(`fetched_after=${mid}`)).toEqual(m.versions.filter((v) => v.fetched_at > mid).map((v) => v.sha1).sort());
    expect(await shas(`fetched_before=${mid}`)).toEqual(m.versions.filter((v) => v.fetched_at < mid).map((v) => v.sha1).sort());
    // brute force over the versions' own calendar ranges
    const all = (await json(`${BASE}/feed_versions`)).feed_versions;
    const day = "2019-06-04";
    expect(await shas(`covers_start_date=${day}`)).toEqual(all.filter((v: any) => v.earliest_calendar_date <= day && v.latest_calendar_date >= day).map((v: any) => v.sha1).sort());
    const feedVersions = await json(`${BASE}/feeds/${CALTRAIN}/feed_versions`);
    expect(feedVersions.feed_versions.map((v: any) => v.sha1).sort()).toEqual([caltrainSha, old2017].sort());
    expect((await get(`${BASE}/feeds/f-nope/feed_versions`)).status).toBe(404);
    expect((await get(`${BASE}/feed_versions/${"0".repeat(40)}`)).status).toBe(404);
    expect((await get(`${BASE}/feed_versions?fetched_after=yesterday`)).status).toBe(400);
  });

  test("the validation summary, and the reports it links to without local paths", async () => {
    const v = (await json(`${BASE}/feed_versions/${caltrainSha}`)).feed_versions[0];
    expect(v.validation.report_json).toBe(`${BASE}/feed_versions/${caltrainSha}/validation.json`);
    const r = await get(v.validation.report_json);
    expect(r.status).toBe(200);
    const text = await r.text();
    expect(text).not.toContain("/shared/data");
    const report = JSON.parse(text);
    expect(report.summary.gtfsInput).toBe("caltrain.zip");
    let errors = 0;
    let warnings = 0;
    for (const n of report.notices) {
      if (n.severity === "ERROR") errors += n.totalNotices;
      if (n.severity === "WARNING") warnings += n.totalNotices;
      expect(v.validation.codes[n.code].total).toBe(n.totalNotices);
    }
    expect([v.validation.errors, v.validation.warnings]).toEqual([errors, warnings]);
    const html = await get(v.validation.report_html);
    expect(html.status).toBe(200);
    expect(html.headers.get("content-type")).toContain("text/html");
    expect(html.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect(await html.text()).not.toContain("/shared/data");
    const none = await get(`${BASE}/feed_versions/${old2017}/validation.json`);
    expect(none.status).toBe(404);
    expect(((await none.json()) as any).error).toContain("no validation report");
  });
});

describe("agencies and operators", () => {
  test("agencies of the active versions, fields from agency.txt, geometry and places", async () => {
    const body = await json(`${BASE}/agencies?limit=100`);
    const expected = ["caltrain", "bart", "wmata-rail"].flatMap((f) => gtfsFeed(gtfs(f)).table("agency"));
    expect(body.agencies.map((a: any) => a.agency_name).sort()).toEqual(expected.map((a) => a.agency_name).sort());
    for (const a of body.agencies) {
      const row = expected.find((e) => e.agency_name === a.agency_name)!;
      expect(a.agency_url).toBe(row.agency_url);
      expect(a.agency_timezone).toBe(row.agency_timezone);
      expect(a.agency_id).toBe(row.agency_id ?? "");
      expect(a.onestop_id).toMatch(/^o-/);
      expect(a.feed_version.sha1).toMatch(/^[0-9a-f]{40}$/);
      expect(a.operator.onestop_id).toBe(a.onestop_id);
    }
    const bart = body.agencies.find((a: any) => a.agency_id === "BART");
    const served = new Set(gtfsFeed(gtfs("bart")).table("stop_times").map((st) => st.stop_id!));
    expect(containsAll(bart.geometry, stopPoints("bart", (id) => served.has(id)))).toBe(true);
    expect(bart.places[0].adm1_name).toBe("California");
    // the 2017 Caltrain version's agency only with its sha1
    const old = await json(`${BASE}/agencies?feed_version_sha1=${old2017}`);
    expect(old.agencies).toHaveLength(1);
    expect(old.agencies[0].feed_version.sha1).toBe(old2017);
  });

  test("by key, with routes; /agencies/{key}/routes; filters", async () => {
    const bartFeed = (await json(`${BASE}/feeds?search=bayarea`)).feeds[0].onestop_id;
    const byFeedKey = await json(`${BASE}/agencies/${bartFeed}:BART?include_routes=true`);
    expect(byFeedKey.agencies).toHaveLength(1);
    const a = byFeedKey.agencies[0];
    const routes = gtfsFeed(gtfs("bart")).table("routes");
    expect(a.routes.map((r: any) => r.route_id).sort()).toEqual(routes.map((r) => r.route_id).sort());
    expect((await json(`${BASE}/agencies/${a.id}`)).agencies[0].agency_id).toBe("BART");
    expect((await json(`${BASE}/agencies/${a.onestop_id}`)).agencies[0].id).toBe(a.id);
    const viaPath = await allPages({ json } as any, `${BASE}/agencies/${a.id}/routes?limit=5`, "routes");
    const viaQuery = await allPages({ json } as any, `${BASE}/routes?agency_key=${a.id}&limit=5`, "routes");
    expect(viaPath.rows.map((r: any) => r.id)).toEqual(viaQuery.rows.map((r: any) => r.id));
    expect(viaPath.rows).toHaveLength(routes.length);
    expect((await get(`${BASE}/agencies/o-nope/routes`)).status).toBe(404);
    expect((await get(`${BASE}/agencies/o-nope`)).status).toBe(404);

    const names = async (q: string) => (await json(`${BASE}/agencies?${q}`)).agencies.map((x: any) => x.agency_id).sort();
    expect(await names("search=rapid")).toEqual(["BART"]);
    expect(await names("agency_id=BART")).toEqual(["BART"]);
    expect(await names("agency_name=bay%20area%20rapid%20transit")).toEqual(["BART"]);
    // 12th St Oakland City Center (BART): within 300 m only BART serves stops
    expect(await names("lat=37.8037&lon=-122.2715&radius=300")).toEqual(["BART"]);
    expect(await names("adm1_name=california")).toEqual(["BART", "CT"]);
    expect(await names("adm0_iso=US")).toHaveLength(3);
    expect(await names("license_redistribution_allowed=no")).toEqual(["CT"]);
    const city = await get(`${BASE}/agencies?city_name=Oakland`);
    expect(city.status).toBe(400);
    expect(((await city.json()) as any).parameter).toBe("city_name");
    const gj = await json(`${BASE}/agencies.geojson?agency_id=BART`);
    expect(gj.features[0].geometry.type).toBe("Polygon");
  });

  test("operators: one per agency Onestop ID, with feeds and agencies; by key", async () => {
    const agencies = (await json(`${BASE}/agencies?limit=100`)).agencies;
    const ops = await json(`${BASE}/operators?limit=100`);
    expect(ops.operators.map((o: any) => o.onestop_id).sort()).toEqual([...new Set(agencies.map((a: any) => a.onestop_id))].sort());
    const ct = ops.operators.find((o: any) => o.name === "Caltrain");
    expect(ct.feeds.map((f: any) => f.onestop_id)).toEqual([CALTRAIN]);
    expect(ct.agencies.map((a: any) => a.agency_id)).toEqual(["CT"]);
    expect((await json(`${BASE}/operators/${ct.onestop_id}`)).operators[0].id).toBe(ct.id);
    expect((await json(`${BASE}/operators/${ct.id}`)).operators[0].onestop_id).toBe(ct.onestop_id);
    expect((await json(`${BASE}/operators?feed_onestop_id=${CALTRAIN}`)).operators.map((o: any) => o.id)).toEqual([ct.id]);
    expect((await json(`${BASE}/operators?search=caltr`)).operators.map((o: any) => o.id)).toEqual([ct.id]);
    expect((await json(`${BASE}/operators?tag_key=x`)).operators).toEqual([]);
    expect((await get(`${BASE}/operators/o-nope`)).status).toBe(404);
  });

  test("/onestop_id/{id} redirects to the entity (f-, o-, s-, r-), 404 otherwise, never echoing the key", async () => {
    const stop = (await json(`${BASE}/stops?feed_onestop_id=${CALTRAIN}&limit=1`)).stops[0];
    const route = (await json(`${BASE}/routes?feed_onestop_id=${CALTRAIN}&limit=1`)).routes[0];
    const op = (await json(`${BASE}/operators?limit=1`)).operators[0];
    for (const [id, kind] of [[CALTRAIN, "feeds"], [op.onestop_id, "operators"], [stop.onestop_id, "stops"], [route.onestop_id, "routes"]]) {
      const r = await get(`${BASE}/onestop_id/${encodeURIComponent(id)}?apikey=secret-key&format=x`);
      expect(r.status).toBe(302);
      const location = r.headers.get("location")!;
      expect(location.startsWith(`${BASE}/${kind}/`)).toBe(true);
      expect(location).not.toContain("secret-key");
      const followed = await json(location.replace(/\?.*$/, ""));
      expect(followed[kind].length).toBeGreaterThan(0);
    }
    for (const id of ["s-nope", "x-abc", "f-nope"]) {
      const r = await get(`${BASE}/onestop_id/${id}`);
      expect(r.status).toBe(404);
      expect(((await r.json()) as any).error).toContain(id);
    }
  });

  test("the OpenAPI description lists every feed endpoint", async () => {
    const doc = await json("/docs/json");
    for (const p of ["/feeds", "/feeds/{feed_key}", "/feeds.{format}", "/feed_versions", "/feed_versions/{feed_version_key}", "/feed_versions/{feed_version_key}/validation.json", "/agencies", "/agencies/{agency_key}/routes", "/operators/{operator_key}", "/onestop_id/{onestop_id}"]) {
      expect(Object.keys(doc.paths)).toContain(`${BASE}${p}`);
    }
  });

  test("a browser may send the downloads' conditional and range headers (CORS preflight)", async () => {
    const r = await fetch(`${server.url}${BASE}/feed_versions/${caltrainSha}/download`, {
      method: "OPTIONS",
      headers: { origin: "https://app.example", "access-control-request-method": "GET", "access-control-request-headers": "range, if-none-match" },
    });
    expect(r.status).toBe(204);
    const allowed = r.headers.get("access-control-allow-headers")!.split(",").map((h) => h.trim());
    for (const h of ["range", "if-none-match", "if-range", "apikey"]) expect(allowed).toContain(h);
  });
});
