/**
 * FEATURE UNDER TEST: GET /api/v2/rest/routes[.format] and /routes/{route_key}[.format] end to end
 * on real feeds: every field against routes.txt, agency.txt, trips.txt, stop_times.txt and
 * shapes.txt read by the tests' own GTFS reader (test/support/raw-gtfs.ts), the filters (each
 * checked against a brute-force answer from the GTFS files), pagination, formats, keys, active and
 * inactive versions, licences, alerts, and 400s naming the parameter.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { importFeed } from "../../pipeline/import.ts";
import { readManifest } from "../../pipeline/schema/manifest.ts";
import { startServer, type RunningServer } from "../../server/main.ts";
import { serverConfigFrom } from "../../server/config.ts";
import { gtfs, tempDir } from "../support/dataset.ts";
import { gtfsFeed, type GtfsFeed } from "../support/gtfs-reader.ts";
import type { Row } from "../support/raw-gtfs.ts";
import { alertEntity, Clock, datasetCopy, encodeFeed, feedIdOf, ingester, rtServer, type RtServer, tr } from "../realtime/support.ts";
import { allPages, catalogServer, MAIN_FEEDS, parseLines, type TestServer } from "./harness.ts";

let s: TestServer;
beforeAll(async () => {
  s = await catalogServer();
}, 120_000);
afterAll(() => s?.stop());

const ROUTES = "/api/v2/rest/routes";
const nz = (v: string | undefined) => (v === undefined || v === "" ? null : v);
const int = (v: string | undefined) => (v === undefined || v === "" ? null : Number(v));

/** What the GTFS files say a route is: its fields, agency, served stops and most used shapes. */
interface Expected {
  feed: string;
  route: Row;
  agency: Row;
  stops: string[];
  /** shape_ids by the number of the route's trips using them (then shape_id), at most 8; null when a trip has no shape_id */
  shapes: string[] | null;
}

const expectedCache = new Map<string, Expected[]>();
function expectedRoutes(name: string): Expected[] {
  let e = expectedCache.get(name);
  if (!e) expectedCache.set(name, (e = readExpectedRoutes(name)));
  return e;
}

function readExpectedRoutes(name: string): Expected[] {
  const f = gtfsFeed(gtfs(name));
  const agencies = f.table("agency");
  const tripsOf = new Map<string, Row[]>();
  for (const t of f.table("trips")) (tripsOf.get(t.route_id!) ?? tripsOf.set(t.route_id!, []).get(t.route_id!)!).push(t);
  const stopsOfTrip = new Map<string, Set<string>>();
  for (const st of f.table("stop_times")) {
    if (!st.stop_id) continue;
    (stopsOfTrip.get(st.trip_id!) ?? stopsOfTrip.set(st.trip_id!, new Set()).get(st.trip_id!)!).add(st.stop_id);
  }
  return f.table("routes").map((route) => {
    const trips = tripsOf.get(route.route_id!) ?? [];
    const stops = new Set<string>();
    for (const t of trips) for (const id of stopsOfTrip.get(t.trip_id!) ?? []) stops.add(id);
    let shapes: string[] | null = null;
    if (trips.every((t) => nz(t.shape_id) !== null)) {
      const uses = new Map<string, number>();
      for (const t of trips) uses.set(t.shape_id!, (uses.get(t.shape_id!) ?? 0) + 1);
      shapes = [...uses].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, 8).map(([id]) => id);
    }
    const agency = agencies.length === 1 && !nz(route.agency_id) ? agencies[0]! : agencies.find((a) => (a.agency_id ?? "") === (route.agency_id ?? ""))!;
    return { feed: s.feedId(name), route, agency, stops: [...stops].sort(), shapes };
  });
}

/** shapes.txt points of a shape, in sequence, as [lon, lat] */
function shapePoints(f: GtfsFeed, shapeId: string): number[][] {
  return f
    .table("shapes")
    .filter((p) => p.shape_id === shapeId)
    .sort((a, b) => Number(a.shape_pt_sequence) - Number(b.shape_pt_sequence))
    .map((p) => [Number(p.shape_pt_lon), Number(p.shape_pt_lat)]);
}

