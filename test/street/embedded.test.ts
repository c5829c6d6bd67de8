/**
 * FEATURE UNDER TEST: the embedded engine (the real Valhalla 3.6.1 from npm, in the server's
 * process) behind the gateway, over street datasets built by the pipeline: every action answers
 * exactly as the engine itself does on two extracts; heights at known points; the 10-minute
 * walking isochrone agrees with routes; what the gateway rewrites or refuses for this engine
 * (FeatureCollection exclude_polygons, format pbf); a new street dataset swapped in while serving;
 * catalog and plan requests answered while large expansions run; @routingjs/valhalla unchanged.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { basename } from "node:path";
import { Valhalla } from "@routingjs/valhalla";
import { importStreets } from "../../pipeline/street/import-streets.ts";
import { activeStreets, readManifest } from "../../pipeline/schema/manifest.ts";
import { engineConfig, METHOD, openActor, type ActorLike } from "../../server/street/embedded.ts";
import { engineErrorFromMessage } from "../../server/street/engine-errors.ts";
import type { StreetAction } from "../../server/street/schemas/index.ts";
import { haversineM } from "../../shared/geo.ts";
import { osm, streetDataset, tempDir } from "../support/dataset.ts";
import { type Gateway, startGateway } from "../support/street-server.ts";

type P = { lat: number; lon: number };

/** The same request sent to the engine directly: its answer as the gateway should relay it. */
async function direct(actor: ActorLike, action: StreetAction, body: unknown): Promise<{ status: number; text: string }> {
  try {
    return { status: 200, text: await actor[METHOD[action]]!(JSON.stringify(body)) };
  } catch (e) {
    const err = engineErrorFromMessage(action, (e as Error).message);
    return { status: err.status_code, text: JSON.stringify(err) };
  }
}

async function engineFor(dataDir: string): Promise<ActorLike> {
  return openActor(engineConfig(dataDir, activeStreets(readManifest(dataDir))!, { allowHardExclusions: false }));
}

/** A request of each action between/around two points of an extract. */
function requests(a: P, b: P): [StreetAction, Record<string, unknown>][] {
  const mid = { lat: (a.lat + b.lat) / 2, lon: (a.lon + b.lon) / 2 };
  return [
    ["status", {}],
    ["route", { locations: [a, b], costing: "pedestrian" }],
    ["route", { locations: [a, b], costing: "auto", directions_type: "maneuvers", units: "miles" }],
    ["route", { locations: [a, mid, b], costing: "bicycle", format: "osrm" }],
    ["route", { locations: [a, b], costing: "auto", format: "gpx" }],
    ["isochrone", { locations: [a], costing: "pedestrian", contours: [{ time: 5 }, { time: 10 }], polygons: true, show_locations: true }],
    ["isochrone", { locations: [a, b], costing: "auto", contours: [{ distance: 1 }, { distance: 2 }, { distance: 3 }, { distance: 4 }, { distance: 5 }] }],
    ["expansion", { action: "isochrone", locations: [a], costing: "pedestrian", contours: [{ time: 3 }], expansion_properties: ["duration", "distance"] }],
    ["expansion", { action: "route", locations: [a, b], costing: "auto", dedupe: true }],
    ["height", { shape: [a, mid, b], range: true, height_precision: 1 }],
    ["height", { shape: [a, b], resample_distance: 50 }],
    ["locate", { locations: [a, b], costing: "pedestrian", verbose: true }],
    ["centroid", { locations: [a, b, mid], costing: "auto" }],
    ["sources_to_targets", { sources: [a, mid], targets: [b, mid], costing: "pedestrian" }],
    ["optimized_route", { locations: [a, b, mid, a], costing: "auto" }],
    ["trace_route", { shape: [a, mid, b], costing: "auto", shape_match: "map_snap" }],
    ["trace_attributes", { shape: [a, mid, b], costing: "pedestrian", shape_match: "walk_or_snap", filters: { attributes: ["edge.names", "edge.length"], action: "include" } }],
    // refusals only the engine can make: a point off the tiles, no path inside the polygons
    ["route", { locations: [a, { lat: 0.5, lon: 0.5 }], costing: "auto" }],
    ["isochrone", { locations: [{ lat: 0.5, lon: 0.5 }], costing: "pedestrian", contours: [{ time: 5 }] }],
  ];
}

