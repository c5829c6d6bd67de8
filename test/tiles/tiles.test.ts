/**
 * Vector tiles (/tiles/{layers}/{z}/{x}/{y}.pbf, server/map/tiles.ts): the real import of BART and
 * Caltrain, the real server on port 0; tiles decoded with `pbf` (an independent protobuf reader, the
 * one @mapbox/vector-tile builds on) and their features checked against the catalog's stops; bad
 * input answered 400/404, never 500.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startServer, type RunningServer } from "../../server/main.ts";
import { serverConfigFrom } from "../../server/config.ts";
import { worldXY } from "../../server/map/mvt.ts";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { activeStreets, readManifest } from "../../pipeline/schema/manifest.ts";
import { STREET_LAYOUT } from "../../pipeline/schema/street.ts";
import { buildTileSet, tileOf } from "../../server/map/tiles.ts";
import { gtfs, importedDataset, streetDataset, tempDir } from "../support/dataset.ts";
import { gtfsFeed } from "../support/gtfs-reader.ts";
import { decode, type Layer } from "../support/mvt-reader.ts";

type Json = Record<string, any>;
const quiet = { info() {}, warn() {}, error: (m: string, f?: unknown) => console.error(m, f) };
let server: RunningServer;
const KEY = "tiles-test-key-0001";
/** the catalog needs a key; the tiles do not (the map page and OTP-UI fetch them without one) */
const api = async (path: string): Promise<Json> => (await (await fetch(server.url + path, { headers: { apikey: KEY } })).json()) as Json;

const unzig = (n: number) => (n >>> 1) ^ -(n & 1);
const tileAt = (lon: number, lat: number, z: number) => {
  const [wx, wy] = worldXY(lon, lat);
  return { z, x: Math.floor(wx * 2 ** z), y: Math.floor(wy * 2 ** z) };
};

async function tile(path: string): Promise<Layer[]> {
  const r = await fetch(server.url + path);
  expect(r.status, path).toBe(200);
  expect(r.headers.get("content-type")).toBe("application/vnd.mapbox-vector-tile");
  return decode(new Uint8Array(await r.arrayBuffer()));
}

let stops: Json[];

beforeAll(async () => {
  const data = await importedDataset("tiles", ["bart", "caltrain"], { timetable: false });
  const keys = join(tempDir("interchange-tiles-keys-"), "keys.json");
  writeFileSync(keys, JSON.stringify([{ key: KEY, account: "tiles" }]));
  server = await startServer(serverConfigFrom({ data, port: 0, host: "127.0.0.1", apiKeys: keys }), { log: quiet });
  const body = await api("/api/v2/rest/stops?search=Embarcadero&limit=100");
  stops = body.stops;
});

afterAll(async () => {
  await server?.stop();
});

