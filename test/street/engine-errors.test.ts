/**
 * engineErrorFromMessage against the real embedded engine (@valhallajs/valhallajs 3.6.1): tiles are
 * built from the downtown San Francisco extract, then each request below makes the engine itself
 * refuse with a known code, and the rejection's message must map back to that code's body.
 *
 * Codes the engine cannot be made to produce from a request (3.6.1, checked in its sources), so
 * only their mapping is tested:
 * - 101, 103, 106, 107: HTTP/pbf plumbing; the Actor takes JSON for a fixed action.
 * - 102, 203, 402: a shutting-down prime_server; 199, 299, 499: the HTTP workers' wrapper of a
 *   foreign exception ("Unknown: ..."), which the Actor passes through bare (see "unrecognised").
 * - 121, 122: parse_locations throws 112 for empty sources/targets before these checks.
 * - 126: not thrown anywhere in 3.6.1.
 * - 159: every parsed shape point (JSON shape or encoded_polyline) gets a time (-1 if none), so
 *   "no timestamps present" never holds.
 * - 163: an out-of-range date_time.type is ignored by the JSON parser; only a pbf request carries one.
 * - 200-232: odin internals (pbf hand-off, trip-leg consistency, narrative builders).
 * - 400: thor's "Invalid shape_match value"; the parser answers 445 first.
 * - 401, 420-424: thor internals; 420-423 are never thrown, 424 only if meili measurements can't be
 *   built from shape that already parsed.
 * - 430: CostMatrix's iteration cap. 440: needs transit data (none in this dataset).
 * - 441: optimized_route checks each location's matrix row, but the row holds the location to itself
 *   (always reachable) and the last row is never checked; an unreachable stop gives 442 instead.
 * - 446: remote tile tar. 503: OSRM serializer's leg mismatch (internal). 504: this build serializes
 *   GeoTIFF. 599: serializer failures.
 * - 170 is only reachable with multimodal costing here: the extract is one tile per level, so the
 *   tile connectivity map has a single region for the road levels, and there are no transit tiles.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Actor } from "@valhallajs/valhallajs";
import { defaultValhallaConfig, runValhallaTool } from "../../pipeline/street/valhalla.ts";
import { type ValhallaConfig, withDatasetPaths } from "../../pipeline/schema/street.ts";
import { ENGINE_ERRORS, engineErrorFromMessage, httpReason } from "../../server/street/engine-errors.ts";
import { ENGINE_TEXT } from "../../server/street/codes.ts";
import { SHARED } from "../support/dataset.ts";

const OSM = join(SHARED, "data", "osm", "sf-downtown.osm.pbf");

/** HTTP action → the Actor method serving it, and the method name its rejections start with. */
const METHODS = {
  route: ["route", "Route"],
  locate: ["locate", "Locate"],
  sources_to_targets: ["matrix", "Matrix"],
  optimized_route: ["optimizedRoute", "OptimizedRoute"],
  isochrone: ["isochrone", "Isochrone"],
  trace_route: ["traceRoute", "TraceRoute"],
  trace_attributes: ["traceAttributes", "TraceAttributes"],
  height: ["height", "Height"],
  transit_available: ["transitAvailable", "TransitAvailable"],
  expansion: ["expansion", "Expansion"],
  centroid: ["centroid", "Centroid"],
  status: ["status", "Status"],
} as const;
type Action = keyof typeof METHODS;

const A = { lat: 37.7793, lon: -122.4193 };
const B = { lat: 37.7895, lon: -122.3972 };
const C = { lat: 37.785, lon: -122.41 };
const near = (i: number) => ({ lat: A.lat + i * 0.0001, lon: A.lon - i * 0.0001 });
const FAR = { lat: 40.7, lon: -74.0 }; // New York: no edges within reach
const BAD = { lat: "x", lon: -122.4193 };

/** Four bars framing B: every way into B's block is excluded, B itself is not. */
const FRAME = (() => {
  const h = 0.002, w = 0.0012;
  const rect = (la0: number, la1: number, lo0: number, lo1: number) => [[lo0, la0], [lo1, la0], [lo1, la1], [lo0, la1], [lo0, la0]];
  const { lat, lon } = B;
  return [
    rect(lat + h, lat + h + w, lon - h - w, lon + h + w),
    rect(lat - h - w, lat - h, lon - h - w, lon + h + w),
    rect(lat - h - w, lat + h + w, lon - h - w, lon - h),
    rect(lat - h - w, lat + h + w, lon + h, lon + h + w),
  ];
})();