const EXTRACTS: { name: string; extracts: string[]; elevation: string[]; a: P; b: P }[] = [
  { name: "sf", extracts: ["sf-downtown"], elevation: [], a: { lat: 37.7793, lon: -122.4193 }, b: { lat: 37.7895, lon: -122.3972 } },
  { name: "monaco", extracts: ["monaco"], elevation: ["N43E007.hgt.gz"], a: { lat: 43.7347, lon: 7.422 }, b: { lat: 43.7398, lon: 7.4268 } },
];

for (const x of EXTRACTS) {
  describe(`every action on ${x.name}, through the gateway and from the engine directly`, () => {
    let gw: Gateway;
    let actor: ActorLike;
    beforeAll(async () => {
      const data = await streetDataset(x.name, x.extracts, x.elevation);
      gw = await startGateway({ dataDir: data });
      actor = await engineFor(data);
    });
    afterAll(async () => {
      await gw?.stop();
    });

    test("byte for byte the same answer (POST, and GET with json=)", async () => {
      const seen = new Set<number>();
      for (const [action, body] of requests(x.a, x.b)) {
        const want = await direct(actor, action, body);
        seen.add(want.status);
        for (const res of [await gw.post(action, body), await gw.get(action, body)]) {
          const text = await res.text();
          expect({ action, body, status: res.status, text }).toEqual({ action, body, status: want.status, text: want.text });
          expect(res.headers.get("access-control-allow-origin")).toBe("*");
        }
      }
      expect([...seen].sort()).toEqual([200, 400]); // answers and refusals both compared
    }, 60_000);
  });
}

describe("heights", () => {
  let gw: Gateway;
  beforeAll(async () => {
    gw = await startGateway({ dataDir: await streetDataset("monaco", ["monaco"], ["N43E007.hgt.gz"]) });
  });
  afterAll(async () => {
    await gw?.stop();
  });

  test("Monaco's 3-arc-second tile gives real heights at surveyed points (not 0)", async () => {
    const points = [
      { name: "Port Hercule", at: { lat: 43.7347, lon: 7.422 }, min: -5, max: 25 },
      { name: "Prince's Palace, Monaco-Ville", at: { lat: 43.7314, lon: 7.4198 }, min: 38, max: 65 },
      { name: "upper Beausoleil", at: { lat: 43.749, lon: 7.418 }, min: 200, max: 500 },
    ];
    const res = await gw.post("height", { shape: points.map((p) => p.at) });
    expect(res.status).toBe(200);
    const { height } = (await res.json()) as { height: number[] };
    const got = points.map((p, i) => ({ name: p.name, ok: height[i]! >= p.min && height[i]! <= p.max, height: height[i] }));
    expect(got.map((g) => [g.name, g.ok])).toEqual(points.map((p) => [p.name, true]));
  });

  test("routes carry elevation where the dataset has it", async () => {
    const res = await gw.post("route", { locations: [{ lat: 43.7347, lon: 7.422 }, { lat: 43.7314, lon: 7.4198 }], costing: "pedestrian", elevation_interval: 30 });
    const trip = ((await res.json()) as { trip: { legs: { elevation?: number[] }[] } }).trip;
    const elevation = trip.legs[0]!.elevation!;
    expect(elevation.length).toBeGreaterThan(3);
    expect(Math.max(...elevation) - Math.min(...elevation)).toBeGreaterThan(20); // up onto the Rock
  });

  test("resample_distance below the engine's 10 m default is allowed, 0 means none, and a huge count is refused first", async () => {
    const shape = [{ lat: 43.7347, lon: 7.422 }, { lat: 43.7314, lon: 7.4198 }];
    const fine = (await (await gw.post("height", { shape, resample_distance: 2 })).json()) as { height: number[] };
    expect(fine.height.length).toBeGreaterThan(150);
    const none = (await (await gw.post("height", { shape, resample_distance: 0 })).json()) as { height: number[] };
    expect(none.height).toHaveLength(2);
    const huge = await gw.post("height", { shape: [{ lat: 43, lon: 7 }, { lat: 44, lon: 8 }], resample_distance: 0.1 });
    expect(huge.status).toBe(400);
    expect(((await huge.json()) as { error_code: number }).error_code).toBe(314);
  });
});