describe("vector tiles of stops and stations", () => {
  test("a tile holds the catalog's stop where it is, with OTP2's properties and its routes", async () => {
    const embr = stops.find((s) => s.stop_id === "EMBR" || s.stop_name === "Embarcadero");
    expect(embr).toBeDefined();
    const [lon, lat] = embr!.geometry.coordinates as [number, number];
    const z = 15;
    const t = tileAt(lon, lat, z);
    const layers = await tile(`/tiles/stops,stations/${t.z}/${t.x}/${t.y}.pbf`);
    const stopLayer = layers.find((l) => l.name === "stops")!;
    expect(stopLayer.version).toBe(2);
    expect(stopLayer.extent).toBe(4096);
    const f = stopLayer.features.find((x) => String(x.props.gtfsId).endsWith(`:${embr!.stop_id}`));
    expect(f).toBeDefined();
    expect(f!.type).toBe(1);
    expect(f!.props.name).toBe(embr!.stop_name);
    expect(String(f!.props.gtfsId)).toBe(`${embr!.feed_version.feed.onestop_id}:${embr!.stop_id}`);
    // the position decodes back to the stop's within a tile unit
    expect(f!.geometry[0]).toBe(9);
    const [wx, wy] = worldXY(lon, lat);
    expect(Math.abs(t.x * 4096 + unzig(f!.geometry[1]!) - wx * 2 ** z * 4096)).toBeLessThanOrEqual(1);
    expect(Math.abs(t.y * 4096 + unzig(f!.geometry[2]!) - wy * 2 ** z * 4096)).toBeLessThanOrEqual(1);
    // routes: what the catalog says serves it
    const routes = JSON.parse(String(f!.props.routes)) as { gtfsType: number; shortName: string; color: string }[];
    const all = (await api("/api/v2/rest/routes?limit=1000&include_stops=true")).routes as Json[];
    const served = all.filter((r) => r.feed_version.sha1 === embr!.feed_version.sha1 && r.route_stops.some((rs: Json) => rs.stop.id === embr!.id));
    expect(served.length).toBeGreaterThan(0);
    expect(routes.length).toBe(served.length);
    expect(routes.map((r) => r.color).sort()).toEqual(served.map((r) => r.route_color).sort());
    expect(routes.map((r) => r.shortName).sort()).toEqual(served.map((r) => r.route_short_name ?? r.route_long_name ?? r.route_id).sort());
    // OTP2's `type`: the TransitMode name of its routes' route_type (BART's are 1: SUBWAY)
    expect(served.every((r) => r.route_type === 1)).toBe(true);
    expect(f!.props.type).toBe("SUBWAY");
  });

  test("stations as OTP2's layer has them: type (their platforms' modes), stops (their platforms' ids), routes with mode", async () => {
    const all = (await api("/api/v2/rest/stops?limit=1000")).stops as Json[];
    const station = all.find((s) => s.location_type === 1 && s.stop_id === "22nd_street");
    expect(station).toBeDefined();
    const [lon, lat] = station!.geometry.coordinates as [number, number];
    const t = tileAt(lon, lat, 15);
    const [layer] = await tile(`/tiles/stations/${t.z}/${t.x}/${t.y}.pbf`);
    const f = layer!.features.find((x) => String(x.props.gtfsId).endsWith(`:${station!.stop_id}`))!;
    expect(f).toBeDefined();
    const feed = station!.feed_version.feed.onestop_id;
    const platforms = all.filter((s) => s.parent?.id === station!.id).map((s) => `${feed}:${s.stop_id}`).sort();
    expect(platforms.length).toBeGreaterThan(0);
    expect((JSON.parse(String(f.props.stops)) as string[]).sort()).toEqual(platforms);
    // Caltrain's routes are route_type 2: RAIL
    expect(f.props.type).toBe("RAIL");
    const routes = JSON.parse(String(f.props.routes)) as { mode: string; gtfsType: number; shortName?: string }[];
    expect(routes.length).toBeGreaterThan(0);
    for (const r of routes) expect(r).toMatchObject({ mode: "RAIL", gtfsType: 2 });
  });

  test("the zoom-0 tile holds one stop per 64-unit cell (thinned) and every station; the stations layer holds only stations", async () => {
    const [stopLayer, stationLayer] = await tile("/tiles/stops,stations/0/0/0.pbf");
    expect(stopLayer!.name).toBe("stops");
    expect(stationLayer!.name).toBe("stations");
    const all: Json[] = [];
    let next: string | null = "/api/v2/rest/stops?limit=1000";
    while (next) {
      const b = await api(next);
      all.push(...b.stops);
      next = b.meta?.next ? String(b.meta.next).replace(server.url, "") : null;
    }
    const withPos = all.filter((s) => s.geometry);
    const catalogStations = withPos.filter((s) => s.location_type === 1).length;
    // below zoom 12 stops are thinned to one per 64 × 64 tile units: every occupied cell has one
    const perCell = new Map<string, number>();
    for (const s of withPos.filter((s) => (s.location_type ?? 0) === 0)) {
      const [wx, wy] = worldXY(s.geometry.coordinates[0], s.geometry.coordinates[1]);
      const cell = `${Math.floor((wx * 4096 + 64) / 64)}/${Math.floor((wy * 4096 + 64) / 64)}`;
      perCell.set(cell, (perCell.get(cell) ?? 0) + 1);
    }
    expect(stopLayer!.features.length).toBe(perCell.size);
    // the stop kept for a cell counts the stops of its cell (the map draws it as a cluster's size)
    const counts = stopLayer!.features.map((f) => f.props.count as number).sort((a, b) => a - b);
    expect(counts).toEqual([...perCell.values()].sort((a, b) => a - b));
    expect(counts.reduce((a, b) => a + b, 0)).toBe(withPos.filter((s) => (s.location_type ?? 0) === 0).length);
    // at zoom 9 the stops spread over several tiles: a stop counts in the tile it falls in only, so the counts still add up
    const lons = withPos.map((s) => s.geometry.coordinates[0] as number), lats = withPos.map((s) => s.geometry.coordinates[1] as number);
    const nw = tileAt(Math.min(...lons), Math.max(...lats), 9), se = tileAt(Math.max(...lons), Math.min(...lats), 9);
    let total = 0, tiles = 0;
    for (let x = nw.x; x <= se.x; x++) for (let y = nw.y; y <= se.y; y++) {
      const [layer] = await tile(`/tiles/stops/9/${x}/${y}.pbf`);
      tiles++;
      for (const f of layer?.features ?? []) total += f.props.count as number;
    }
    expect(tiles).toBeGreaterThan(1);
    expect(total).toBe(withPos.filter((s) => (s.location_type ?? 0) === 0).length);
    expect(stationLayer?.features.length ?? 0).toBe(catalogStations);
  });

  test("OTP2's path (/otp/routers/default/vectorTiles) serves the same tiles and a TileJSON pointing there, without a key", async () => {
    const embr = stops.find((s) => s.stop_id === "EMBR")!;
    const [lon, lat] = embr.geometry.coordinates as [number, number];
    const t = tileAt(lon, lat, 14);
    const ours = new Uint8Array(await (await fetch(`${server.url}/tiles/stops,stations/${t.z}/${t.x}/${t.y}.pbf`)).arrayBuffer());
    const r = await fetch(`${server.url}/otp/routers/default/vectorTiles/stops,stations/${t.z}/${t.x}/${t.y}.pbf`);
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toBe("application/vnd.mapbox-vector-tile");
    expect(ours.byteLength).toBeGreaterThan(0);
    expect(new Uint8Array(await r.arrayBuffer())).toEqual(ours);
    const tj = (await (await fetch(`${server.url}/otp/routers/default/vectorTiles/stops,stations/tilejson.json`)).json()) as Json;
    expect(tj.tiles).toHaveLength(1);
    expect(tj.tiles[0]).toEndWith("/otp/routers/default/vectorTiles/stops,stations/{z}/{x}/{y}.pbf");
    const bad = await fetch(`${server.url}/otp/routers/default/vectorTiles/nope/1/0/0.pbf`);
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as Json).parameter).toBe("layers");
  });

  test("a tile far from the data is empty; the TileJSON names the layers and the tile URL", async () => {
    const r = await fetch(`${server.url}/tiles/stops/10/0/0.pbf`);
    expect(r.status).toBe(200);
    expect((await r.arrayBuffer()).byteLength).toBe(0);
    const tj = (await (await fetch(`${server.url}/tiles/stops,stations/tilejson.json`)).json()) as Json;
    expect(tj.tilejson).toBe("3.0.0");
    expect(tj.tiles[0]).toEndWith("/tiles/stops,stations/{z}/{x}/{y}.pbf");
    expect(tj.vector_layers.map((l: Json) => l.id)).toEqual(["stops", "stations"]);
    const [w, s, e, n] = tj.bounds as number[];
    expect(w).toBeLessThan(-122);
    expect(e).toBeGreaterThan(w!);
    expect(n).toBeGreaterThan(s!);
  });

  test("routes: each route's most used shape as clipped, simplified LineStrings with its properties", async () => {
    const all = (await api("/api/v2/rest/routes?limit=1000&include_geometry=true")).routes as Json[];
    const withGeom = all.filter((r) => r.geometry?.coordinates?.length);
    expect(withGeom.length).toBeGreaterThan(0);
    // zoom 0: every route that has a shape, once
    const [z0] = await tile("/tiles/routes/0/0/0.pbf");
    expect(z0!.name).toBe("routes");
    expect(z0!.features.length).toBe(withGeom.length);
    const route = withGeom.find((r) => r.route_short_name || r.route_long_name)!;
    // the catalog's first line is the most used shape (the same rule)
    const line = (route.geometry.type === "MultiLineString" ? route.geometry.coordinates[0] : route.geometry.coordinates) as [number, number][];
    const [lon, lat] = line[Math.floor(line.length / 2)]!;
    const z = 13;
    const t = tileAt(lon, lat, z);
    const [layer] = await tile(`/tiles/routes/${t.z}/${t.x}/${t.y}.pbf`);
    const f = layer!.features.find((x) => x.props.gtfsId === `${route.feed_version.feed.onestop_id}:${route.route_id}`);
    expect(f).toBeDefined();
    expect(f!.type).toBe(2);
    expect(f!.props.shortName ?? null).toBe(route.route_short_name ?? null);
    expect(f!.props.longName ?? null).toBe(route.route_long_name ?? null);
    expect(f!.props.type).toBe(route.route_type);
    expect(f!.props.color ?? null).toBe(route.route_color ?? null);
    expect(f!.props.textColor ?? null).toBe(route.route_text_color ?? null);
    // decode MoveTo/LineTo commands into vertices
    const verts: [number, number][] = [];
    let cx = 0, cy = 0, i = 0, moves = 0;
    const g = f!.geometry;
    while (i < g.length) {
      const cmd = g[i]! & 7, count = g[i]! >> 3;
      i++;
      expect([1, 2]).toContain(cmd);
      if (cmd === 1) { expect(count).toBe(1); moves++; }
      for (let k = 0; k < count; k++) {
        cx += unzig(g[i]!); cy += unzig(g[i + 1]!);
        i += 2;
        verts.push([cx, cy]);
      }
    }
    expect(moves).toBeGreaterThan(0);
    expect(verts.length).toBeGreaterThan(moves);
    // the shape in this tile's units
    const shape = line.map(([lo, la]) => { const [wx, wy] = worldXY(lo, la); return [wx * 2 ** z * 4096 - t.x * 4096, wy * 2 ** z * 4096 - t.y * 4096] as const; });
    const distToShape = ([px, py]: [number, number]) => {
      let best = Infinity;
      for (let k = 0; k + 1 < shape.length; k++) {
        const [ax, ay] = shape[k]!, [bx, by] = shape[k + 1]!;
        const dx = bx - ax, dy = by - ay, l2 = dx * dx + dy * dy;
        const u = l2 ? Math.max(0, Math.min(1, ((px - ax) * dx + (py - ay) * dy) / l2)) : 0;
        best = Math.min(best, Math.hypot(px - ax - u * dx, py - ay - u * dy));
      }
      return best;
    };
    for (const v of verts) {
      // on the shape within rounding (a vertex is a shape point or a cut at the buffer's edge)
      expect(distToShape(v)).toBeLessThanOrEqual(1);
      // clipped: inside the tile plus its 64-unit buffer
      expect(v[0]).toBeGreaterThanOrEqual(-65); expect(v[0]).toBeLessThanOrEqual(4096 + 65);
      expect(v[1]).toBeGreaterThanOrEqual(-65); expect(v[1]).toBeLessThanOrEqual(4096 + 65);
    }
    // simplified: every shape point inside the tile is within ~1 unit (+ rounding) of the drawn line
    const segs: [number, number][][] = [];
    { let k = 0, cur: [number, number][] = []; cx = 0; cy = 0;
      while (k < g.length) { const cmd = g[k]! & 7, count = g[k]! >> 3; k++;
        if (cmd === 1 && cur.length) { segs.push(cur); cur = []; }
        for (let j = 0; j < count; j++) { cx += unzig(g[k]!); cy += unzig(g[k + 1]!); k += 2; cur.push([cx, cy]); } }
      if (cur.length) segs.push(cur); }
    const distToDrawn = (px: number, py: number) => {
      let best = Infinity;
      for (const s of segs) for (let k = 0; k + 1 < s.length; k++) {
        const [ax, ay] = s[k]!, [bx, by] = s[k + 1]!;
        const dx = bx - ax, dy = by - ay, l2 = dx * dx + dy * dy;
        const u = l2 ? Math.max(0, Math.min(1, ((px - ax) * dx + (py - ay) * dy) / l2)) : 0;
        best = Math.min(best, Math.hypot(px - ax - u * dx, py - ay - u * dy));
      }
      return best;
    };
    const inside = shape.filter(([x, y]) => x >= 0 && x <= 4096 && y >= 0 && y <= 4096);
    expect(inside.length).toBeGreaterThan(0);
    for (const [x, y] of inside) expect(distToDrawn(x, y)).toBeLessThanOrEqual(2);
    // a tile far away has no routes
    expect((await (await fetch(`${server.url}/tiles/routes/10/0/0.pbf`)).arrayBuffer()).byteLength).toBe(0);
    const tj = (await (await fetch(`${server.url}/tiles/stops,routes/tilejson.json`)).json()) as Json;
    expect(tj.vector_layers.map((l: Json) => l.id)).toEqual(["stops", "routes"]);
    expect(Object.keys(tj.vector_layers[1].fields).sort()).toEqual(["color", "gtfsId", "longName", "shortName", "textColor", "type"]);
  });

  test("bad input: 400 or 404 with a clear body, never 500", async () => {
    const cases: [string, number, string][] = [
      ["/tiles/roads/1/0/0.pbf", 400, "unknown layer"],
      ["/tiles/stops/23/0/0.pbf", 400, "beyond"],
      ["/tiles/stops/a/0/0.pbf", 400, "integer"],
      ["/tiles/stops/1/-1/0.pbf", 400, "integer"],
      ["/tiles/stops/1/2/0.pbf", 400, "below"],
      ["/tiles/stops/1/0/1.5.pbf", 400, "integer"],
      ["/tiles/stops/1/0/0.png", 404, ".pbf"],
      ["/tiles/stops/99999999999999999999/0/0.pbf", 400, "integer"],
      ["/tiles/nope/tilejson.json", 400, "unknown layer"],
    ];
    for (const [path, status, text] of cases) {
      const r = await fetch(server.url + path);
      const body = await r.text();
      expect(r.status, path).toBe(status);
      expect(body, path).toContain(text);
    }
  });

  test("a cached tile answers in ≤ 5 ms p50 (wall clock over HTTP)", async () => {
    const t = tileAt(-122.4, 37.79, 12);
    const path = `/tiles/stops,stations/${t.z}/${t.x}/${t.y}.pbf`;
    await fetch(server.url + path);
    const ms: number[] = [];
    for (let i = 0; i < 50; i++) {
      const t0 = performance.now();
      await (await fetch(server.url + path)).arrayBuffer();
      ms.push(performance.now() - t0);
    }
    ms.sort((a, b) => a - b);
    expect(ms[25]!).toBeLessThan(5);
  });
});