const key = (r: any) => `${r.feed_version.feed.onestop_id}:${r.route_id}`;

describe("every route of the active versions, every field against the GTFS files", () => {
  let all: any[];
  beforeAll(async () => {
    all = (await allPages(s, `${ROUTES}?limit=7&include_geometry=true`, "routes")).rows;
  });

  test("one document per routes.txt row of each feed, in id order, no duplicates", () => {
    const expected = MAIN_FEEDS.flatMap((n) => expectedRoutes(n).map((e) => `${e.feed}:${e.route.route_id}`)).sort();
    expect(all.map(key).sort()).toEqual(expected);
    const ids = all.map((r) => r.id);
    expect(ids).toEqual([...new Set(ids)].sort((a, b) => a - b));
  });

  for (const name of MAIN_FEEDS) {
    test(`${name}: route fields, agency, feed version, route_stops`, () => {
      const sha1 = readManifest(s.dataDir).feeds.find((f) => f.onestop_id === s.feedId(name))!.active;
      for (const e of expectedRoutes(name)) {
        const got = all.find((r) => key(r) === `${e.feed}:${e.route.route_id}`);
        const r = e.route;
        expect({
          route_id: got.route_id, route_short_name: got.route_short_name, route_long_name: got.route_long_name, route_desc: got.route_desc,
          route_type: got.route_type, route_url: got.route_url, route_color: got.route_color, route_text_color: got.route_text_color,
          route_sort_order: got.route_sort_order, continuous_pickup: got.continuous_pickup, continuous_drop_off: got.continuous_drop_off, network_id: got.network_id,
        }).toEqual({
          route_id: r.route_id, route_short_name: nz(r.route_short_name), route_long_name: nz(r.route_long_name), route_desc: nz(r.route_desc),
          route_type: Number(r.route_type), route_url: nz(r.route_url), route_color: nz(r.route_color)?.toUpperCase() ?? null, route_text_color: nz(r.route_text_color)?.toUpperCase() ?? null,
          route_sort_order: int(r.route_sort_order), continuous_pickup: int(r.continuous_pickup), continuous_drop_off: int(r.continuous_drop_off), network_id: nz(r.network_id),
        });
        expect(got.onestop_id).toStartWith("r-");
        expect(got.alerts).toEqual([]);
        expect(got.agency).toMatchObject({ agency_id: e.agency.agency_id ?? "", agency_name: e.agency.agency_name, alerts: [] });
        expect(got.agency.onestop_id).toStartWith("o-");
        expect(got.feed_version).toMatchObject({ sha1, feed: { onestop_id: e.feed } });
        expect(got.route_stops.map((x: any) => x.stop.stop_id).sort()).toEqual(e.stops);
        for (const x of got.route_stops) expect(Object.keys(x.stop)).toEqual(["id", "stop_id", "stop_name", "geometry"]);
      }
    });
  }

  test("geometry: the route's most used shapes (up to 8, most used first), each as shapes.txt draws it", () => {
    let exact = 0;
    for (const name of MAIN_FEEDS) {
      const f = gtfsFeed(gtfs(name));
      for (const e of expectedRoutes(name)) {
        const got = all.find((r) => key(r) === `${e.feed}:${e.route.route_id}`);
        if (!got.geometry) {
          expect(e.stops.length === 0 || e.shapes?.length === 0).toBe(true);
          continue;
        }
        expect(got.geometry.type).toBe("MultiLineString");
        expect(got.geometry.coordinates.length).toBeLessThanOrEqual(8);
        if (e.shapes && e.shapes.every((id) => shapePoints(f, id).length >= 2)) {
          expect(got.geometry.coordinates).toEqual(e.shapes.map((id) => shapePoints(f, id)));
          exact++;
        }
      }
    }
    expect(exact).toBeGreaterThan(20);
  });

  test("include_geometry=false (the default) leaves geometry out of json, and route_stops' stops without theirs; include_stops=false leaves route_stops out", async () => {
    const { routes } = await s.json(`${ROUTES}?limit=3`);
    for (const r of routes) {
      expect("geometry" in r).toBe(false);
      for (const x of r.route_stops) expect(Object.keys(x.stop)).toEqual(["id", "stop_id", "stop_name"]);
    }
    const lean = (await s.json(`${ROUTES}?limit=3&include_stops=false`)).routes;
    expect(lean.map((r: any) => r.id)).toEqual(routes.map((r: any) => r.id));
    for (const r of lean) expect("route_stops" in r).toBe(false);
  });
});