/** Point in polygon (ray casting over all rings) and distance in metres to its boundary. */
function inside(rings: [number, number][][], p: P): boolean {
  let c = false;
  for (const r of rings) {
    for (let i = 0, j = r.length - 1; i < r.length; j = i++) {
      const [xi, yi] = r[i]!;
      const [xj, yj] = r[j]!;
      if (yi > p.lat !== yj > p.lat && p.lon < ((xj - xi) * (p.lat - yi)) / (yj - yi) + xi) c = !c;
    }
  }
  return c;
}
function boundaryDistanceM(rings: [number, number][][], p: P): number {
  const kx = (Math.PI / 180) * 6371008.8 * Math.cos((p.lat * Math.PI) / 180);
  const ky = (Math.PI / 180) * 6371008.8;
  let best = Infinity;
  for (const r of rings) {
    for (let i = 1; i < r.length; i++) {
      const ax = (r[i - 1]![0] - p.lon) * kx, ay = (r[i - 1]![1] - p.lat) * ky;
      const bx = (r[i]![0] - p.lon) * kx, by = (r[i]![1] - p.lat) * ky;
      const dx = bx - ax, dy = by - ay;
      const t = Math.max(0, Math.min(1, -(ax * dx + ay * dy) / (dx * dx + dy * dy || 1)));
      best = Math.min(best, Math.hypot(ax + t * dx, ay + t * dy));
    }
  }
  return best;
}

describe("isochrone against routes", () => {
  let gw: Gateway;
  beforeAll(async () => {
    gw = await startGateway({ dataDir: await streetDataset("rnv", ["rnv-mannheim-heidelberg"], [], ["rnv"]) });
  }, 120_000);
  afterAll(async () => {
    await gw?.stop();
  });

  test("points well inside the 10-minute walking contour are within 10 minutes by route; points well outside are not", async () => {
    const origin = { lat: 49.4875, lon: 8.466 }; // Mannheim, the Quadrate
    const res = await gw.post("isochrone", { locations: [origin], costing: "pedestrian", contours: [{ time: 10 }], polygons: true });
    const fc = (await res.json()) as { features: { geometry: { type: string; coordinates: unknown } }[] };
    const g = fc.features[0]!.geometry;
    const rings = (g.type === "Polygon" ? (g.coordinates as [number, number][][]) : (g.coordinates as [number, number][][][]).flat()) as [number, number][][];
    let checkedIn = 0, checkedOut = 0;
    const wrong: string[] = [];
    // a 100 m grid over 2.4 km around the origin
    for (let dy = -1200; dy <= 1200; dy += 100) {
      for (let dx = -1200; dx <= 1200; dx += 100) {
        const p = { lat: origin.lat + dy / 111_195, lon: origin.lon + dx / (111_195 * Math.cos((origin.lat * Math.PI) / 180)) };
        const isIn = inside(rings, p);
        const d = boundaryDistanceM(rings, p);
        if (d < (isIn ? 120 : 250)) continue; // near the edge: snapping decides, not the engine
        const r = await gw.post("route", { locations: [origin, p], costing: "pedestrian", directions_type: "none" });
        if (r.status !== 200) {
          await r.body?.cancel();
          continue; // no street near the point (the river, a rail yard)
        }
        const t = ((await r.json()) as { trip: { summary: { time: number } } }).trip.summary.time;
        if (isIn) checkedIn++;
        else checkedOut++;
        if (isIn ? t > 600 : t <= 600) wrong.push(`${isIn ? "inside" : "outside"} ${d.toFixed(0)} m from the edge, ${haversineM(origin.lat, origin.lon, p.lat, p.lon).toFixed(0)} m away: ${t} s`);
      }
    }
    expect(wrong).toEqual([]);
    expect(checkedIn).toBeGreaterThan(30);
    expect(checkedOut).toBeGreaterThan(100);
  }, 60_000);
});