interface Case {
  code: number;
  action: Action;
  /** request JSON (a string is sent as is) */
  body: unknown;
  /** use the engine with tightened service limits */
  tight?: true;
  /** what the mapped `error` must equal, when the detail is worth pinning */
  error?: string;
}

const route = (extra: object) => ({ costing: "auto", locations: [A, B], ...extra });

const CASES: Case[] = [
  { code: 100, action: "route", body: "{not json" },
  { code: 110, action: "route", body: { costing: "auto" } },
  { code: 110, action: "locate", body: { costing: "auto" } },
  { code: 110, action: "centroid", body: { costing: "auto" } },
  { code: 110, action: "isochrone", body: { costing: "auto", contours: [{ time: 5 }] } },
  { code: 111, action: "isochrone", body: { costing: "auto", locations: [A], contours: [{ color: "ff0000" }] } },
  { code: 112, action: "sources_to_targets", body: { costing: "auto" } },
  { code: 112, action: "sources_to_targets", body: { costing: "auto", sources: [A] } },
  { code: 112, action: "optimized_route", body: { costing: "auto" } },
  { code: 113, action: "isochrone", body: { costing: "auto", locations: [A] } },
  { code: 114, action: "trace_route", body: { costing: "auto" } },
  { code: 114, action: "trace_attributes", body: { costing: "auto" } },
  { code: 115, action: "expansion", body: route({}), error: "Insufficiently specified required parameter 'action': action" },
  { code: 120, action: "route", body: { costing: "auto", locations: [A] } },
  { code: 120, action: "optimized_route", body: { costing: "auto", locations: [A] } },
  { code: 120, action: "centroid", body: { costing: "auto", locations: [A] } },
  { code: 120, action: "transit_available", body: {} },
  { code: 123, action: "trace_route", body: { costing: "auto", shape: [A] } },
  { code: 124, action: "route", body: { locations: [A, B] } },
  { code: 125, action: "route", body: route({ costing: "auto_pedestrian" }), error: "No costing method found: 'auto_pedestrian'" },
  { code: 127, action: "route", body: route({ recostings: [{ name: "a" }] }) },
  { code: 128, action: "route", body: route({ recostings: [{ costing: "auto", name: "a" }, { costing: "auto", name: "a" }] }) },
  { code: 130, action: "route", body: { costing: "auto", locations: [BAD, B] } },
  { code: 130, action: "route", body: { costing: "auto", locations: [{ lat: 97, lon: 0 }, B] } },
  { code: 130, action: "locate", body: { costing: "auto", locations: [BAD] } },
  { code: 131, action: "sources_to_targets", body: { costing: "auto", sources: [BAD], targets: [A] } },
  { code: 132, action: "sources_to_targets", body: { costing: "auto", sources: [A], targets: [BAD] } },
  { code: 133, action: "route", body: route({ exclude_locations: [BAD] }) },
  { code: 133, action: "route", body: route({ avoid_locations: [BAD] }) },
  { code: 134, action: "height", body: { shape: [BAD] } },
  { code: 134, action: "trace_route", body: { costing: "auto", shape: [BAD, B] } },
  { code: 135, action: "trace_attributes", body: { costing: "auto", trace: [{ lat: "x" }] } },
  { code: 136, action: "trace_route", body: { costing: "auto", durations: [1, 2, 3], shape: [A, near(1)] } },
  { code: 137, action: "route", body: route({ exclude_polygons: [[[1, "x"], [2, 3]]] }) },
  { code: 140, action: "sources_to_targets", body: { costing: "multimodal", sources: [A], targets: [B] }, error: "Action does not support multimodal costing: sources_to_targets" },
  { code: 141, action: "route", body: route({ costing: "multimodal", date_time: { type: 2, value: "2024-01-01T08:00" } }) },
  { code: 142, action: "isochrone", body: { costing: "auto", locations: [A], contours: [{ time: 5 }], date_time: { type: 2, value: "2024-01-01T08:00" } } },
  { code: 143, action: "route", body: { costing: "auto", costing_options: { auto: { ignore_closures: true } }, locations: [{ ...A, search_filter: { exclude_closures: true } }, B] } },
  { code: 144, action: "expansion", body: route({ action: "locate" }), error: "Action does not support expansion: locate" },
  { code: 150, action: "isochrone", body: { costing: "auto", locations: [A, B], contours: [{ time: 5 }] }, error: "Exceeded max locations: 1" },
  { code: 150, action: "route", body: { costing: "auto", locations: [A, near(1), near(2)] }, tight: true, error: "Exceeded max locations: 2" },
  { code: 150, action: "optimized_route", body: { costing: "auto", locations: [A, near(1), near(2)] }, tight: true, error: "Exceeded max locations: 2.000000" },
  { code: 150, action: "sources_to_targets", body: { costing: "auto", sources: [A, near(1), near(2)], targets: [near(3)] }, tight: true },
  { code: 150, action: "centroid", body: { costing: "auto", locations: [A, near(1), near(2)] }, tight: true },
  { code: 151, action: "isochrone", body: { costing: "auto", locations: [A], contours: [{ time: 500 }] }, error: "Exceeded max time: 120" },
  { code: 152, action: "isochrone", body: { costing: "auto", locations: [A], contours: [1, 2, 3, 4, 5].map((time) => ({ time })) }, error: "Exceeded max contours: 4" },
  { code: 153, action: "trace_route", body: { costing: "auto", shape: [A, near(1), near(2), near(3)] }, tight: true, error: "Too many shape points: (4). The limit is 3" },
  { code: 154, action: "route", body: route({}), tight: true, error: "Path distance exceeds the max distance limit: 500 meters" },
  { code: 154, action: "sources_to_targets", body: { costing: "auto", sources: [A], targets: [B] }, tight: true },
  { code: 154, action: "trace_route", body: { costing: "auto", shape: [A, B] }, tight: true },
  { code: 154, action: "isochrone", body: { costing: "auto", locations: [A, B], contours: [{ time: 5 }] }, tight: true },
  { code: 155, action: "route", body: route({ costing: "multimodal", costing_options: { pedestrian: { transit_start_end_max_distance: 100000 } } }), error: "Outside the valid walking distance at the beginning or end of a multimodal route:  Min: 1 Max: 10000 (Meters)" },
  { code: 156, action: "route", body: route({ costing: "multimodal", costing_options: { pedestrian: { transit_transfer_max_distance: 0 } } }) },
  { code: 157, action: "route", body: { costing: "auto", exclude_locations: [C, near(5)], locations: [A, near(3)] }, tight: true, error: "Exceeded max avoid locations: 1" },
  { code: 158, action: "trace_route", body: { costing: "auto", trace_options: { gps_accuracy: 1000 }, shape: [A, near(1)] } },
  { code: 160, action: "route", body: route({ date_time: { type: 1, value: "" } }) },
  { code: 161, action: "route", body: route({ date_time: { type: 2, value: "" } }) },
  { code: 162, action: "route", body: route({ date_time: { type: 1, value: "tomorrow" } }) },
  { code: 164, action: "route", body: route({ shape_format: "nope" }) },
  { code: 164, action: "height", body: { shape_format: "no_shape", shape: [A] } },
  { code: 165, action: "route", body: route({ date_time: { type: 3, value: "" } }) },
  { code: 166, action: "isochrone", body: { costing: "auto", locations: [A], contours: [{ distance: 500 }] }, error: "Exceeded max distance: 200" },
  { code: 166, action: "expansion", body: { action: "isochrone", costing: "auto", locations: [A], contours: [{ distance: 500 }] }, error: "Exceeded max distance: 200" },
  { code: 167, action: "route", body: { costing: "auto", exclude_polygons: [FRAME[0]], locations: [A, near(3)] }, tight: true, error: "Exceeded maximum circumference for exclude_polygons: 100 meters" },
  { code: 168, action: "expansion", body: route({ action: "route", expansion_properties: ["nope"] }), error: "Invalid expansion property type: nope" },
  { code: 170, action: "route", body: route({ costing: "multimodal" }) },
  { code: 171, action: "route", body: { costing: "auto", locations: [A, FAR] } },
  { code: 171, action: "isochrone", body: { costing: "auto", locations: [FAR], contours: [{ time: 5 }] } },
  { code: 171, action: "trace_route", body: { costing: "auto", shape: [FAR, { lat: 40.71, lon: -74.0 }] } },
  { code: 172, action: "trace_route", body: { costing: "auto", shape: [A, B] }, error: "Exceeded breakage distance for all pairs: 2000 meters" },
  { code: 312, action: "height", body: {} },
  { code: 312, action: "height", body: { encoded_polyline: 123 } },
  { code: 313, action: "height", body: { shape: [A, B], resample_distance: 1 }, error: "'resample_distance' must be >= :  10.000000 meters" },
  { code: 314, action: "height", body: { shape: [A, near(1), near(2)] }, tight: true, error: "Too many shape points:  (3). The limit is 2" },
  { code: 442, action: "route", body: route({ exclude_polygons: FRAME }) },
  { code: 442, action: "optimized_route", body: { costing: "auto", exclude_polygons: FRAME, locations: [A, C, B] } },
  { code: 442, action: "sources_to_targets", body: { costing: "auto", exclude_polygons: FRAME, sources: [A], targets: [B] } },
  { code: 443, action: "trace_route", body: { costing: "auto", shape_match: "edge_walk", shape: [A, { lat: 37.78, lon: -122.41 }] } },
  { code: 443, action: "trace_attributes", body: { costing: "auto", shape_match: "edge_walk", shape: [A, { lat: 37.78, lon: -122.41 }] } },
  { code: 444, action: "trace_attributes", body: { costing: "auto", shape_match: "map_snap", shape: [A, near(1)] }, error: "Map Match algorithm failed to find path: map_snap algorithm failed to snap the shape points to the correct shape." },
  { code: 445, action: "trace_route", body: { costing: "auto", shape_match: "nope", shape: [A, near(1)] } },
  { code: 445, action: "trace_attributes", body: { costing: "auto", shape_match: "nope", shape: [A, near(1)] } },
];