describe("pagination and formats", () => {
  test("following meta.next visits every route once, whatever the page size; the last page has no meta", async () => {
    const whole = (await s.json(`${ROUTES}?limit=1000`)).routes.map((r: any) => r.id);
    for (const limit of [1, 5, 13]) {
      const { rows, pages } = await allPages(s, `${ROUTES}?limit=${limit}&include_stops=false`, "routes");
      expect(rows.map((r: any) => r.id)).toEqual(whole);
      expect(pages).toBe(Math.ceil(whole.length / limit));
    }
    const first = await s.json(`${ROUTES}?limit=5&feed_onestop_id=${s.feedId("bart")}`);
    expect(first.meta.after).toBe(first.routes[4].id);
    expect(first.meta.next).toContain(`after=${first.routes[4].id}`);
    expect(first.meta.next).toContain(`feed_onestop_id=${s.feedId("bart")}`);
    const last = await s.json(first.meta.next);
    expect(last.meta).toBeUndefined();
  });

  test("geojson: a FeatureCollection of MultiLineStrings with every other field in properties, paged like json", async () => {
    const json = (await allPages(s, `${ROUTES}?limit=4&include_geometry=true`, "routes")).rows;
    const features: any[] = [];
    let next: string | null = `${ROUTES}.geojson?limit=4`;
    while (next) {
      const body: any = await s.json(next);
      expect(body.type).toBe("FeatureCollection");
      features.push(...body.features);
      next = body.meta?.next ?? null;
    }
    expect(features.map((f) => f.properties.id)).toEqual(json.map((r) => r.id));
    features.forEach((f, i) => {
      const { geometry, ...props } = json[i];
      expect(f.type).toBe("Feature");
      expect(f.geometry).toEqual(geometry);
      expect(f.properties).toEqual(props);
    });
  });

  test("geojsonl without a limit streams every route; with one it pages through the Link header", async () => {
    const count = (await s.json(`${ROUTES}?limit=1000`)).routes.length;
    const r = await s.get(`${ROUTES}.geojsonl`);
    expect(r.headers.get("content-type")).toContain("application/x-ndjson");
    const lines = parseLines(await r.text());
    expect(lines.length).toBe(count);
    expect(lines.every((f) => f.type === "Feature" && "route_id" in f.properties)).toBe(true);
    const paged = await s.get(`${ROUTES}.geojsonl?limit=2`);
    expect(parseLines(await paged.text())).toHaveLength(2);
    expect(paged.headers.get("link")).toMatch(/after=\d+.*rel="next"/);
  });

  test("an unknown format is a 400 naming format", async () => {
    for (const p of [`${ROUTES}.xml`, `${ROUTES}/${encodeURIComponent(`${s.feedId("bart")}:1`)}.xml`]) {
      const r = await s.get(p);
      expect(r.status).toBe(400);
      expect(((await r.json()) as any).parameter).toBe("format");
    }
  });
});