describe("what the gateway does for this engine", () => {
  let gw: Gateway;
  let actor: ActorLike;
  const a = { lat: 37.7793, lon: -122.4193 };
  const b = { lat: 37.7895, lon: -122.3972 };
  beforeAll(async () => {
    const data = await streetDataset("sf", ["sf-downtown"]);
    gw = await startGateway({ dataDir: data });
    actor = await engineFor(data);
  });
  afterAll(async () => {
    await gw?.stop();
  });

  test("exclude_polygons as a FeatureCollection is honoured like the ring form (3.6.1 alone ignores it)", async () => {
    // a box around the middle of the direct route
    const route = (await direct(actor, "route", { locations: [a, b], costing: "auto", directions_type: "none" })).text;
    const box: [number, number][] = [[-122.4095, 37.7835], [-122.4045, 37.7835], [-122.4045, 37.7865], [-122.4095, 37.7865], [-122.4095, 37.7835]];
    const asRings = await direct(actor, "route", { locations: [a, b], costing: "auto", directions_type: "none", exclude_polygons: [box] });
    const engineAlone = await direct(actor, "route", { locations: [a, b], costing: "auto", directions_type: "none", exclude_polygons: { type: "FeatureCollection", features: [{ type: "Feature", properties: {}, geometry: { type: "Polygon", coordinates: [box] } }] } });
    expect(asRings.text).not.toBe(route); // the box is on the way
    expect(JSON.parse(engineAlone.text).trip.warnings?.[0]?.code).toBe(204); // what 3.6.1 does with the spec's form
    const res = await gw.post("route", { locations: [a, b], costing: "auto", directions_type: "none", exclude_polygons: { type: "FeatureCollection", features: [{ type: "Feature", properties: {}, geometry: { type: "Polygon", coordinates: [box] } }] } });
    expect(await res.text()).toBe(asRings.text);
    const withLevels = await gw.post("route", { locations: [a, b], costing: "pedestrian", directions_type: "none", exclude_polygons: { type: "FeatureCollection", features: [{ type: "Feature", properties: { levels: [1] }, geometry: { type: "Polygon", coordinates: [box] } }] } });
    const body = (await withLevels.json()) as { warnings: { code: number; text: string }[] };
    expect(body.warnings.map((w) => w.code)).toEqual([900]);
  });

  test("format pbf is refused with a clear 400 (the binding cannot pass protobuf through); osrm and gpx pass", async () => {
    const res = await gw.post("route", { locations: [a, b], costing: "auto", format: "pbf" });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error_code: number; error: string; status: string };
    expect(body).toMatchObject({ error_code: 199, status: "Bad Request" });
    expect(body.error).toContain("format pbf");
    expect((await gw.post("route", { locations: [a, b], costing: "auto", format: "gpx" })).headers.get("content-type")).toContain("gpx");
  });

  test("auto_pedestrian is refused with the reason, never answered as something else", async () => {
    const res = await gw.post("route", { locations: [a, b], costing: "auto_pedestrian" });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error_code: number; error: string };
    expect(body.error_code).toBe(125);
    expect(body.error).toContain("does not implement");
  });

  test("/health names the engine and its street dataset", async () => {
    const h = (await (await fetch(`${gw.url}/health`)).json()) as { features: { street: { engine: string; street_dataset: { osm: string[] } } } };
    expect(h.features.street.engine).toBe("embedded");
    // /health names source files, never their absolute paths
    expect(h.features.street.street_dataset.osm).toEqual([basename(osm("sf-downtown"))]);
  });
});

describe("@routingjs/valhalla, unchanged, against the server", () => {
  let gw: Gateway;
  beforeAll(async () => {
    gw = await startGateway({ dataDir: await streetDataset("sf", ["sf-downtown"]), keys: [{ key: "routingjs-test-key", account: "a" }] });
  });
  afterAll(async () => {
    await gw?.stop();
  });

  test("directions, reachability, matrix and map matching", async () => {
    const v = new Valhalla({ baseUrl: gw.street, headers: { apikey: "routingjs-test-key" } });
    const [a, b]: [number, number][] = [[37.7793, -122.4193], [37.7895, -122.3972]];
    const d = await v.directions([a, b], "pedestrian");
    expect(d.directions).toHaveLength(1);
    expect(d.directions[0]!.feature.properties.distance).toBeGreaterThan(2); // km
    expect(d.directions[0]!.feature.geometry!.coordinates.length).toBeGreaterThan(10);
    const iso = await v.reachability(a, "pedestrian", [300, 600]);
    expect(iso.isochrones).toHaveLength(2);
    const m = await v.matrix([a, b, [37.785, -122.41]], "pedestrian");
    expect(m.durations).toHaveLength(3);
    expect(m.durations[0]![1]).toBeGreaterThan(1000);
    const mm = await v.mapMatch([a, [37.7845, -122.4085], b], "auto");
    expect(mm.directions[0]!.feature.geometry!.coordinates.length).toBeGreaterThan(2);
    // errors reach the client as Valhalla errors with their code
    const err = await v.directions([a, [0.5, 0.5]], "auto").catch((e: { properties?: { errorCode?: number; statusCode?: number } }) => e);
    expect((err as { properties: { statusCode: number } }).properties.statusCode).toBe(400);
  }, 30_000);
});