describe("vector tiles of the street background", () => {
  test("streets: the street dataset's roads with their class (major roads from zoom 8, all from zoom 12), clipped to the tile", async () => {
    const dir = await streetDataset("tiles-monaco", ["monaco"]);
    const entry = activeStreets(readManifest(dir))!;
    const fc = JSON.parse(gunzipSync(readFileSync(join(dir, entry.path, STREET_LAYOUT.map))).toString()) as Json;
    const set = await buildTileSet(dir);
    const road = fc.features[Math.floor(fc.features.length / 2)] as Json;
    const [lon, lat] = road.geometry.coordinates[0] as [number, number];
    const t = tileAt(lon, lat, 15);
    const [layer] = decode(tileOf(set, ["streets"], t.z, t.x, t.y));
    expect(layer!.name).toBe("streets");
    expect(layer!.features.length).toBeGreaterThan(0);
    for (const f of layer!.features) {
      expect(f.type).toBe(2);
      expect(["major", "minor", "path"]).toContain(f.props.class as string);
      let cx = 0, cy = 0, i = 0;
      while (i < f.geometry.length) {
        const count = f.geometry[i]! >> 3;
        i++;
        for (let k = 0; k < count; k++, i += 2) {
          cx += unzig(f.geometry[i]!); cy += unzig(f.geometry[i + 1]!);
          expect(cx).toBeGreaterThanOrEqual(-65); expect(cx).toBeLessThanOrEqual(4096 + 65);
          expect(cy).toBeGreaterThanOrEqual(-65); expect(cy).toBeLessThanOrEqual(4096 + 65);
        }
      }
    }
    // the road's class is among those drawn in its tile
    expect(layer!.features.map((f) => f.props.class)).toContain(road.properties.class);
    // zooms 8-11: major roads only; below zoom 8 the layer is empty
    const low = tileAt(lon, lat, 11);
    const lowLayer = decode(tileOf(set, ["streets"], low.z, low.x, low.y))[0];
    expect(fc.features.filter((f: Json) => f.properties.class === "major").length).toBeGreaterThan(0);
    expect(lowLayer!.features.length).toBeGreaterThan(0);
    for (const f of lowLayer!.features) expect(f.props.class).toBe("major");
    const lower = tileAt(lon, lat, 7);
    expect(tileOf(set, ["streets"], lower.z, lower.x, lower.y).byteLength).toBe(0);
  });
});

