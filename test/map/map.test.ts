/**
 * FEATURE UNDER TEST: the web map page (server/map, issue 21) in a real headless browser (Debian's
 * chromium, playwright-core; test/map/browser.ts), over the real server with API keys, BART and
 * Caltrain, downtown San Francisco's streets and a realtime alerts snapshot made for the run:
 * the page loads with no console error and no request to another host, its alerts (stops ringed,
 * routes dashed) from the realtime alerts feed, the routes an alert names one by one by key, and no
 * list of stops or routes (the bytes it reads at load counted); the stop layer draws as many stops as the catalog has in view; search
 * finds stops by name (geocoder) and by stop_id / stop_code (catalog; a platform's code that is not its
 * stop_id too, from a hand-written feed, test/fixtures/gtfs/platform-codes); a stop click lists its routes
 * and departures with two requests by the stop's key (departures endpoint, routes serving it); a route click its trips; two clicks plan a trip and draw its legs; a click draws isochrone contours and
 * the transit reachability; alerts are listed and marked. Screenshots go to test/artifacts/map/.
 * The tests skip (only) when /usr/bin/chromium is absent; CI installs it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { refreshTimetable } from "../../pipeline/timetable/publish.ts";
import { startServer, type RunningServer } from "../../server/main.ts";
import { serverConfigFrom } from "../../server/config.ts";
import { streetDataset, tempDir } from "../support/dataset.ts";
import { alertEntity, encodeFeed, feedIdOf, ingester, tr } from "../realtime/support.ts";
import { clickMap, hasChromium, launchBrowser, mapIdle, openPage, screenshot, type PageLog } from "./browser.ts";

type Json = Record<string, any>;
const KEY = "map-test-key-0001";
const DATE = "2019-02-12"; // the Tuesday of BART's best week: what the page suggests
const EMBR = { lon: -122.39702, lat: 37.792874 };
/** A hand-written feed: a station whose platforms' stop_codes (P-101, P-102) are not their stop_ids. */
const PLATFORM_CODES = join(import.meta.dir, "..", "fixtures", "gtfs", "platform-codes");
const quiet = { info() {}, warn() {}, error: (m: string, f?: unknown) => console.error(m, f) };

let server: RunningServer;
let browser: Browser;
let page: Page;
let log: PageLog;
let bart: string;

const api = async (path: string): Promise<Json> => {
  const r = await fetch(server.url + path, { headers: { apikey: KEY } });
  if (r.status !== 200) throw new Error(`${path}: ${r.status} ${await r.text()}`);
  return (await r.json()) as Json;
};
/** Every page of a catalog list. */
async function allPages(path: string, key: string): Promise<Json[]> {
  const out: Json[] = [];
  let next: string | null = path;
  while (next) {
    const body: Json = await api(next);
    out.push(...body[key]);
    next = body.meta?.next ? body.meta.next.replace(server.url, "") : null;
  }
  return out;
}
const evaluate = <T>(fn: () => T) => page.evaluate(fn) as Promise<Awaited<T>>;
/** A catalog stop's key as the tiles carry it (gtfsId): `<feed onestop id>:<stop_id>`. */
const keyOf = (s: Json): string => `${s.feed_version.feed.onestop_id}:${s.stop_id}`;