describe("a new street dataset while serving", () => {
  test("is swapped in without a restart; requests before and after are answered", async () => {
    const data = tempDir();
    await importStreets({ dataDir: data, osm: [osm("monaco")] });
    const gw = await startGateway({ dataDir: data });
    try {
      const monaco = { locations: [{ lat: 43.7347, lon: 7.422 }, { lat: 43.7398, lon: 7.4268 }], costing: "pedestrian" };
      const beatty = { locations: [{ lat: 36.9036, lon: -116.7588 }, { lat: 36.9113, lon: -116.7563 }], costing: "auto" };
      expect((await gw.post("route", monaco)).status).toBe(200);
      expect((await gw.post("route", beatty)).status).toBe(400); // not in the tiles (171)
      const next = await importStreets({ dataDir: data, osm: [osm("beatty")] });
      let swapped = false;
      for (let i = 0; i < 100 && !swapped; i++) {
        await Bun.sleep(50);
        const h = (await (await fetch(`${gw.url}/health`)).json()) as { features: { street: { street_dataset: { sha1: string } } } };
        swapped = h.features.street.street_dataset.sha1 === next.sha1;
      }
      expect(swapped).toBe(true);
      expect((await gw.post("route", beatty)).status).toBe(200);
    } finally {
      await gw.stop();
    }
  }, 180_000);
});

describe("it does not block the server", () => {
  test("catalog and plan requests are answered while 20 large expansions run", async () => {
    const data = await streetDataset("rnv", ["rnv-mannheim-heidelberg"], [], ["rnv"]);
    // all 20 wait their turn (the default 2 s bound on the wait for a slot would answer most 503)
    const gw = await startGateway({ dataDir: data, engineWaitMs: 120_000 });
    try {
      const expansion = { action: "isochrone", locations: [{ lat: 49.4875, lon: 8.466 }], costing: "auto", contours: [{ time: 20 }] };
      const finished: number[] = [];
      const expansions = Array.from({ length: 20 }, async () => {
        const r = await gw.post("expansion", expansion);
        const size = (await r.arrayBuffer()).byteLength;
        finished.push(performance.now());
        return { status: r.status, size };
      });
      const answered: { what: string; status: number; at: number }[] = [];
      for (let i = 0; i < 5; i++) {
        const stops = await fetch(`${gw.url}/api/v2/rest/stops?bbox=8.4,49.4,8.6,49.6&limit=5`);
        await stops.text();
        answered.push({ what: "stops", status: stops.status, at: performance.now() });
        const plan = await fetch(`${gw.url}/api/v2/routing/otp/plan?fromPlace=49.4875,8.4660&toPlace=49.4093,8.6940&date=2016-11-02&time=08:00`);
        const itineraries = ((await plan.json()) as { plan?: { itineraries: unknown[] } }).plan?.itineraries.length ?? 0;
        answered.push({ what: `plan (${itineraries > 0 ? "itineraries" : "none"})`, status: plan.status, at: performance.now() });
      }
      const results = await Promise.all(expansions);
      expect(results.every((r) => r.status === 200 && r.size > 1_000_000)).toBe(true);
      const lastExpansion = Math.max(...finished);
      // every catalog and plan answer came back while expansions were still running
      expect(answered.map((a) => ({ what: a.what, status: a.status, beforeTheExpansionsEnded: a.at < lastExpansion }))).toEqual(
        answered.map((a) => ({ what: a.what.startsWith("plan") ? "plan (itineraries)" : "stops", status: 200, beforeTheExpansionsEnded: true })),
      );
    } finally {
      await gw.stop();
    }
  }, 120_000);
});