/** Service limits small enough to trip with a few downtown points. */
function tighten(cfg: ValhallaConfig): ValhallaConfig {
  const c = structuredClone(cfg);
  const sl = c.service_limits;
  Object.assign(sl.auto, { max_locations: 2, max_distance: 500, max_matrix_distance: 500, max_matrix_location_pairs: 2 });
  sl.max_exclude_locations = 1;
  sl.max_exclude_polygons_length = 100;
  Object.assign(sl.trace, { max_shape: 3, max_distance: 100 });
  sl.skadi.max_shape = 2;
  Object.assign(sl.isochrone, { max_locations: 2, max_distance: 100 });
  sl.centroid.max_locations = 2;
  return c;
}

let dir: string;
let engine: Actor;
let tight: Actor;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "engine-errors-"));
  const base = await defaultValhallaConfig();
  const config = withDatasetPaths(base, dir, { elevation: false, admin: false });
  const configPath = join(dir, "valhalla.json");
  writeFileSync(configPath, JSON.stringify(config));
  const run = await runValhallaTool("valhalla_build_tiles", ["-c", configPath, OSM], { cwd: dir });
  if (run.code !== 0) throw new Error(`valhalla_build_tiles failed (${run.code}): ${run.stderr.slice(-2000)}`);
  engine = new Actor(config);
  tight = new Actor(tighten(config));
}, 120_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The engine's rejection message for a request (fails the test if it answers). */
async function rejection(c: Case): Promise<string> {
  const [method] = METHODS[c.action];
  const actor = (c.tight ? tight : engine) as unknown as Record<string, (q: string) => Promise<string>>;
  const body = typeof c.body === "string" ? c.body : JSON.stringify(c.body);
  try {
    const answer = await actor[method]!.call(c.tight ? tight : engine, body);
    throw new Error(`engine answered instead of refusing: ${answer.slice(0, 200)}`);
  } catch (e) {
    if (e instanceof Error && e.message.startsWith("engine answered")) throw e;
    expect(e).toBeInstanceOf(Error);
    return (e as Error).message;
  }
}