describe("a route by key", () => {
  test("integer id, feed:route_id and Onestop ID name the same route, with its geometry; .geojson is a one-Feature collection", async () => {
    const [yellow] = (await s.json(`${ROUTES}?route_id=1&feed_onestop_id=${s.feedId("bart")}&include_geometry=true`)).routes;
    for (const k of [String(yellow.id), `${s.feedId("bart")}:1`, yellow.onestop_id]) {
      const { routes } = await s.json(`${ROUTES}/${encodeURIComponent(k)}`);
      expect(routes).toEqual([yellow]);
    }
    const fc = await s.json(`${ROUTES}/${yellow.id}.geojson`);
    expect(fc.features).toHaveLength(1);
    expect(fc.features[0].geometry).toEqual(yellow.geometry);
    expect(fc.meta).toBeUndefined();
  });

  test("an unknown key is a 404; a key the filters exclude too", async () => {
    for (const p of [`${ROUTES}/999999`, `${ROUTES}/${encodeURIComponent(`${s.feedId("bart")}:nope`)}`, `${ROUTES}/r-nope-nope`, `${ROUTES}/1?license_commercial_use_allowed=yes`]) {
      const r = await s.get(p);
      expect({ p, status: r.status }).toEqual({ p, status: 404 });
      expect(typeof ((await r.json()) as any).error).toBe("string");
    }
  });
});