describe("vector tiles of entrances", () => {
  test("entrances, generic nodes and boarding areas (location_type 2-4): their own layer, never thinned, as stops.txt has them", async () => {
    const dir = await importedDataset("tiles-bart-2023", ["bart-2023"], { timetable: false });
    const set = await buildTileSet(dir);
    const rows = gtfsFeed(gtfs("bart-2023")).table("stops").filter((r) => ["2", "3", "4"].includes(r.location_type ?? "") && r.stop_lat && r.stop_lon);
    expect(rows.length).toBeGreaterThan(50);
    const [layer] = decode(tileOf(set, ["entrances"], 0, 0, 0));
    expect(layer!.name).toBe("entrances");
    const got = layer!.features.map((f) => [String(f.props.gtfsId).split(":").slice(1).join(":"), f.props.locationType, f.props.parentStation ? String(f.props.parentStation).split(":").slice(1).join(":") : null]);
    expect(got.sort()).toEqual(rows.map((r) => [r.stop_id!, Number(r.location_type), r.parent_station || null]).sort());
    // not in the stops layer
    const stops = decode(tileOf(set, ["stops"], 14, ...xyAt(rows[0]!, 14)))[0];
    expect((stops?.features ?? []).map((f) => f.props.gtfsId)).not.toContain(layer!.features.find((f) => String(f.props.gtfsId).endsWith(`:${rows[0]!.stop_id}`))!.props.gtfsId);
  });
});

function xyAt(r: Record<string, string>, z: number): [number, number] {
  const t = tileAt(Number(r.stop_lon), Number(r.stop_lat), z);
  return [t.x, t.y];
}