beforeAll(async () => {
  const data = await streetDataset("map", ["sf-downtown"], [], ["bart", "caltrain", PLATFORM_CODES]);
  await refreshTimetable(data);
  // an alerts snapshot of now for BART: one on a stop (Embarcadero), one on a route (Yellow)
  bart = feedIdOf(data, "bart");
  const now = Math.floor(Date.now() / 1000);
  const ing = await ingester(data, "poller");
  try {
    const alerts = [
      alertEntity("stop", [{ stopId: "EMBR" }], { headerText: tr("Embarcadero: escalator out of service"), effect: "ACCESSIBILITY_ISSUE" }),
      alertEntity("route", [{ routeId: "1" }], { headerText: tr("Yellow line: delays"), effect: "SIGNIFICANT_DELAYS" }),
    ];
    const [r] = await ing.ingest(bart, "alerts", encodeFeed(now, alerts), "hand-made", new Date(now * 1000));
    expect(r!.outcome).toBe("accepted");
  } finally {
    ing.close();
  }
  const keys = join(tempDir("interchange-map-keys-"), "keys.json");
  writeFileSync(keys, JSON.stringify([{ key: KEY, account: "map" }]));
  server = await startServer(serverConfigFrom({ data, port: 0, host: "127.0.0.1", apiKeys: keys }), { log: quiet });
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe("the map feature's files and layers (no browser)", () => {
  test("/ redirects to /map; the page, its modules and maplibre's files need no key; the API does", async () => {
    const root = await fetch(`${server.url}/`, { redirect: "manual" });
    expect(root.status).toBe(302);
    expect(root.headers.get("location")).toEndWith("/map");
    const pageRes = await fetch(`${server.url}/map`);
    expect(pageRes.status).toBe(200);
    expect(await pageRes.text()).toContain('<script type="module" src="/map/app.js">');
    for (const f of ["/map/app.js", "/map/api.js", "/map/util.js", "/map/style.css", "/map/vendor/maplibre-gl.mjs", "/map/vendor/maplibre-gl-worker.mjs", "/map/vendor/maplibre-gl.css"]) {
      const r = await fetch(server.url + f);
      expect(r.status, f).toBe(200);
      expect(r.headers.get("content-type") ?? "", f).toMatch(f.endsWith(".css") ? /text\/css/ : /javascript/);
    }
    expect((await fetch(`${server.url}/map/vendor/package.json`)).status).toBe(404);
    expect((await fetch(`${server.url}/map/..%2Fmap%2Findex.ts`)).status).toBe(404);
    expect((await fetch(`${server.url}/api/v2/rest/stops?limit=1`)).status).toBe(401);
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
    expect((await fetch(`${server.url}/docs`)).status).toBe(200);
  });

  test("the routes the page reads by key (route_key filter): one route, its agency's name, its alerts; /map/data/routes.geojson is gone", async () => {
    const { routes } = await api(`/api/v2/rest/routes?route_key=${encodeURIComponent(`${bart}:1`)}&include_geometry=false&include_stops=false&limit=1`);
    expect(routes.length).toBe(1);
    const [yellow] = routes;
    expect(yellow.route_id).toBe("1");
    expect(yellow.route_color).toBe("FFFF33");
    expect(yellow.agency.agency_name).toBe("Bay Area Rapid Transit");
    expect(yellow.geometry).toBeUndefined();
    expect(yellow.route_stops).toBeUndefined();
    // `feed:route_id` is a catalog route_key, and the tiles' route gtfsId
    const trips = await api(`/api/v2/rest/routes/${encodeURIComponent(`${bart}:1`)}/trips?limit=1`);
    expect(trips.trips[0].route.id).toBe(yellow.id);
    expect((await fetch(`${server.url}/map/data/routes.geojson`)).status).toBe(404);
  });

  test("the street background lies on the engine's streets (locate finds an edge at its points)", async () => {
    const fc = (await (await fetch(`${server.url}/map/data/streets.geojson`)).json()) as Json;
    expect(fc.features.length).toBeGreaterThan(100);
    expect(new Set(fc.features.map((f: Json) => f.properties.class))).toEqual(new Set(["major", "minor", "path"]));
    // a vertex in the middle of 30 lines of each class, located with a costing that may use it
    for (const [cls, costing] of [["major", "auto"], ["minor", "pedestrian"], ["path", "pedestrian"]] as const) {
      const lines = fc.features.filter((f: Json) => f.properties.class === cls);
      const sample = Array.from({ length: 30 }, (_, i) => {
        const c = lines[Math.floor((i * lines.length) / 30)].geometry.coordinates;
        return c[Math.floor(c.length / 2)];
      });
      const r = await fetch(`${server.url}/api/v2/routing/valhalla/locate`, {
        method: "POST", headers: { apikey: KEY, "content-type": "application/json" },
        body: JSON.stringify({ locations: sample.map(([lon, lat]: number[]) => ({ lat, lon, radius: 10 })), costing, verbose: false }),
      });
      const located = (await r.json()) as Json[];
      const near = located.filter((l, i) => {
        const [lon, lat] = sample[i];
        return (l.edges ?? []).some((e: Json) => Math.hypot((e.correlated_lon - lon) * Math.cos((lat * Math.PI) / 180), e.correlated_lat - lat) * 111_320 < 10);
      });
      // the background is rounded and simplified to ~1 m, and the engine's edges are the same ways;
      // but a way cut by the extract's edge is drawn up to it, while the engine may leave it out
      // (2 of the 30 major-road points here, on I-80 ramps at the extract's edge)
      expect(near.length, cls).toBeGreaterThanOrEqual(sample.length - 3);
    }
  });
});

describe.skipIf(!hasChromium)("the page in headless Chromium", () => {
  beforeAll(async () => {
    browser = await launchBrowser();
    ({ page, log } = await openPage(browser, server.url));
    // the key as a demo passes it (?apikey=), kept by the page in localStorage
    await page.goto(`${server.url}/map?apikey=${KEY}`);
    await page.waitForFunction(() => (globalThis as any).__interchange?.state?.ready === true, null, { timeout: 60_000 });
    await mapIdle(page);
  });

  test("loads: the dataset's date, every stop drawn (clusters counted), no console error, no outside request", async () => {
    expect(await page.inputValue("#date")).toBe(DATE);
    const lines = await fetch(`${server.url}/api/v2/rest/stops.geojsonl`, { headers: { apikey: KEY } }).then((r) => r.text());
    const withCoords = lines.split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l)).filter((f) => f.geometry);
    const drawn = await evaluate(() => (globalThis as any).__interchange.stopsInView());
    const catalog = await allPages(`/api/v2/rest/stops?bbox=${drawn.bbox}&limit=1000`, "stops");
    const inBbox = new Set(catalog.map(keyOf));
    for (const id of drawn.ids) expect(inBbox.has(id)).toBe(true);
    expect(drawn.clusters).toBeGreaterThan(0); // at the dataset's extent the stops are clustered (the tiles' counts)
    // every stop and platform is in view: drawn on its own, or counted in the cluster drawn for its
    // cell; stations (and entrances) are drawn from the clustering zoom on, not at the dataset's extent
    expect(drawn.ids.length + drawn.clustered).toBe(withCoords.filter((f) => (f.properties.location_type ?? 0) === 0).length);
    expect(withCoords.filter((f) => f.properties.location_type === 1).length).toBeGreaterThan(0);
    expect(catalog.length).toBe(withCoords.length);
    // the clusters' counts are drawn as labels, in the font the server builds (no outside request)
    expect(log.requests.some((u) => /\/map\/fonts\/Noto%20Sans%20Regular\/0-255\.pbf$/.test(u))).toBe(true);
    // the layers come from the vector tiles, not from GeoJSON sources
    expect(log.requests.some((u) => /\/tiles\/routes,stops,stations,entrances\/\d+\/\d+\/\d+\.pbf$/.test(u))).toBe(true);
    await screenshot(page, "1-dataset");
    expect(log.errors).toEqual([]);
    expect(log.external).toEqual([]);
    // the page's own requests carried the key: no list of stops or routes (a stop or route is
    // read when it is clicked); the alerts from the realtime alerts feed that has a snapshot (BART's;
    // /health says which), then the one route an alert names (Yellow), by its key, and nothing else
    const apiAtLoad = log.requests.filter((u) => u.includes("/api/") || new URL(u).pathname === "/health").map((u) => new URL(u));
    expect(apiAtLoad.filter((u) => u.pathname.startsWith("/api/v2/rest/stops"))).toEqual([]);
    expect(apiAtLoad.map((u) => u.pathname).sort()).toEqual(["/api/v2/rest/feeds/" + bart + "/download_latest_rt/alerts.json", "/api/v2/rest/routes", "/health"].sort());
    expect(log.requests.filter((u) => new URL(u).pathname === "/api/v2/rest/routes")).toEqual([`${server.url}/api/v2/rest/routes?route_key=${encodeURIComponent(`${bart}:1`)}&include_geometry=false&include_stops=false&limit=1`]);
    expect(log.requests.filter((u) => u.includes("/map/data/routes") || /\/trips/.test(u))).toEqual([]);
    const kept = await evaluate(() => [...(globalThis as any).__interchange.state.routes.keys()]);
    expect(kept).toEqual([`${bart}:1`]);
    // the bytes read at load: the dataset's summary, /health, the alerts snapshot and one route,
    // against the routes list the page read before (18 routes here; 1.1 MB on New York)
    const answers = log.answers.filter((a) => apiAtLoad.some((u) => u.href === a.url) || a.url.endsWith("/map/data/dataset.json"));
    expect(answers.length).toBe(4);
    const atLoad = answers.reduce((n, a) => n + a.bytes, 0);
    const list = (await (await fetch(`${server.url}/api/v2/rest/routes?include_geometry=false&include_stops=false&active_alerts=true&limit=1000`, { headers: { apikey: KEY } })).text()).length;
    console.log(`bytes read at load: ${atLoad} (${answers.map((a) => `${new URL(a.url).pathname} ${a.bytes}`).join(", ")}); the routes list: ${list}`);
    expect(atLoad).toBeLessThan(list);
    expect(atLoad).toBeLessThan(6000);
  });

  for (const [name, center, zoom] of [["downtown", [-122.401, 37.789], 14], ["4th-and-king", [-122.3947, 37.7766], 15]] as const) {
    test(`stop layer at ${name}: the stops drawn in view are the catalog's stops in that bbox, coloured by location_type`, async () => {
      await evaluate(() => (globalThis as any).__interchange.setTab("explore"));
      await page.evaluate(([c, z]) => (globalThis as any).__interchange.map.jumpTo({ center: c, zoom: z }), [center, zoom] as const);
      await mapIdle(page);
      const view = await evaluate(() => (globalThis as any).__interchange.stopsInView());
      // every stop drawn on its own (above the clustering zoom), each in its location_type's colour
      const drawn: [string, unknown, string][] = await evaluate(() => {
        const ic = (globalThis as any).__interchange;
        return ic.map.queryRenderedFeatures({ layers: ic.STOP_LAYERS }).map((f: any) => [f.properties.gtfsId, f.layer.paint["circle-color"], f.layer.id]);
      });
      expect(view.clusters).toBe(0);
      const catalog = await allPages(`/api/v2/rest/stops?bbox=${view.bbox}&limit=1000`, "stops");
      const typeOf = new Map(catalog.map((s) => [keyOf(s), s.location_type ?? 0]));
      const types = [...new Set(drawn.filter(([key]) => view.ids.includes(key)).map(([key]) => typeOf.get(key)))];
      const colours = new Set(drawn.map((d) => JSON.stringify(d[1])));
      // each stop on the tile layer of its location_type
      for (const [key, , layer] of drawn) {
        const t = typeOf.get(key);
        if (t !== undefined) expect(layer).toBe(t === 1 ? "stations" : t >= 2 ? "entrances" : "stops");
      }
      expect(view.ids.length).toBeGreaterThan(0);
      expect(view.ids).toEqual(catalog.map(keyOf).sort());
      if (name === "4th-and-king") {
        expect(types.sort()).toEqual([0, 1]); // Caltrain: the station and its platforms
        expect(colours.size).toBe(2); // in two colours
      }
      await screenshot(page, `2-stops-${name}`);
    });
  }

  test("the basemap: buildings, parks, street and place names from the street dataset's tiles, labels in the served font", async () => {
    const before = log.requests.length;
    await page.evaluate(() => (globalThis as any).__interchange.map.jumpTo({ center: [-122.4065, 37.7855], zoom: 15.5 }));
    await mapIdle(page);
    const drawn = await evaluate(() => {
      const m = (globalThis as any).__interchange.map;
      const count = (layer: string) => m.queryRenderedFeatures({ layers: [layer] }).length;
      return {
        buildings: count("buildings"), parks: count("parks"),
        streetNames: [...new Set(m.queryRenderedFeatures({ layers: ["street-names"] }).map((f: any) => f.properties.name))],
        places: m.queryRenderedFeatures({ layers: ["place-names"] }).map((f: any) => f.properties.name),
      };
    });
    expect(drawn.buildings).toBeGreaterThan(50);
    expect(drawn.parks).toBeGreaterThan(0);
    expect(drawn.streetNames.length).toBeGreaterThan(3);
    expect(drawn.streetNames).toContain("Market Street");
    expect(drawn.places.length).toBeGreaterThan(0);
    // from this server only: the basemap's tiles and the glyphs
    const asked = log.requests.slice(before);
    expect(asked.some((u) => /\/tiles\/water,waterways,parks,buildings,streets,places\/15\//.test(u))).toBe(true);
    expect(log.external).toEqual([]);
    await screenshot(page, "2b-basemap");
  });

  test("search lists the geocoder's places under the stops (one autocomplete request with the map's centre as focus); a click flies there", async () => {
    const before = log.requests.length;
    await page.fill("#search", "market st");
    await page.waitForSelector("#search-results li.place", { timeout: 30_000 });
    const places = await page.$$eval("#search-results li.place", (els) => els.map((e) => ({ text: e.textContent!, lon: Number((e as any).dataset.lon), lat: Number((e as any).dataset.lat) })));
    expect(places.length).toBeGreaterThan(0);
    expect(places[0]!.text.toLowerCase()).toContain("market");
    const asked = log.requests.slice(before).filter((u) => u.includes("/v1/autocomplete"));
    expect(asked.length).toBeGreaterThanOrEqual(1);
    expect(new URL(asked[asked.length - 1]!).searchParams.get("focus.point.lat")).not.toBeNull();
    await page.click("#search-results li.place");
    await page.waitForFunction(([lon, lat]) => {
      const c = (globalThis as any).__interchange.map.getCenter();
      return Math.abs(c.lng - lon) < 1e-4 && Math.abs(c.lat - lat) < 1e-4;
    }, [places[0]!.lon, places[0]!.lat], { timeout: 30_000 });
    await page.fill("#search", "");
  });

  test("search finds a stop by name (the geocoder's stations and stops near the map's centre), no stop list read", async () => {
    const before = log.requests.length;
    await page.fill("#search", "embarc");
    await page.waitForSelector("#search-results li[data-key]", { timeout: 30_000 });
    const hits = await page.$$eval("#search-results li[data-key]", (els) => els.map((e) => ({ key: (e as any).dataset.key, text: e.textContent! })));
    expect(hits[0]!.text).toContain("Embarcadero");
    expect(hits[0]!.key).toBe(`${bart}:EMBR`);
    const asked = log.requests.slice(before).map((u) => new URL(u));
    const transit = asked.filter((u) => u.pathname === "/v1/autocomplete" && u.searchParams.get("layers") === "stations,stops");
    expect(transit.length).toBeGreaterThanOrEqual(1);
    expect(transit.at(-1)!.searchParams.get("focus.point.lat")).not.toBeNull();
    // the catalog is asked for the stop_id or stop_code only (exact matches), never for a list of stops
    for (const u of asked.filter((x) => x.pathname.startsWith("/api/v2/rest/stops"))) {
      expect(u.pathname).toBe("/api/v2/rest/stops");
      expect([...u.searchParams.keys()].sort()).toEqual([u.searchParams.has("stop_id") ? "stop_id" : "stop_code", "limit"].sort());
      expect(u.searchParams.get("stop_id") ?? u.searchParams.get("stop_code")).toBe("embarc");
    }
    await page.fill("#search", "");
  });

  test("search finds a platform by its stop_code where it is not its stop_id (the catalog's stop_code filter); a click on it shows the stop and its departures", async () => {
    const [platform] = (await api(`/api/v2/rest/stops?stop_id=PCS_1`)).stops; // (only the fixture's feed has it)
    expect(platform.stop_code).toBe("P-101");
    expect(platform.parent).not.toBeNull(); // a platform: not in the geocoder (found through its station)
    // neither the geocoder nor the stop_id finds it by its code
    expect((await api(`/v1/autocomplete?text=P-101&layers=stations,stops`)).features.map((f: Json) => f.properties.source_id)).not.toContain(keyOf(platform));
    expect((await api(`/api/v2/rest/stops?stop_id=P-101`)).stops).toEqual([]);
    const key = keyOf(platform);
    let before = log.requests.length;
    await page.fill("#search", platform.stop_code);
    await page.waitForSelector(`#search-results li[data-key="${key}"]`, { timeout: 30_000 });
    const asked = log.requests.slice(before).map((u) => new URL(u)).filter((u) => u.pathname === "/api/v2/rest/stops");
    expect(asked.some((u) => u.searchParams.get("stop_code") === "P-101")).toBe(true);
    expect(await page.textContent(`#search-results li[data-key="${key}"]`)).toContain("code P-101");
    // a Caltrain platform, whose code is its stop_id, is found too (once)
    await page.fill("#search", "70021");
    await page.waitForSelector(`#search-results li[data-key="${(await api("/api/v2/rest/stops?stop_id=70021")).stops[0].feed_version.feed.onestop_id}:70021"]`, { timeout: 30_000 });
    expect(await page.$$eval("#search-results li[data-key]", (els) => els.map((e) => (e as any).dataset.key).filter((k: string) => k.endsWith(":70021")).length)).toBe(1);
    await page.fill("#search", platform.stop_code);
    await page.waitForSelector(`#search-results li[data-key="${key}"]`, { timeout: 30_000 });
    before = log.requests.length;
    await page.click(`#search-results li[data-key="${key}"]`);
    await page.waitForSelector("#departures table", { timeout: 60_000 });
    const details = await page.textContent("#details");
    expect(details).toContain(platform.stop_name);
    expect(details).toContain("P-101");
    expect(await page.$$eval("#details .legs [data-route] .badge", (els) => els.map((e) => e.textContent))).toEqual(["PC"]);
    // two requests: the departures by the stop's key, the routes serving it
    const clicked = log.requests.slice(before).filter((u) => u.includes("/api/")).map((u) => new URL(u));
    expect(clicked.map((u) => u.pathname).sort()).toEqual(["/api/v2/rest/routes", new URL(`${server.url}/api/v2/rest/stops/${encodeURIComponent(key)}/departures`).pathname].sort());
    expect(clicked.find((u) => u.pathname === "/api/v2/rest/routes")!.searchParams.get("stop_key")).toBe(key);
    // its departures on the date: the fixture's two trips from platform 1 (08:10, 09:10)
    expect(await page.$$eval("#departures tr[data-trip] td:first-child", (els) => els.map((e) => e.textContent))).toEqual(["08:10", "09:10"]);
    // the map went there
    await page.waitForFunction(([lon, lat]) => {
      const c = (globalThis as any).__interchange.map.getCenter();
      return Math.abs(c.lng - lon) < 1e-3 && Math.abs(c.lat - lat) < 1e-3;
    }, platform.geometry.coordinates, { timeout: 30_000 });
    await screenshot(page, "3a-search-by-code");
    await page.fill("#search", "");
  });

  test("a click on a stop lists its routes and next departures (with alerts), with two requests by the tile's stop key", async () => {
    await page.evaluate(([lon, lat]) => (globalThis as any).__interchange.map.jumpTo({ center: [lon, lat], zoom: 15 }), [EMBR.lon, EMBR.lat]);
    await mapIdle(page);
    const before = log.requests.length;
    await clickMap(page, EMBR.lon, EMBR.lat);
    await page.waitForSelector("#departures table", { timeout: 60_000 });
    // two requests by the tile's gtfsId, a stop key: the departures endpoint (the stop's document
    // and alerts come with it) and the routes serving the stop (without their stops)
    const asked = log.requests.slice(before).filter((u) => u.includes("/api/")).map((u) => new URL(u));
    expect(asked.map((u) => u.pathname).sort()).toEqual(["/api/v2/rest/routes", new URL(`${server.url}/api/v2/rest/stops/${encodeURIComponent(`${bart}:EMBR`)}/departures`).pathname].sort());
    const routesAsked = asked.find((u) => u.pathname === "/api/v2/rest/routes")!;
    expect(routesAsked.searchParams.get("stop_key")).toBe(`${bart}:EMBR`);
    expect(routesAsked.searchParams.get("include_stops")).toBe("false");
    const details = await page.textContent("#details");
    expect(details).toContain("Embarcadero");
    expect(details).toContain("escalator out of service");
    const routes = await page.$$eval("#details [data-route] .badge", (els) => els.map((e) => e.textContent));
    expect(routes).toContain("Yellow");
    const serving = await api(`/api/v2/rest/routes?stop_key=${encodeURIComponent(`${bart}:EMBR`)}&limit=1000`);
    const listed = await page.$$eval("#details .legs [data-route] .badge", (els) => els.map((e) => e.textContent));
    expect(listed.sort()).toEqual(serving.routes.map((r: Json) => r.route_short_name || r.route_long_name || r.route_id).sort());
    const times = await page.$$eval("#departures tr[data-trip] td:first-child", (els) => els.map((e) => e.textContent!));
    expect(times.length).toBeGreaterThan(5);
    expect(times.every((t) => t >= "08:00")).toBe(true);
    expect([...times].sort()).toEqual(times);
    // they are the endpoint's: the first twelve from 08:00 on the date
    const { stops } = await api(`/api/v2/rest/stops/${encodeURIComponent(`${bart}:EMBR`)}/departures?date=${DATE}&start_time=08:00:00&end_time=14:00:00&use_service_window=false&limit=12`);
    expect(times).toEqual(stops[0].departures.map((d: Json) => d.departure_time.slice(0, 5)));
    await screenshot(page, "3-stop-embarcadero");
  });

  test("a click on a route line lists its trips on the date and draws their shapes", async () => {
    const [yellow] = (await api(`/api/v2/rest/routes/${encodeURIComponent(`${bart}:1`)}`)).routes;
    // a point of the line between two stations (Concord - Pleasant Hill)
    const line: number[][] = yellow.geometry.coordinates[0];
    const at = line[Math.floor(line.length * 0.12)]!;
    await page.evaluate((c) => (globalThis as any).__interchange.map.jumpTo({ center: c, zoom: 14 }), at);
    await mapIdle(page);
    const before = log.requests.length;
    await clickMap(page, at[0]!, at[1]!);
    await page.waitForSelector("#trips table", { timeout: 30_000 });
    // by the tile's route key: its trips (the route itself was read at load, for its alert)
    const asked = log.requests.slice(before).filter((u) => u.includes("/api/")).map((u) => new URL(u));
    expect(asked.map((u) => u.pathname)).toEqual([`/api/v2/rest/routes/${encodeURIComponent(`${bart}:1`)}/trips.geojson`]);
    expect(await page.textContent("#details h2")).toContain("Yellow");
    expect(await page.textContent("#details")).toContain("Bay Area Rapid Transit");
    // a route the page has not read: drawn from the tile's properties, read by its key beside its trips
    const drawnRoute = await page.evaluate((c) => {
      const ic = (globalThis as any).__interchange;
      const f = ic.map.queryRenderedFeatures(ic.map.project(c), { layers: ["routes"] })[0];
      ic.state.routes.delete(f.properties.gtfsId);
      ic.showRoute(f.properties.gtfsId, f.properties);
      return { key: f.properties.gtfsId, head: (globalThis as any).document.querySelector("#details h2").textContent };
    }, at);
    expect(drawnRoute.key).toBe(`${bart}:1`);
    expect(drawnRoute.head).toContain("Yellow"); // at once, from the tile
    await page.waitForFunction(() => /Bay Area Rapid Transit/.test((globalThis as any).document.getElementById("details").textContent) && (globalThis as any).document.querySelector("#trips table"), null, { timeout: 30_000 });
    const again = log.requests.slice(before).filter((u) => u.includes("/api/")).map((u) => new URL(u));
    expect(again.filter((u) => u.pathname === "/api/v2/rest/routes").map((u) => u.searchParams.get("route_key"))).toEqual([`${bart}:1`]);
    const expected = await allPages(`/api/v2/rest/routes/${encodeURIComponent(`${bart}:1`)}/trips?service_date=${DATE}&use_service_window=false&limit=1000`, "trips");
    expect(await page.$$eval("#trips tr[data-trip]", (els) => els.length)).toBe(expected.length);
    expect(await page.textContent("#details")).toContain("Yellow line: delays");
    await mapIdle(page);
    expect(await evaluate(() => (globalThis as any).__interchange.map.queryRenderedFeatures({ layers: ["selection-line"] }).length)).toBeGreaterThan(0);
  });

  test("plan: two clicks (origin, destination) draw the itinerary's legs in their colours, steps and times listed", async () => {
    await page.click("#tabs button[data-tab=plan]");
    await evaluate(() => (globalThis as any).__interchange.map.fitBounds([[-122.43, 37.77], [-122.26, 37.81]], { animate: false }));
    await mapIdle(page);
    const from = { lon: -122.4193, lat: 37.7793 }; // Civic Center
    const to = { lon: -122.2712, lat: 37.8044 }; // downtown Oakland
    await clickMap(page, from.lon, from.lat);
    await clickMap(page, to.lon, to.lat);
    await page.waitForSelector("#itineraries .itinerary", { timeout: 30_000 });
    await mapIdle(page);
    const r = await evaluate(() => {
      const ic = (globalThis as any).__interchange;
      const plan = ic.state.plan;
      const drawn = ic.map.queryRenderedFeatures({ layers: ["plan-legs", "plan-street"] });
      return {
        params: plan.requestParameters,
        legs: plan.plan.itineraries[0].legs.map((l: any) => ({ mode: l.mode, transit: l.transitLeg, color: l.routeColor })),
        drawnLegs: [...new Set(drawn.map((f: any) => f.properties.leg))].sort(),
        colors: [...new Set(drawn.filter((f: any) => f.properties.transit).map((f: any) => f.properties.color))],
      };
    });
    const [fl, fo] = r.params.fromPlace.split(",").map(Number);
    const [tl, to2] = r.params.toPlace.split(",").map(Number);
    expect(Math.abs(fl - from.lat) + Math.abs(fo - from.lon)).toBeLessThan(0.001);
    expect(Math.abs(tl - to.lat) + Math.abs(to2 - to.lon)).toBeLessThan(0.001);
    expect(r.params.date).toBe(DATE);
    expect(r.legs.some((l: Json) => l.transit)).toBe(true);
    expect(r.drawnLegs).toEqual(r.legs.map((_: unknown, i: number) => i));
    expect(r.colors.sort()).toEqual([...new Set(r.legs.filter((l: Json) => l.transit).map((l: Json) => `#${l.color}`))].sort());
    const text = await page.textContent("#itineraries .itinerary.selected");
    expect(text).toMatch(/\d\d:\d\d – \d\d:\d\d/);
    expect(text).toContain("Civic Center");
    await screenshot(page, "4-plan");
  });

  test("isochrones: a click draws the street engine's contours and the stops reached by transit, coloured by travel time", async () => {
    await page.click("#tabs button[data-tab=iso]");
    await evaluate(() => (globalThis as any).__interchange.map.jumpTo({ center: [-122.405, 37.787], zoom: 14 }));
    await mapIdle(page);
    await clickMap(page, -122.4072, 37.7847);
    await page.waitForFunction(() => /contours/.test((globalThis as any).document.getElementById("iso-status").textContent) && /stops within/.test((globalThis as any).document.getElementById("iso-status").textContent), null, { timeout: 30_000 });
    await mapIdle(page);
    const iso = await evaluate(() => {
      const m = (globalThis as any).__interchange.map;
      return {
        contours: [...new Set(m.queryRenderedFeatures({ layers: ["iso-fill"] }).map((f: any) => f.properties.contour))].sort((a: any, b: any) => a - b),
        fills: [...new Set(m.queryRenderedFeatures({ layers: ["iso-fill"] }).map((f: any) => f.properties.fill))].length,
      };
    });
    expect(iso.contours).toEqual([5, 10, 15]);
    expect(iso.fills).toBe(3);
    await screenshot(page, "5-isochrone");
    await evaluate(() => (globalThis as any).__interchange.map.jumpTo({ center: [-122.3, 37.75], zoom: 10 }));
    await mapIdle(page);
    const reach = await evaluate(() => {
      const ic = (globalThis as any).__interchange;
      const drawn = ic.map.queryRenderedFeatures({ layers: ["reach"] });
      return { answered: ic.state.reach.stops.length, drawn: new Set(drawn.map((f: any) => f.properties.name)).size, shades: new Set(drawn.map((f: any) => f.properties.minutes)).size, max: Math.max(...ic.state.reach.stops.map((s: any) => s.travelTime)) };
    });
    expect(reach.answered).toBeGreaterThan(10);
    expect(reach.drawn).toBeGreaterThan(10);
    expect(reach.shades).toBeGreaterThan(5);
    expect(reach.max).toBeLessThanOrEqual(45 * 60);
    await screenshot(page, "6-reachability");
  });

  test("the window view: the nearest stops coloured by their median travel time over the next hour, as the analysis API answers", async () => {
    await page.selectOption("#reach-mode", "window");
    try {
      await evaluate(() => (globalThis as any).__interchange.map.jumpTo({ center: [-122.405, 37.787], zoom: 14 }));
      await mapIdle(page);
      await clickMap(page, -122.4072, 37.7847);
      await page.waitForFunction(() => /nearest stops within/.test((globalThis as any).document.getElementById("iso-status").textContent), null, { timeout: 60_000 });
      await evaluate(() => (globalThis as any).__interchange.map.jumpTo({ center: [-122.3, 37.75], zoom: 10 }));
      await mapIdle(page);
      const shown = await evaluate(() => {
        const ic = (globalThis as any).__interchange;
        const drawn = ic.map.queryRenderedFeatures({ layers: ["reach"] });
        const fs = ic.state.reach.features;
        const origin = ic.state.isoOrigin;
        return { origin, n: fs.length, asked: ic.state.reach.asked, drawn: new Set(drawn.map((f: any) => f.properties.name)).size, shades: new Set(fs.map((f: any) => f.properties.minutes)).size, first: fs[0], date: (globalThis as any).document.getElementById("date").value, time: (globalThis as any).document.getElementById("time").value };
      });
      expect(shown.n).toBeGreaterThan(10);
      expect(shown.drawn).toBeGreaterThan(10);
      // the destinations asked: the nearest 500 of the catalog's stops and platforms (its radius
      // searches, then boxes); this dataset has fewer than 500 within the largest box (4° around
      // the click), so all of them, though fewer lie within the largest circle (10 km)
      const all = await allPages(`/api/v2/rest/stops?location_type=0&limit=1000`, "stops");
      const within = await allPages(`/api/v2/rest/stops?lat=${shown.origin.lat}&lon=${shown.origin.lon}&radius=10000&location_type=0&limit=1000`, "stops");
      expect(all.length).toBeLessThan(500);
      expect(within.length).toBeLessThan(all.length);
      expect(shown.asked).toBe(all.length);
      expect(shown.shades).toBeGreaterThan(3);
      // the same question to the API for the first stop drawn: the same three percentiles
      const [h, m] = shown.time.split(":").map(Number);
      const hm = (x: number) => `${String(Math.floor(x / 60)).padStart(2, "0")}:${String(x % 60).padStart(2, "0")}`;
      const start = h * 60 + m;
      const [lon, lat] = shown.first.geometry.coordinates;
      const r = await fetch(`${server.url}/api/v2/analysis/travel-times`, {
        method: "POST",
        headers: { apikey: KEY, "content-type": "application/json" },
        body: JSON.stringify({ from: shown.origin, to: [{ id: "x", lat, lon }], date: shown.date, window: `${hm(start)}-${hm(Math.min(start + 60, 1439))}`, percentiles: [5, 50, 95], maxDuration: 45 }),
      });
      expect(r.status).toBe(200);
      const body = (await r.json()) as Json;
      expect(body.destinations[0].travelTimes).toEqual([shown.first.properties.p5, shown.first.properties.minutes, shown.first.properties.p95]);
      expect(shown.first.properties.minutes).toBeLessThanOrEqual(45);
      await screenshot(page, "6b-travel-times-window");
    } finally {
      await page.selectOption("#reach-mode", "once");
    }
  });

  test("a station lists its platforms' departures, merged in time order, with one request", async () => {
    const [station] = (await api(`/api/v2/rest/stops?stop_id=san_francisco&location_type=1`)).stops;
    await page.fill("#date", "2023-11-21");
    await page.fill("#time", "07:00");
    const before = log.requests.length;
    await page.evaluate((id) => (globalThis as any).__interchange.showStop(id), station.id);
    await page.waitForSelector("#departures table", { timeout: 30_000 });
    // (the date change also refreshes the route or plan shown before; the departures are one request, no trip is read)
    const asked = log.requests.slice(before).map((u) => new URL(u).pathname);
    expect(asked.filter((u) => u.includes("/departures"))).toEqual([`/api/v2/rest/stops/${station.id}/departures`]);
    expect(asked.filter((u) => /\/trips\/\d/.test(u))).toEqual([]);
    const times = await page.$$eval("#departures tr[data-trip] td:first-child", (els) => els.map((e) => e.textContent!));
    const { stops } = await api(`/api/v2/rest/stops/${station.id}/departures?date=2023-11-21&start_time=07:00:00&end_time=13:00:00&use_service_window=false&limit=12`);
    const merged = stops[0].children.flatMap((c: Json) => c.departures).map((d: Json) => d.departure_time.slice(0, 5)).sort().slice(0, 12);
    expect(merged.length).toBeGreaterThan(3);
    expect(times).toEqual(merged);
    expect(await page.textContent("#details")).toContain("San Francisco");
    await page.fill("#date", DATE);
    await page.fill("#time", "08:00");
  });

  test("alerts: listed, on their stop and their route; still no console error and no outside request", async () => {
    await page.click("#tabs button[data-tab=alerts]");
    await page.waitForFunction(() => (globalThis as any).document.querySelectorAll("#alerts li[data-i]").length >= 2, null, { timeout: 30_000 });
    const text = await page.textContent("#alerts");
    expect(text).toContain("escalator out of service");
    expect(text).toContain("Yellow line: delays");
    // (the isochrone tab's circles cleared, so the ring shows in the screenshot)
    await page.evaluate(() => (globalThis as any).document.getElementById("iso-clear").click());
    await page.evaluate(([lon, lat]) => (globalThis as any).__interchange.map.jumpTo({ center: [lon, lat], zoom: 15 }), [EMBR.lon, EMBR.lat]);
    await mapIdle(page);
    const marked = await page.evaluate((feed) => {
      const ic = (globalThis as any).__interchange;
      const filter = ic.map.getFilter("routes-alert");
      const rendered = ic.map.queryRenderedFeatures({ layers: ic.STOP_LAYERS });
      return {
        stops: [...ic.state.alerts.stops.keys()],
        drawn: ic.map.getFeatureState({ source: "transit", sourceLayer: "stops", id: `${feed}:EMBR` }).alert,
        other: ic.map.getFeatureState({ source: "transit", sourceLayer: "stops", id: `${feed}:MONT` }).alert ?? false,
        ringed: [...new Set(rendered.filter((f: any) => f.state?.alert).map((f: any) => f.properties.gtfsId))],
        shown: rendered.length,
        routes: filter[2][1],
      };
    }, bart);
    // the stops with an active alert: EMBR only (from the alerts feed's informed entities)
    expect(marked.stops).toEqual([`${bart}:EMBR`]);
    // drawn with the alert's ring (the tiles' stop, through its feature state), its neighbour not
    expect(marked.drawn).toBe(true);
    expect(marked.other).toBe(false);
    expect(marked.shown).toBeGreaterThan(1);
    expect(marked.ringed).toEqual([`${bart}:EMBR`]);
    // the route lines of the tiles are marked by their key
    expect(marked.routes).toEqual([`${bart}:1`]);
    await screenshot(page, "7-alerts");
    // the stop's alert in the list: a click shows the stop
    await page.click("#alerts li[data-i]:has-text('escalator out of service')");
    await page.waitForSelector("#departures table", { timeout: 60_000 });
    expect(await page.textContent("#details")).toContain("Embarcadero");
    expect(log.errors).toEqual([]);
    expect(log.external).toEqual([]);
  });
});