describe("filters, each against a brute-force answer from the GTFS files", () => {
  const all = () => MAIN_FEEDS.flatMap((n) => expectedRoutes(n));
  const keys = (es: Expected[]) => es.map((e) => `${e.feed}:${e.route.route_id}`).sort();
  const listed = async (query: string) => (await allPages(s, `${ROUTES}?limit=1000&include_stops=false&${query}`, "routes")).rows.map(key).sort();

  test("feed_onestop_id, route_id, route_type, route_types, onestop_id, id", async () => {
    const bart = s.feedId("bart");
    expect(await listed(`feed_onestop_id=${bart}`)).toEqual(keys(all().filter((e) => e.feed === bart)));
    expect(await listed(`feed_onestop_id=${bart.toUpperCase()}`)).toEqual(keys(all().filter((e) => e.feed === bart)));
    expect(await listed("route_id=1")).toEqual(keys(all().filter((e) => e.route.route_id === "1")));
    expect(await listed("route_type=3")).toEqual(keys(all().filter((e) => e.route.route_type === "3")));
    expect(await listed("route_types=0,2")).toEqual(keys(all().filter((e) => ["0", "2"].includes(e.route.route_type!))));
    const [one] = (await s.json(`${ROUTES}?limit=1&feed_onestop_id=${s.feedId("caltrain")}`)).routes;
    expect(await listed(`onestop_id=${one.onestop_id}`)).toContain(key(one));
    expect(await listed(`id=${one.id}`)).toEqual([key(one)]);
    expect(await listed(`route_key=${encodeURIComponent(key(one))}`)).toEqual([key(one)]);
    expect(await listed("route_id=no-such-route")).toEqual([]);
  });

  test("search: case-insensitive in the short and long names; one character is ignored", async () => {
    const hit = (e: Expected, q: string) => [e.route.route_short_name, e.route.route_long_name].some((n) => (n ?? "").toLowerCase().includes(q));
    for (const q of ["millbrae", "LOCAL", "Line", "ll"]) expect(await listed(`search=${q}`)).toEqual(keys(all().filter((e) => hit(e, q.toLowerCase()))));
    expect(await listed("search=x")).toEqual(keys(all()));
  });

  test("agency_key (id, feed:agency_id, Onestop ID) and operator_onestop_id", async () => {
    const [ct] = (await s.json(`${ROUTES}?limit=1&feed_onestop_id=${s.feedId("caltrain")}`)).routes;
    const expected = keys(all().filter((e) => e.feed === s.feedId("caltrain")));
    for (const k of [String(ct.agency.id), `${s.feedId("caltrain")}:${ct.agency.agency_id}`, ct.agency.onestop_id]) expect(await listed(`agency_key=${encodeURIComponent(k)}`)).toEqual(expected);
    expect(await listed(`operator_onestop_id=${ct.agency.onestop_id}`)).toEqual(expected);
    expect(await listed("agency_key=o-nope-nope")).toEqual([]);
  });

  test("stop_key: the routes serving a stop, a station through its platforms", async () => {
    const serving = (feed: string, stopIds: string[]) => keys(all().filter((e) => e.feed === feed && e.stops.some((x) => stopIds.includes(x))));
    const bart = s.feedId("bart");
    expect(await listed(`stop_key=${encodeURIComponent(`${bart}:EMBR`)}`)).toEqual(serving(bart, ["EMBR"]));
    const ct = s.feedId("caltrain");
    const platforms = gtfsFeed(gtfs("caltrain")).table("stops").filter((x) => x.parent_station === "san_francisco").map((x) => x.stop_id!);
    expect(platforms.length).toBeGreaterThan(0);
    const viaStation = await listed(`stop_key=${encodeURIComponent(`${ct}:san_francisco`)}`);
    expect(viaStation).toEqual(serving(ct, platforms));
    expect(viaStation.length).toBeGreaterThan(0);
    const [embr] = (await s.json(`/api/v2/rest/stops?stop_id=EMBR&feed_onestop_id=${bart}`)).stops;
    expect(await listed(`stop_key=${embr.id}`)).toEqual(serving(bart, ["EMBR"]));
    expect(await listed(`stop_key=${embr.onestop_id}`)).toEqual(serving(bart, ["EMBR"]));
    expect(await listed(`stop_key=${encodeURIComponent(`${bart}:NOPE`)}`)).toEqual([]);
  });

  test("bbox and lat/lon/radius: the routes serving a stop in the area (the stops' coordinates from stops.txt)", async () => {
    const coords = new Map<string, [number, number]>();
    for (const n of MAIN_FEEDS) for (const x of gtfsFeed(gtfs(n)).table("stops")) if (x.stop_lat && x.stop_lon) coords.set(`${s.feedId(n)}\u0000${x.stop_id}`, [Number(x.stop_lon), Number(x.stop_lat)]);
    const inArea = (pred: (lon: number, lat: number) => boolean) =>
      keys(all().filter((e) => e.stops.some((id) => {
        const c = coords.get(`${e.feed}\u0000${id}`);
        return c !== undefined && pred(c[0], c[1]);
      })));
    const boxes = [[-122.41, 37.77, -122.38, 37.8], [-122.7, 45.5, -122.6, 45.55], [-77.1, 38.85, -77.0, 38.92], [-117.2, 36.85, -116.7, 36.95]];
    let nonEmpty = 0;
    for (const [w, so, e, n] of boxes) {
      const expected = inArea((lon, lat) => lon >= w! && lon <= e! && lat >= so! && lat <= n!);
      expect(await listed(`bbox=${w},${so},${e},${n}`)).toEqual(expected);
      if (expected.length) nonEmpty++;
    }
    expect(nonEmpty).toBeGreaterThanOrEqual(3);
    const hav = (lat1: number, lon1: number, lat2: number, lon2: number) => {
      const r = (x: number) => (x * Math.PI) / 180;
      const a = Math.sin(r(lat2 - lat1) / 2) ** 2 + Math.cos(r(lat1)) * Math.cos(r(lat2)) * Math.sin(r(lon2 - lon1) / 2) ** 2;
      return 2 * 6_371_008.8 * Math.asin(Math.min(1, Math.sqrt(a)));
    };
    for (const [lat, lon, radius] of [[37.7929, -122.3971, 400], [37.7766, -122.3947, 250], [38.9, -77.03, 2000]] as const) {
      const expected = inArea((x, y) => hav(lat, lon, y, x) <= radius);
      expect(expected.length).toBeGreaterThan(0);
      expect(await listed(`lat=${lat}&lon=${lon}&radius=${radius}`)).toEqual(expected);
    }
  });

  test("licence filters: every feed is 'unknown', so exclude_no and unknown keep them and yes/no drop them", async () => {
    const every = await listed("");
    expect(await listed("license_commercial_use_allowed=exclude_no")).toEqual(every);
    expect(await listed("license_redistribution_allowed=unknown")).toEqual(every);
    expect(await listed("license_create_derived_product=yes")).toEqual([]);
    expect(await listed("license_use_without_attribution=no")).toEqual([]);
  });

  test("filters combine (AND)", async () => {
    const bart = s.feedId("bart");
    expect(await listed(`feed_onestop_id=${bart}&stop_key=${encodeURIComponent(`${bart}:EMBR`)}&search=millbrae`)).toEqual(
      keys(all().filter((e) => e.feed === bart && e.stops.includes("EMBR") && (e.route.route_long_name ?? "").toLowerCase().includes("millbrae"))),
    );
  });
});