describe("the engine's refusals map back to Valhalla's error bodies", () => {
  test("the engine is the one the table was taken from", async () => {
    const status = JSON.parse(await engine.status("{}")) as { version: string };
    expect(status.version).toBe("3.6.1");
  });

  for (const c of CASES) {
    const label = `${c.code} ${c.action}${c.tight ? " (tight limits)" : ""} ${typeof c.body === "string" ? c.body : JSON.stringify(c.body).slice(0, 90)}`;
    test(label, async () => {
      const message = await rejection(c);
      const [, prefix] = METHODS[c.action];
      expect(message.startsWith(`${prefix} error: `)).toBe(true);
      const said = message.slice(`${prefix} error: `.length);
      const entry = ENGINE_ERRORS.get(c.code)!;
      const got = engineErrorFromMessage(c.action, message);
      // 166 has no text in 3.6.1: the body gets the text later releases give it (c.error)
      expect({ message, ...got }).toEqual({ message, error_code: c.code, error: c.code === 166 ? c.error! : said, status_code: entry.http, status: httpReason(entry.http) });
      expect(got.error.startsWith(entry.text)).toBe(true);
      if (c.error !== undefined) expect(got.error).toBe(c.error);
    });
  }
});

describe("mapping of codes the engine can't be made to produce here", () => {
  const cases: [action: string, message: string, code: number][] = [
    ["route", "Route error: Try a POST or GET request instead", 101],
    ["route", "Route error: Failed to parse pbf request", 103],
    ["route", "Route error: Try any of: 'route' 'locate'", 106],
    ["route", "Route error: Not Implemented", 107],
    ["status", "Status error: The service is shutting down", 102],
    ["route", "Route error: The service is shutting down", 102],
    ["sources_to_targets", "Matrix error: Insufficient number of sources provided", 121],
    ["sources_to_targets", "Matrix error: Insufficient number of targets provided", 122],
    ["trace_route", "TraceRoute error: No shape provided", 126],
    ["trace_route", "TraceRoute error: use_timestamps set with no timestamps present", 159],
    ["route", "Route error: Invalid date_type", 163],
    ["route", "Route error: Failed to parse intermediate request format: Failed parsing pbf in Odin::Worker", 200],
    ["route", "Route error: Failed to parse intermediate request format: Failed parsing pbf in Thor::Worker", 401],
    ["route", "Route error: Failed to parse TripLeg", 201],
    ["route", "Route error: Could not build directions for TripLeg", 202],
    ["route", "Route error: Trip path does not have any nodes", 210],
    ["route", "Route error: Trip path has only one node", 211],
    ["route", "Route error: Trip must have at least 2 locations", 212],
    ["route", "Route error: Error - No shape or invalid node count", 213],
    ["route", "Route error: Turn degree out of range for cardinal direction", 220],
    ["route", "Route error: Invalid DirectionsLeg_Maneuver_Type in method FormTurnInstruction", 230],
    ["route", "Route error: Invalid DirectionsLeg_Maneuver_Type in method FormRelativeTwoDirection", 231],
    ["route", "Route error: Invalid DirectionsLeg_Maneuver_Type in method FormRelativeThreeDirection", 232],
    ["trace_attributes", "TraceAttributes error: Unknown action: Invalid shape_match value", 400],
    ["trace_route", "TraceRoute error: Failed to parse correlated location", 420],
    ["trace_route", "TraceRoute error: Failed to parse shape", 134],
    ["sources_to_targets", "Matrix error: Exceeded max iterations in CostMatrix::SourceToTarget", 430],
    ["route", "Route error: Cannot reach destination - too far from a transit stop", 440],
    ["optimized_route", "OptimizedRoute error: Location is unreachable: at index 1", 441],
    ["route", "Route error: Remote tar file has changed, service is unavailable", 446],
    ["route", "Route error: Leg count mismatch", 503],
    ["isochrone", "Isochrone error: This service does not support GeoTIFF serialization.", 504],
    ["isochrone", "Isochrone error: Unknown serialization error: Failed to create GeoTIFF.", 599],
    ["height", "Height error: Too many shape points:  (3). The limit is 2", 314],
    ["trace_attributes", "TraceAttributes error: Too many shape points: (4). The limit is 3", 153],
    ["height", "Height error: Insufficiently specified required parameter 'shape' or 'encoded_polyline'", 312],
    ["trace_route", "TraceRoute error: Insufficiently specified required parameter 'shape' or 'encoded_polyline'", 114],
  ];
  for (const [action, message, code] of cases) {
    test(`${code} ${action}: ${message}`, () => {
      const { http } = ENGINE_ERRORS.get(code)!;
      expect(engineErrorFromMessage(action, message)).toEqual({
        error_code: code,
        error: message.replace(/^\w+ error: /, ""),
        status_code: http,
        status: httpReason(http),
      });
    });
  }

  test("statuses follow the table: 405, 404, 501, 503, 500", () => {
    expect(engineErrorFromMessage("route", "Route error: Try a POST or GET request instead").status).toBe("Method Not Allowed");
    expect(engineErrorFromMessage("route", "Route error: Try any of").status).toBe("Not Found");
    expect(engineErrorFromMessage("route", "Route error: Arrive by for multimodal not implemented yet")).toMatchObject({ status_code: 501, status: "Not Implemented" });
    expect(engineErrorFromMessage("status", "Status error: The service is shutting down")).toMatchObject({ status_code: 503, status: "Service Unavailable" });
    expect(engineErrorFromMessage("route", "Route error: Failed to parse TripLeg")).toMatchObject({ status_code: 500, status: "Internal Server Error" });
  });

  test("a text must be followed by the end or ': ' to count", () => {
    expect(engineErrorFromMessage("route", "Route error: Exceeded max locationsX").error_code).toBe(199);
  });

  test("an empty text with a detail is 166 only where the engine throws it", () => {
    expect(engineErrorFromMessage("isochrone", "Isochrone error: : 200")).toEqual({ error_code: 166, error: "Exceeded max distance: 200", status_code: 400, status: "Bad Request" });
    expect(engineErrorFromMessage("route", "Route error: : 200")).toEqual({ error_code: 199, error: ": 200", status_code: 400, status: "Bad Request" });
  });
});