describe("400 for bad parameters, naming the parameter", () => {
  const cases: [string, string][] = [
    ["route_type=bus", "route_type"],
    ["route_types=1,x", "route_types"],
    ["bbox=1,2,3", "bbox"],
    ["lat=37.7&lon=-122.4", "radius"],
    ["lat=37.7", "lon"],
    ["lat=37.7&lon=-122.4&radius=20000", "radius"],
    ["limit=0", "limit"],
    ["after=-2", "after"],
    ["id=0", "id"],
    ["include_geometry=maybe", "include_geometry"],
    ["include_stops=1", "include_stops"],
    ["include_alerts=yes", "include_alerts"],
    ["license_share_alike_optional=perhaps", "license_share_alike_optional"],
    ["feed_version_sha1=abc", "feed_version_sha1"],
  ];
  for (const [query, parameter] of cases) {
    test(`routes?${query} → ${parameter}`, async () => {
      const r = await s.get(`${ROUTES}?${query}`);
      const body: any = await r.json();
      expect({ status: r.status, parameter: body.parameter }).toEqual({ status: 400, parameter });
      expect(typeof body.error).toBe("string");
      expect(typeof body.allowed).toBe("string");
    });
  }
});

describe("active and inactive versions, licences from the manifest", () => {
  let dir: string;
  let server: RunningServer;
  let oldSha: string;
  let newSha: string;
  const get = async (path: string) => (await fetch(server.url + path)).json() as Promise<any>;
  beforeAll(async () => {
    dir = tempDir("interchange-routes-versions-");
    const a = await importFeed({ dataDir: dir, source: gtfs("bart"), feedId: "f-9q9-bart" });
    const b = await importFeed({ dataDir: dir, source: gtfs("bart-2023"), feedId: "f-9q9-bart" });
    const c = await importFeed({ dataDir: dir, source: gtfs("caltrain"), feedId: "f-9q9-caltrain", license: { commercial_use_allowed: "no", redistribution_allowed: "yes" } });
    for (const r of [a, b, c]) expect(r.status).not.toBe("rejected");
    const m = readManifest(dir);
    oldSha = m.versions.find((v) => v.source === gtfs("bart"))!.sha1;
    newSha = m.feeds.find((f) => f.onestop_id === "f-9q9-bart")!.active!;
    server = await startServer(serverConfigFrom({ data: dir, port: 0, host: "127.0.0.1", noAuth: true }), { log: { info() {}, warn() {}, error() {} } });
  }, 180_000);
  afterAll(() => server?.stop());

  test("lists show the active version; feed_version_sha1 reaches the inactive one; an integer key reaches any version", async () => {
    const active = (await get(`${ROUTES}?limit=1000&feed_onestop_id=f-9q9-bart`)).routes;
    expect(active.length).toBe(gtfsFeed(gtfs("bart-2023")).table("routes").length);
    expect(new Set(active.map((r: any) => r.feed_version.sha1))).toEqual(new Set([newSha]));
    const old = (await get(`${ROUTES}?limit=1000&feed_version_sha1=${oldSha}`)).routes;
    expect(old.map((r: any) => r.route_id).sort()).toEqual(gtfsFeed(gtfs("bart")).table("routes").map((r) => r.route_id).sort());
    expect(new Set(old.map((r: any) => r.feed_version.sha1))).toEqual(new Set([oldSha]));
    // by key: feed:route_id is the active version's, the old row's integer id still answers
    expect((await get(`${ROUTES}/f-9q9-bart:1`)).routes[0].feed_version.sha1).toBe(newSha);
    expect((await get(`${ROUTES}/${old[0].id}`)).routes[0].feed_version.sha1).toBe(oldSha);
    expect((await get(`${ROUTES}?id=${old[0].id}`)).routes.map((r: any) => r.id)).toEqual([old[0].id]);
    expect((await get(`${ROUTES}/f-9q9-bart:1?feed_version_sha1=${oldSha}`)).routes[0].feed_version.sha1).toBe(oldSha);
  });

  test("licence filters against the manifest's licences (Caltrain: commercial use no, redistribution yes; BART unknown)", async () => {
    const feeds = async (q: string) => [...new Set((await get(`${ROUTES}?limit=1000&${q}`)).routes.map((r: any) => r.feed_version.feed.onestop_id))].sort();
    expect(await feeds("")).toEqual(["f-9q9-bart", "f-9q9-caltrain"]);
    expect(await feeds("license_commercial_use_allowed=no")).toEqual(["f-9q9-caltrain"]);
    expect(await feeds("license_commercial_use_allowed=exclude_no")).toEqual(["f-9q9-bart"]);
    expect(await feeds("license_redistribution_allowed=yes")).toEqual(["f-9q9-caltrain"]);
    expect(await feeds("license_redistribution_allowed=unknown")).toEqual(["f-9q9-bart"]);
    const r = await fetch(`${server.url}${ROUTES}/f-9q9-caltrain:L1?license_commercial_use_allowed=exclude_no`);
    expect(r.status).toBe(404);
  });
});

describe("alerts (include_alerts, active_alerts) from a realtime alerts snapshot", () => {
  let rt: RtServer;
  let bart: string;
  const NOW = 1_700_000_000;
  beforeAll(async () => {
    const data = await datasetCopy("routes-alerts", ["bart"]);
    bart = feedIdOf(data, "bart");
    const ing = await ingester(data, "poller");
    try {
      const bytes = encodeFeed(NOW, [
        alertEntity("on-yellow", [{ routeId: "1" }], { headerText: tr("Yellow line: delays") }),
        alertEntity("on-bart", [{ agencyId: "BART" }], { headerText: tr("BART: strike") }),
        alertEntity("yellow-past", [{ routeId: "1" }], { headerText: tr("over"), activePeriod: [{ start: NOW - 7200, end: NOW - 3600 }] }),
        alertEntity("trip-only", [{ trip: { tripId: "3610458WKDY" }, routeId: "1" }]),
      ]);
      const [r] = await ing.ingest(bart, "alerts", bytes, "hand-made", new Date(NOW * 1000));
      expect(r!.outcome).toBe("accepted");
    } finally {
      ing.close();
    }
    rt = await rtServer(data, new Clock((NOW + 10) * 1000));
  }, 120_000);
  afterAll(() => rt?.stop());

  const heads = (list: any[]) => list.map((a) => a.header_text[0]?.text);

  test("route and agency alerts by the reference rules; [] without include_alerts; active_alerts drops the ended one", async () => {
    const yellow = async (q: string) => (await rt.json(`${ROUTES}?route_id=1&${q}`)).routes[0];
    const plain = await yellow("");
    expect(plain.alerts).toEqual([]);
    expect(plain.agency.alerts).toEqual([]);
    const all = await yellow("include_alerts=true");
    expect(heads(all.alerts)).toEqual(["Yellow line: delays", "over"]);
    expect(heads(all.agency.alerts)).toEqual(["BART: strike"]);
    const active = await yellow("active_alerts=true");
    expect(heads(active.alerts)).toEqual(["Yellow line: delays"]);
    expect(heads(active.agency.alerts)).toEqual(["BART: strike"]);
    // another route: only the agency's
    const orange = (await rt.json(`${ROUTES}?route_id=3&include_alerts=true`)).routes[0];
    expect(orange.alerts).toEqual([]);
    expect(heads(orange.agency.alerts)).toEqual(["BART: strike"]);
    // by key and in geojson too
    expect(heads((await rt.json(`${ROUTES}/${encodeURIComponent(`${bart}:1`)}?active_alerts=true`)).routes[0].alerts)).toEqual(["Yellow line: delays"]);
    const fc = await rt.json(`${ROUTES}.geojson?route_id=1&active_alerts=true`);
    expect(heads(fc.features[0].properties.alerts)).toEqual(["Yellow line: delays"]);
  });
});