describe("unrecognised refusals", () => {
  test("from the engine: 199, 400, and the engine's own text", async () => {
    for (const [body, text] of [
      ["[1,2]", "IsObject()"],
      [JSON.stringify(route({ encoded_polyline: "x" })), "Bad encoded polyline"],
    ] as const) {
      const message = await rejection({ code: 199, action: "route", body });
      expect(engineErrorFromMessage("route", message)).toEqual({ error_code: 199, error: text, status_code: 400, status: "Bad Request" });
    }
  });

  test("never a 500, with or without the method prefix", () => {
    expect(engineErrorFromMessage("route", "Route error: unknown exception")).toEqual({ error_code: 199, error: "unknown exception", status_code: 400, status: "Bad Request" });
    expect(engineErrorFromMessage("route", "String request expected")).toEqual({ error_code: 199, error: "String request expected", status_code: 400, status: "Bad Request" });
    expect(engineErrorFromMessage("route", "Route error: Unknown: boom")).toEqual({ error_code: 199, error: "Unknown: boom", status_code: 400, status: "Bad Request" });
  });
});

describe("one table for Valhalla's texts", () => {
  test("ENGINE_TEXT is ENGINE_ERRORS' texts, but for the gateway's own 166, 173, 199 and 313", () => {
    for (const [code, { text }] of ENGINE_ERRORS) {
      if ([166, 199, 313].includes(code)) continue;
      expect({ code, text: ENGINE_TEXT[code] }).toEqual({ code, text });
    }
    expect(ENGINE_TEXT[199]).toBe("Invalid parameter");
    expect(ENGINE_TEXT[313]).toBe("'resample_distance' is out of range");
    expect(ENGINE_TEXT[166]).toBe("Exceeded max distance");
    expect(ENGINE_TEXT[173]).toBe("Failed to parse line feature");
  });

  test("httpReason", () => {
    expect([400, 404, 405, 500, 501, 503].map(httpReason)).toEqual(["Bad Request", "Not Found", "Method Not Allowed", "Internal Server Error", "Not Implemented", "Service Unavailable"]);
  });
});
