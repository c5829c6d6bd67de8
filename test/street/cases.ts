/**
 * Request cases built from the spec's tables: for each request type, every bound just inside and
 * just outside, every enum with a good and a bad value. `code` null means the gateway forwards the
 * request; otherwise it refuses with that Valhalla code and a message naming `field`.
 */
export interface Case {
  name: string;
  action: "route" | "isochrone" | "expansion" | "height" | "locate" | "centroid" | "sources_to_targets" | "optimized_route" | "trace_route" | "trace_attributes";
  body: Record<string, unknown>;
  code: number | null;
  /** text the refusal message must contain (the field; for bounds also the range) */
  mentions?: string[];
  /** for accepted cases the gateway rewrites: what reaches the engine (default: the body as sent) */
  forwarded?: unknown;
}

const A = { lat: 52.52, lon: 13.405 };
const B = { lat: 52.53, lon: 13.41 };
const C = { lat: 52.54, lon: 13.42 };
const D = { lat: 52.55, lon: 13.43 };

export const BASE: Record<Case["action"], Record<string, unknown>> = {
  route: { costing: "auto", locations: [A, B] },
  isochrone: { costing: "auto", locations: [A], contours: [{ time: 10 }] },
  expansion: { costing: "auto", locations: [A, B], action: "route", contours: [{ time: 10 }] },
  height: { shape: [A, B] },
  locate: { costing: "auto", locations: [A] },
  centroid: { costing: "auto", locations: [A, B] },
  sources_to_targets: { costing: "auto", sources: [A], targets: [B, C] },
  optimized_route: { costing: "auto", locations: [A, B, C, D] },
  trace_route: { costing: "auto", shape: [A, B] },
  trace_attributes: { costing: "auto", shape: [A, B] },
};

/** A copy of the action's base request with `path` set to `value` (undefined deletes it). */
export function withField(action: Case["action"], path: (string | number)[], value: unknown): Record<string, unknown> {
  const body = structuredClone(BASE[action]) as Record<string, unknown>;
  let o = body as Record<string | number, unknown>;
  for (const k of path.slice(0, -1)) {
    if (o[k] === undefined) o[k] = typeof path[path.indexOf(k) + 1] === "number" ? [] : {};
    o = o[k] as Record<string | number, unknown>;
  }
  const last = path[path.length - 1]!;
  if (value === undefined) delete o[last];
  else o[last] = value;
  return body;
}

const fieldText = (path: (string | number)[]) => path.map((p, i) => (typeof p === "number" ? `[${p}]` : i ? `.${p}` : p)).join("");

/** Four cases for a bounded number: min and max accepted, just below and just above refused. */
function bounds(action: Case["action"], path: (string | number)[], min: number, max: number | null, code: number, opts: { eps?: number; codeAbove?: number } = {}): Case[] {
  const eps = opts.eps ?? (Number.isInteger(min) && (max === null || Number.isInteger(max)) ? 0.01 : min / 10 || 0.01);
  const f = fieldText(path);
  const mentions = [f, String(min), ...(max === null ? [] : [String(max)])];
  const out: Case[] = [
    { name: `${f} = ${min} (min) accepted`, action, body: withField(action, path, min), code: null },
    { name: `${f} = ${min - eps} refused`, action, body: withField(action, path, min - eps), code, mentions },
  ];
  if (max !== null) {
    out.push(
      { name: `${f} = ${max} (max) accepted`, action, body: withField(action, path, max), code: null },
      { name: `${f} = ${max + eps} refused`, action, body: withField(action, path, max + eps), code: opts.codeAbove ?? code, mentions },
    );
  }
  return out;
}

/** Integer bounds: one below min and one above max refused, and a fraction refused. */
function intBounds(action: Case["action"], path: (string | number)[], min: number, max: number, code: number): Case[] {
  const f = fieldText(path);
  const mentions = [f, String(min), String(max)];
  return [
    { name: `${f} = ${min} accepted`, action, body: withField(action, path, min), code: null },
    { name: `${f} = ${max} accepted`, action, body: withField(action, path, max), code: null },
    { name: `${f} = ${min - 1} refused`, action, body: withField(action, path, min - 1), code, mentions },
    { name: `${f} = ${max + 1} refused`, action, body: withField(action, path, max + 1), code, mentions },
    { name: `${f} = ${min + 0.5} (not an integer) refused`, action, body: withField(action, path, min + 0.5), code, mentions: [f] },
  ];
}

function enumCases(action: Case["action"], path: (string | number)[], good: unknown[], bad: unknown, code: number): Case[] {
  const f = fieldText(path);
  return [
    ...good.map((g) => ({ name: `${f} = ${JSON.stringify(g)} accepted`, action, body: withField(action, path, g), code: null })),
    { name: `${f} = ${JSON.stringify(bad)} refused`, action, body: withField(action, path, bad), code, mentions: [f] },
  ];
}

const PENALTIES = [
  "alley_penalty",
  "country_crossing_cost",
  "country_crossing_penalty",
  "destination_only_penalty",
  "ferry_cost",
  "gate_cost",
  "gate_penalty",
  "maneuver_penalty",
  "private_access_penalty",
  "rail_ferry_cost",
  "service_penalty",
  "toll_booth_cost",
  "toll_booth_penalty",
];
const UNIT_INTERVAL = ["speed_penalty_factor", "use_ferry", "use_living_streets", "use_rail_ferry", "use_tracks"];
const BOOLEANS = ["disable_hierarchy_pruning", "ignore_access", "ignore_closures", "ignore_oneways", "ignore_restrictions", "shortest"];

function baseOptionCases(costing: string): Case[] {
  const o = (k: string) => ["costing_options", costing, k];
  return [
    ...PENALTIES.flatMap((k) => bounds("route", o(k), 0, 43200, 199)),
    ...bounds("route", o("closure_factor"), 1, 10, 199),
    ...intBounds("route", o("fixed_speed"), 0, 252, 199),
    ...bounds("route", o("service_factor"), 0.1, 100000, 199, { eps: 0.01 }),
    ...UNIT_INTERVAL.flatMap((k) => bounds("route", o(k), 0, 1, 199)),
    ...BOOLEANS.map((k) => ({ name: `${costing}.${k} not boolean refused`, action: "route" as const, body: withField("route", o(k), "yes"), code: 199, mentions: [k] })),
  ];
}

const L = (n: number) => [A, B, C, D, A, B].slice(0, n);

export const ROUTE_CASES: Case[] = [
  { name: "minimal route accepted", action: "route", body: BASE.route, code: null },
  { name: "unknown fields pass through", action: "route", body: { ...BASE.route, alternates: 2, elevation_interval: 30, something_new: { x: 1 } }, code: null },
  ...enumCases("route", ["costing"], ["auto", "bicycle", "pedestrian", "truck", "bus", "taxi", "motor_scooter", "motorcycle", "bikeshare"], "car", 125),
  { name: "costing auto_pedestrian refused with the reason (no engine implements it)", action: "route", body: withField("route", ["costing"], "auto_pedestrian"), code: 125, mentions: ["auto_pedestrian", "does not implement"] },
  { name: "costing multimodal refused (no transit in the street graph)", action: "route", body: withField("route", ["costing"], "multimodal"), code: 125, mentions: ["costing", "multimodal", "transit"] },
  { name: "costing missing refused", action: "route", body: withField("route", ["costing"], undefined), code: 124, mentions: ["costing"] },
  { name: "locations missing refused", action: "route", body: withField("route", ["locations"], undefined), code: 110, mentions: ["locations"] },
  { name: "one location refused", action: "route", body: withField("route", ["locations"], [A]), code: 120, mentions: ["locations"] },
  ...bounds("route", ["locations", 0, "lat"], -90, 90, 130),
  ...bounds("route", ["locations", 0, "lon"], -180, 180, 130),
  { name: "location without lon refused", action: "route", body: withField("route", ["locations", 0], { lat: 1 }), code: 130, mentions: ["locations[0].lon"] },
  ...enumCases("route", ["locations", 0, "type"], ["break", "through", "via", "break_through"], "stop", 130),
  // base options for every costing; the auto table for auto, bus, taxi
  ...baseOptionCases("auto"),
  ...bounds("route", ["costing_options", "pedestrian", "use_ferry"], 0, 1, 199),
  ...bounds("route", ["costing_options", "truck", "maneuver_penalty"], 0, 43200, 199),
  ...["auto", "bus", "taxi"].flatMap((c) => intBounds("route", ["costing_options", c, "top_speed"], 10, 252, 199)),
  ...bounds("route", ["costing_options", "auto", "alley_factor"], 0.1, 100000, 199, { eps: 0.01 }),
  ...intBounds("route", ["costing_options", "auto", "restriction_probability"], 0, 100, 199),
  ...["use_distance", "use_highways", "use_tolls"].flatMap((k) => bounds("route", ["costing_options", "auto", k], 0, 1, 199)),
  ...["include_hot", "include_hov2", "include_hov3"].map((k) => ({ name: `auto.${k} not boolean refused`, action: "route" as const, body: withField("route", ["costing_options", "auto", k], 1), code: 199, mentions: [k] })),
  // bicycle table
  ...bounds("route", ["costing_options", "bicycle", "avoid_bad_surfaces"], 0, 1, 199),
  ...bounds("route", ["costing_options", "bicycle", "use_hills"], 0, 1, 199),
  ...bounds("route", ["costing_options", "bicycle", "use_roads"], 0, 1, 199),
  ...bounds("route", ["costing_options", "bicycle", "bss_rent_penalty"], 0, 43200, 199),
  ...bounds("route", ["costing_options", "bicycle", "bss_return_cost"], 0, 43200, 199),
  ...bounds("route", ["costing_options", "bicycle", "cycling_speed"], 5, null, 199),
  ...enumCases("route", ["costing_options", "bicycle", "bicycle_type"], ["road", "hybrid", "city", "cross", "mountain", "Hybrid"], "bmx", 199),
  // speed_types: at most 4, unique
  { name: "speed_types with 4 unique accepted", action: "route", body: withField("route", ["costing_options", "auto", "speed_types"], ["freeflow", "constrained", "predicted", "current"]), code: null },
  { name: "speed_types empty accepted", action: "route", body: withField("route", ["costing_options", "auto", "speed_types"], []), code: null },
  { name: "speed_types with 5 refused", action: "route", body: withField("route", ["costing_options", "auto", "speed_types"], ["freeflow", "constrained", "predicted", "current", "current"]), code: 199, mentions: ["speed_types", "4"] },
  { name: "speed_types repeated refused", action: "route", body: withField("route", ["costing_options", "auto", "speed_types"], ["current", "current"]), code: 199, mentions: ["speed_types"] },
  { name: "speed_types bad value refused", action: "route", body: withField("route", ["costing_options", "auto", "speed_types"], ["warp"]), code: 199, mentions: ["speed_types[0]"] },
  // date_time
  ...[0, 1, 2, 3].map((t) => ({ name: `date_time type ${t} with value accepted`, action: "route" as const, body: withField("route", ["date_time"], { type: t, value: "2025-06-01T08:30" }), code: null })),
  { name: "date_time type 0 without value accepted", action: "route", body: withField("route", ["date_time"], { type: 0 }), code: null },
  { name: "date_time type 4 refused", action: "route", body: withField("route", ["date_time"], { type: 4, value: "2025-06-01T08:30" }), code: 163, mentions: ["date_time.type"] },
  { name: "date_time type -1 refused", action: "route", body: withField("route", ["date_time"], { type: -1 }), code: 163, mentions: ["date_time.type"] },
  { name: "date_time type 1 without value refused", action: "route", body: withField("route", ["date_time"], { type: 1 }), code: 160, mentions: ["date_time.value"] },
  { name: "date_time type 2 without value refused", action: "route", body: withField("route", ["date_time"], { type: 2 }), code: 161, mentions: ["date_time.value"] },
  { name: "date_time type 3 without value refused", action: "route", body: withField("route", ["date_time"], { type: 3 }), code: 165, mentions: ["date_time.value"] },
  { name: "date_time value with seconds refused", action: "route", body: withField("route", ["date_time"], { type: 1, value: "2025-06-01T08:30:00" }), code: 162, mentions: ["date_time.value", "YYYY-MM-DDTHH:MM"] },
  { name: "date_time value 31 February refused", action: "route", body: withField("route", ["date_time"], { type: 1, value: "2025-02-31T08:30" }), code: 162, mentions: ["date_time.value"] },
  // exclusions
  { name: "exclude_locations accepted", action: "route", body: withField("route", ["exclude_locations"], [C]), code: null },
  { name: "exclude_locations with bad lat refused", action: "route", body: withField("route", ["exclude_locations"], [{ lat: 95, lon: 0 }]), code: 133, mentions: ["exclude_locations[0].lat"] },
  { name: "exclude_polygons closed ring accepted", action: "route", body: withField("route", ["exclude_polygons"], [[[13.4, 52.5], [13.41, 52.5], [13.41, 52.51], [13.4, 52.5]]]), code: null },
  { name: "exclude_polygons open ring refused", action: "route", body: withField("route", ["exclude_polygons"], [[[13.4, 52.5], [13.41, 52.5], [13.41, 52.51], [13.4, 52.51]]]), code: 137, mentions: ["exclude_polygons[0]", "closed"] },
  { name: "exclude_polygons [lat, lon] out of range refused", action: "route", body: withField("route", ["exclude_polygons"], [[[52.5, 200], [52.5, 13.41], [52.51, 13.41], [52.5, 200]]]), code: 137, mentions: ["exclude_polygons"] },
  {
    name: "exclude_polygons FeatureCollection with levels accepted",
    action: "route",
    body: withField("route", ["exclude_polygons"], { type: "FeatureCollection", features: [{ type: "Feature", properties: { levels: [0, 1] }, geometry: { type: "Polygon", coordinates: [[[13.4, 52.5], [13.41, 52.5], [13.41, 52.51], [13.4, 52.5]]] } }] }),
    code: null,
    // the engine gets the ring form (Valhalla 3.6.1 ignores the FeatureCollection form)
    forwarded: withField("route", ["exclude_polygons"], [[[13.4, 52.5], [13.41, 52.5], [13.41, 52.51], [13.4, 52.5]]]),
  },
  {
    name: "exclude_polygons FeatureCollection with a holed polygon refused",
    action: "route",
    body: withField("route", ["exclude_polygons"], {
      type: "FeatureCollection",
      features: [{ type: "Feature", geometry: { type: "Polygon", coordinates: [[[13.4, 52.5], [13.41, 52.5], [13.41, 52.51], [13.4, 52.5]], [[13.4, 52.5], [13.41, 52.5], [13.41, 52.51], [13.4, 52.5]]] } }],
    }),
    code: 137,
    mentions: ["exclude_polygons"],
  },
  {
    name: "exclude_polygons FeatureCollection with fractional levels refused",
    action: "route",
    body: withField("route", ["exclude_polygons"], { type: "FeatureCollection", features: [{ type: "Feature", properties: { levels: [0.5] }, geometry: { type: "Polygon", coordinates: [[[13.4, 52.5], [13.41, 52.5], [13.41, 52.51], [13.4, 52.5]]] } }] }),
    code: 137,
    mentions: ["exclude_polygons"],
  },
  // linear cost factors: shape and GeoJSON variants, factor 0.1 to 20
  ...bounds("route", ["linear_cost_factors", 0, "factor"], 0.1, 20, 173, { eps: 0.01 }).map((c) => ({ ...c, body: { ...c.body, linear_cost_factors: [{ shape: "_izlhA~rlgdF_{geC~ywl@", ...(c.body.linear_cost_factors as object[])[0] }] } })),
  { name: "linear cost factor shape without factor accepted (default 1)", action: "route", body: withField("route", ["linear_cost_factors"], [{ shape: "_izlhA~rlgdF_{geC~ywl@" }]), code: null },
  { name: "linear cost factor with a non-polyline shape refused", action: "route", body: withField("route", ["linear_cost_factors"], [{ shape: "!", factor: 2 }]), code: 173, mentions: ["linear_cost_factors[0].shape"] },
  ...bounds("route", ["linear_cost_factors", 0, "properties", "factor"], 0.1, 20, 173, { eps: 0.01 }).map((c) => ({
    ...c,
    body: { ...c.body, linear_cost_factors: [{ type: "Feature", geometry: { type: "LineString", coordinates: [[13.4, 52.5], [13.41, 52.51]] }, ...(c.body.linear_cost_factors as object[])[0] }] },
  })),
  { name: "linear cost factor GeoJSON without properties refused", action: "route", body: withField("route", ["linear_cost_factors"], [{ type: "Feature", geometry: { type: "LineString", coordinates: [[13.4, 52.5], [13.41, 52.51]] } }]), code: 173, mentions: ["linear_cost_factors[0].properties"] },
  { name: "linear cost factor GeoJSON Polygon refused", action: "route", body: withField("route", ["linear_cost_factors"], [{ type: "Feature", geometry: { type: "Polygon", coordinates: [] }, properties: { factor: 2 } }]), code: 173, mentions: ["linear_cost_factors[0].geometry.type"] },
  ...enumCases("route", ["units"], ["km", "miles", "mi"], "furlongs", 199),
  ...enumCases("route", ["directions_type"], ["none", "maneuvers", "instructions"], "verbose", 199),
  ...enumCases("route", ["language"], ["en-US", "de", "pt-BR"], "english please", 199),
  ...enumCases("route", ["format"], ["json", "osrm"], "xml", 199),
  { name: "id not a string refused", action: "route", body: withField("route", ["id"], { a: 1 }), code: 199, mentions: ["id"] },
  // closures conflict
  {
    name: "ignore_closures with search_filter.exclude_closures refused",
    action: "route",
    body: { ...BASE.route, costing_options: { auto: { ignore_closures: true } }, locations: [{ ...A, search_filter: { exclude_closures: true } }, B] },
    code: 143,
    mentions: ["exclude_closures", "ignore_closures"],
  },
  { name: "ignore_closures alone accepted", action: "route", body: withField("route", ["costing_options", "auto", "ignore_closures"], true), code: null },
  { name: "exclude_closures alone accepted", action: "route", body: withField("route", ["locations", 0, "search_filter"], { exclude_closures: true }), code: null },
];

export const ISOCHRONE_CASES: Case[] = [
  { name: "minimal isochrone accepted", action: "isochrone", body: BASE.isochrone, code: null },
  { name: "3 locations accepted", action: "isochrone", body: withField("isochrone", ["locations"], L(3)), code: null },
  { name: "0 locations refused", action: "isochrone", body: withField("isochrone", ["locations"], []), code: 120, mentions: ["locations", "1", "3"] },
  { name: "4 locations refused", action: "isochrone", body: withField("isochrone", ["locations"], L(4)), code: 150, mentions: ["locations", "1", "3"] },
  { name: "contours missing refused", action: "isochrone", body: withField("isochrone", ["contours"], undefined), code: 113, mentions: ["contours"] },
  { name: "0 contours refused", action: "isochrone", body: withField("isochrone", ["contours"], []), code: 113, mentions: ["contours", "1", "5"] },
  { name: "5 contours accepted", action: "isochrone", body: withField("isochrone", ["contours"], [1, 2, 3, 4, 5].map((t) => ({ time: t * 10 }))), code: null },
  { name: "6 contours refused", action: "isochrone", body: withField("isochrone", ["contours"], [1, 2, 3, 4, 5, 6].map((t) => ({ time: t * 10 }))), code: 152, mentions: ["contours", "5"] },
  ...bounds("isochrone", ["contours", 0, "time"], 1, 100, 113, { codeAbove: 151 }),
  ...bounds("isochrone", ["contours", 0, "distance"], 1, 100, 113, { codeAbove: 166 }).map((c) => ({ ...c, body: { ...c.body, contours: [{ distance: (c.body.contours as { distance: number }[])[0]!.distance }] } })),
  { name: "contour with time and distance refused", action: "isochrone", body: withField("isochrone", ["contours", 0], { time: 10, distance: 5 }), code: 113, mentions: ["contours[0]", "one metric"] },
  { name: "contour without metric refused", action: "isochrone", body: withField("isochrone", ["contours", 0], { color: "ff0000" }), code: 113, mentions: ["contours[0]"] },
  { name: "contour color rrggbb accepted", action: "isochrone", body: withField("isochrone", ["contours", 0, "color"], "ff00AA"), code: null },
  { name: "contour color with # refused", action: "isochrone", body: withField("isochrone", ["contours", 0, "color"], "#ff00aa"), code: 113, mentions: ["contours[0].color"] },
  { name: "contour color too short refused", action: "isochrone", body: withField("isochrone", ["contours", 0, "color"], "ff00a"), code: 113, mentions: ["contours[0].color"] },
  ...bounds("isochrone", ["denoise"], 0, 1, 199),
  ...bounds("isochrone", ["generalize"], 0, 200, 199),
  ...["polygons", "reverse", "show_locations"].map((k) => ({ name: `${k} not boolean refused`, action: "isochrone" as const, body: withField("isochrone", [k], "true"), code: 199, mentions: [k] })),
  { name: "isochrone costing multimodal refused", action: "isochrone", body: withField("isochrone", ["costing"], "multimodal"), code: 125, mentions: ["costing"] },
  { name: "isochrone with bad costing option refused", action: "isochrone", body: withField("isochrone", ["costing_options", "pedestrian", "use_ferry"], 2), code: 199, mentions: ["costing_options.pedestrian.use_ferry", "0", "1"] },
];

const EXPANSION_PROPERTIES = ["duration", "cost", "distance", "edge_status", "edge_id", "pred_edge_id", "expansion_type", "flow_sources", "travel_mode", "expansion_index"];

export const EXPANSION_CASES: Case[] = [
  { name: "minimal expansion accepted", action: "expansion", body: BASE.expansion, code: null },
  { name: "1 location accepted", action: "expansion", body: withField("expansion", ["locations"], L(1)), code: null },
  { name: "3 locations accepted", action: "expansion", body: withField("expansion", ["locations"], L(3)), code: null },
  { name: "0 locations refused", action: "expansion", body: withField("expansion", ["locations"], []), code: 120, mentions: ["locations"] },
  { name: "4 locations refused", action: "expansion", body: withField("expansion", ["locations"], L(4)), code: 150, mentions: ["locations", "3"] },
  { name: "action missing refused", action: "expansion", body: withField("expansion", ["action"], undefined), code: 115, mentions: ["action"] },
  ...enumCases("expansion", ["action"], ["route", "isochrone", "sources_to_targets"], "trace_route", 144),
  { name: "all expansion properties accepted", action: "expansion", body: withField("expansion", ["expansion_properties"], EXPANSION_PROPERTIES), code: null },
  { name: "unknown expansion property refused", action: "expansion", body: withField("expansion", ["expansion_properties"], ["duration", "speed"]), code: 168, mentions: ["expansion_properties[1]"] },
  ...["dedupe", "skip_opposites"].map((k) => ({ name: `${k} not boolean refused`, action: "expansion" as const, body: withField("expansion", [k], 1), code: 199, mentions: [k] })),
];

const shape = (n: number) => Array.from({ length: n }, (_, i) => ({ lat: 52.5 + i / 1000, lon: 13.4 }));

export const HEIGHT_CASES: Case[] = [
  { name: "shape of 2 accepted", action: "height", body: BASE.height, code: null },
  { name: "shape of 1 accepted", action: "height", body: { shape: shape(1) }, code: null },
  { name: "shape of 50 accepted", action: "height", body: { shape: shape(50) }, code: null },
  { name: "empty shape refused", action: "height", body: { shape: [] }, code: 123, mentions: ["shape", "1", "50"] },
  { name: "shape of 51 refused", action: "height", body: { shape: shape(51) }, code: 153, mentions: ["shape", "50"] },
  { name: "shape point with bad lat refused", action: "height", body: { shape: [{ lat: -91, lon: 0 }] }, code: 134, mentions: ["shape[0].lat"] },
  { name: "encoded_polyline accepted", action: "height", body: { encoded_polyline: "_izlhA~rlgdF_{geC~ywl@" }, code: null },
  { name: "shape and encoded_polyline refused", action: "height", body: { shape: shape(2), encoded_polyline: "_izlhA~rlgdF_{geC~ywl@" }, code: 114, mentions: ["encoded_polyline", "shape"] },
  { name: "neither shape nor encoded_polyline refused", action: "height", body: { range: true }, code: 114, mentions: ["shape", "encoded_polyline"] },
  ...enumCases("height", ["shape_format"], ["polyline6", "polyline5"], "geojson", 164),
  ...enumCases("height", ["height_precision"], [0, 1, 2], 3, 199),
  // 0 m means no resampling: the engine gets the request without it (it would loop on 0)
  ...bounds("height", ["resample_distance"], 0, 100, 313).map((c) => (c.code === null && c.body.resample_distance === 0 ? { ...c, forwarded: BASE.height } : c)),
  { name: "a resample_distance that would give more than 100000 heights refused", action: "height", body: { shape: [{ lat: 0, lon: 0 }, { lat: 0, lon: 10 }], resample_distance: 1 }, code: 314, mentions: ["resample_distance", "100000"] },
  { name: "range not boolean refused", action: "height", body: { ...BASE.height, range: "yes" }, code: 199, mentions: ["range"] },
];

export const LOCATE_CASES: Case[] = [
  { name: "minimal locate accepted", action: "locate", body: BASE.locate, code: null },
  { name: "locate without costing accepted", action: "locate", body: { locations: [A] }, code: null },
  ...enumCases("locate", ["verbose"], [true, false], "yes", 199),
  { name: "locate without locations refused", action: "locate", body: withField("locate", ["locations"], undefined), code: 110, mentions: ["locations"] },
  { name: "locate with 0 locations refused", action: "locate", body: withField("locate", ["locations"], []), code: 120, mentions: ["locations"] },
  { name: "locate with multimodal refused", action: "locate", body: withField("locate", ["costing"], "multimodal"), code: 125, mentions: ["costing"] },
];

export const CENTROID_CASES: Case[] = [
  { name: "minimal centroid accepted", action: "centroid", body: BASE.centroid, code: null },
  { name: "centroid with 1 location refused", action: "centroid", body: withField("centroid", ["locations"], [A]), code: 120, mentions: ["locations"] },
  { name: "centroid without costing refused", action: "centroid", body: withField("centroid", ["costing"], undefined), code: 124, mentions: ["costing"] },
  ...bounds("centroid", ["costing_options", "auto", "closure_factor"], 1, 10, 199),
];

const MATRIX_TEXT = "Insufficiently specified required parameter 'locations' or 'sources & targets'";
const many = (n: number) => Array.from({ length: n }, (_, i) => ({ lat: 52.5 + (i % 10) / 100, lon: 13.4 + Math.floor(i / 10) / 100 }));
const ignoreClosures = { auto: { ignore_closures: true } };

export const SOURCES_TO_TARGETS_CASES: Case[] = [
  { name: "one to many accepted", action: "sources_to_targets", body: BASE.sources_to_targets, code: null },
  { name: "many to one accepted", action: "sources_to_targets", body: { costing: "pedestrian", sources: L(4), targets: [A] }, code: null },
  { name: "many to many (same list) accepted", action: "sources_to_targets", body: { costing: "bicycle", sources: L(4), targets: L(4) }, code: null },
  { name: "50 x 50 accepted (the pair count is left to the engine)", action: "sources_to_targets", body: { costing: "auto", sources: many(50), targets: many(50) }, code: null },
  { name: "unknown fields pass through", action: "sources_to_targets", body: { ...BASE.sources_to_targets, expansion_max_distance: 5000, prioritize_bidirectional: true, locations: [A] }, code: null },
  { name: "source with its own date_time accepted", action: "sources_to_targets", body: withField("sources_to_targets", ["sources", 0, "date_time"], "2025-06-01T08:30"), code: null },
  ...[0, 1].map((t) => ({ name: `date_time type ${t} with value accepted`, action: "sources_to_targets" as const, body: withField("sources_to_targets", ["date_time"], { type: t, value: "2025-06-01T08:30" }), code: null })),
  { name: "date_time type 1 without value refused", action: "sources_to_targets", body: withField("sources_to_targets", ["date_time"], { type: 1 }), code: 160, mentions: ["date_time.value"] },
  ...enumCases("sources_to_targets", ["verbose"], [true, false], "no", 199),
  ...enumCases("sources_to_targets", ["shape_format"], ["polyline6", "polyline5", "geojson", "no_shape"], "wkt", 164),
  { name: "matrix_locations = 1 accepted", action: "sources_to_targets", body: withField("sources_to_targets", ["matrix_locations"], 1), code: null },
  { name: "matrix_locations = 2 accepted", action: "sources_to_targets", body: withField("sources_to_targets", ["matrix_locations"], 2), code: null },
  { name: "matrix_locations = 0 refused", action: "sources_to_targets", body: withField("sources_to_targets", ["matrix_locations"], 0), code: 199, mentions: ["matrix_locations", "1"] },
  { name: "matrix_locations = 1.5 refused", action: "sources_to_targets", body: withField("sources_to_targets", ["matrix_locations"], 1.5), code: 199, mentions: ["matrix_locations"] },
  // missing lists: 112; `locations` does not stand in for them
  { name: "sources and targets missing refused", action: "sources_to_targets", body: { costing: "auto" }, code: 112, mentions: [MATRIX_TEXT, "sources"] },
  { name: "sources missing refused", action: "sources_to_targets", body: withField("sources_to_targets", ["sources"], undefined), code: 112, mentions: [MATRIX_TEXT, "sources"] },
  { name: "targets missing refused", action: "sources_to_targets", body: withField("sources_to_targets", ["targets"], undefined), code: 112, mentions: [MATRIX_TEXT, "targets"] },
  { name: "locations instead of sources and targets refused", action: "sources_to_targets", body: { costing: "auto", locations: [A, B] }, code: 112, mentions: ["sources", "not locations"] },
  { name: "sources not an array refused", action: "sources_to_targets", body: withField("sources_to_targets", ["sources"], A), code: 112, mentions: ["sources"] },
  { name: "missing sources reported before missing costing", action: "sources_to_targets", body: { targets: [A] }, code: 112, mentions: ["sources"] },
  // empty lists: 121, 122
  { name: "0 sources refused", action: "sources_to_targets", body: withField("sources_to_targets", ["sources"], []), code: 121, mentions: ["Insufficient number of sources provided", "sources", "1"] },
  { name: "0 targets refused", action: "sources_to_targets", body: withField("sources_to_targets", ["targets"], []), code: 122, mentions: ["Insufficient number of targets provided", "targets", "1"] },
  // bad items: 131, 132
  ...bounds("sources_to_targets", ["sources", 0, "lat"], -90, 90, 131),
  ...bounds("sources_to_targets", ["targets", 1, "lon"], -180, 180, 132),
  { name: "source without lon refused", action: "sources_to_targets", body: withField("sources_to_targets", ["sources", 0], { lat: 1 }), code: 131, mentions: ["Failed to parse source", "sources[0].lon"] },
  { name: "target as [lon, lat] pair refused", action: "sources_to_targets", body: withField("sources_to_targets", ["targets", 0], [13.4, 52.5]), code: 132, mentions: ["Failed to parse target", "targets[0]"] },
  { name: "target with bad search_filter refused", action: "sources_to_targets", body: withField("sources_to_targets", ["targets", 0, "search_filter", "min_road_class"], "highway"), code: 132, mentions: ["targets[0].search_filter.min_road_class"] },
  { name: "costing missing refused", action: "sources_to_targets", body: withField("sources_to_targets", ["costing"], undefined), code: 124, mentions: ["costing"] },
  { name: "costing multimodal refused", action: "sources_to_targets", body: withField("sources_to_targets", ["costing"], "multimodal"), code: 125, mentions: ["costing", "multimodal"] },
  { name: "bad costing option refused", action: "sources_to_targets", body: withField("sources_to_targets", ["costing_options", "auto", "top_speed"], 300), code: 199, mentions: ["costing_options.auto.top_speed", "10", "252"] },
  { name: "exclude_locations with bad lat refused", action: "sources_to_targets", body: withField("sources_to_targets", ["exclude_locations"], [{ lat: 95, lon: 0 }]), code: 133, mentions: ["exclude_locations[0].lat"] },
  { name: "ignore_closures with a target's exclude_closures refused", action: "sources_to_targets", body: { ...BASE.sources_to_targets, costing_options: ignoreClosures, targets: [B, { ...C, search_filter: { exclude_closures: true } }] }, code: 143, mentions: ["targets[1].search_filter.exclude_closures", "ignore_closures"] },
];

export const OPTIMIZED_ROUTE_CASES: Case[] = [
  { name: "4 locations accepted", action: "optimized_route", body: BASE.optimized_route, code: null },
  { name: "2 locations accepted", action: "optimized_route", body: withField("optimized_route", ["locations"], L(2)), code: null },
  { name: "40 locations accepted (the count is left to the engine)", action: "optimized_route", body: withField("optimized_route", ["locations"], many(40)), code: null },
  { name: "unknown fields pass through", action: "optimized_route", body: { ...BASE.optimized_route, directions_options: { units: "miles" }, shape_format: "geojson" }, code: null },
  { name: "locations missing refused", action: "optimized_route", body: withField("optimized_route", ["locations"], undefined), code: 112, mentions: [MATRIX_TEXT, "locations"] },
  { name: "1 location refused", action: "optimized_route", body: withField("optimized_route", ["locations"], [A]), code: 120, mentions: ["locations", "2"] },
  { name: "0 locations refused", action: "optimized_route", body: withField("optimized_route", ["locations"], []), code: 120, mentions: ["locations"] },
  ...bounds("optimized_route", ["locations", 2, "lat"], -90, 90, 130),
  ...enumCases("optimized_route", ["locations", 1, "type"], ["break", "through"], "stop", 130),
  { name: "costing missing refused", action: "optimized_route", body: withField("optimized_route", ["costing"], undefined), code: 124, mentions: ["costing"] },
  ...enumCases("optimized_route", ["costing"], ["auto", "pedestrian", "truck"], "car", 125),
  { name: "date_time type 2 without value refused", action: "optimized_route", body: withField("optimized_route", ["date_time"], { type: 2 }), code: 161, mentions: ["date_time.value"] },
  ...enumCases("optimized_route", ["units"], ["miles"], "leagues", 199),
  {
    name: "ignore_closures with search_filter.exclude_closures refused",
    action: "optimized_route",
    body: { ...BASE.optimized_route, costing_options: ignoreClosures, locations: [A, { ...B, search_filter: { exclude_closures: true } }, C] },
    code: 143,
    mentions: ["locations[1].search_filter.exclude_closures"],
  },
];

/** precision-6 polylines: A→B, A→B→C, and a single point A */
const POLY_2 = "_cqdcBosdqX_pRowH";
const POLY_3 = "_cqdcBosdqX_pRowH_pR_pR";
const POLY_1 = "_cqdcBosdqX";
const TRACE_TEXT = "Shape match algorithm specification in api request is incorrect";

function traceCases(action: "trace_route" | "trace_attributes"): Case[] {
  const timed = [
    { ...A, time: 1717226400 },
    { ...B, time: 1717226460 },
  ];
  return [
    { name: "shape of 2 accepted", action, body: BASE[action], code: null },
    { name: "shape with times and types accepted", action, body: { costing: "pedestrian", shape: [timed[0], { ...timed[1], type: "via", radius: 20, accuracy: 8 }, { ...C, time: 1717226520 }] }, code: null },
    { name: "shape of 1000 points accepted (the count is left to the engine)", action, body: { costing: "auto", shape: shape(1000) }, code: null },
    { name: "encoded_polyline accepted", action, body: { costing: "auto", encoded_polyline: POLY_3 }, code: null },
    { name: "unknown fields pass through", action, body: { ...BASE[action], linear_references: true, elevation_interval: 30, locations: [A, B] }, code: null },
    // the trace itself
    { name: "neither shape nor encoded_polyline refused", action, body: { costing: "auto" }, code: 114, mentions: ["shape", "encoded_polyline"] },
    { name: "shape and encoded_polyline refused", action, body: { ...BASE[action], encoded_polyline: POLY_2 }, code: 114, mentions: ["encoded_polyline", "shape"] },
    { name: "shape not an array refused", action, body: withField(action, ["shape"], "52.52,13.405"), code: 114, mentions: ["shape"] },
    { name: "empty encoded_polyline refused", action, body: { costing: "auto", encoded_polyline: "" }, code: 114, mentions: ["encoded_polyline"] },
    { name: "shape of 1 refused", action, body: withField(action, ["shape"], [A]), code: 123, mentions: ["Insufficient shape provided", "shape", "2"] },
    { name: "empty shape refused", action, body: withField(action, ["shape"], []), code: 123, mentions: ["shape"] },
    { name: "encoded_polyline of 1 point refused", action, body: { costing: "auto", encoded_polyline: POLY_1 }, code: 123, mentions: ["encoded_polyline", "2"] },
    { name: "encoded_polyline that does not decode refused", action, body: { costing: "auto", encoded_polyline: "52.52,13.405;52.53,13.41" }, code: 134, mentions: ["Failed to parse shape", "encoded_polyline", "precision 6"] },
    { name: "truncated encoded_polyline refused", action, body: { costing: "auto", encoded_polyline: POLY_2.slice(0, -1) }, code: 134, mentions: ["encoded_polyline"] },
    ...bounds(action, ["shape", 1, "lat"], -90, 90, 134),
    { name: "shape point without lat refused", action, body: withField(action, ["shape", 0], { lon: 13.4 }), code: 134, mentions: ["shape[0].lat"] },
    { name: "shape point time -1 refused", action, body: withField(action, ["shape", 0, "time"], -1), code: 134, mentions: ["shape[0].time", "0"] },
    { name: "shape point time as text refused", action, body: withField(action, ["shape", 0, "time"], "08:30"), code: 134, mentions: ["shape[0].time"] },
    ...enumCases(action, ["shape", 0, "type"], ["break", "via"], "stop", 134),
    // matching options
    ...enumCases(action, ["shape_match"], ["edge_walk", "map_snap", "walk_or_snap"], "snap", 445).map((c) => (c.code ? { ...c, mentions: [TRACE_TEXT, "shape_match", "edge_walk, map_snap, walk_or_snap"] } : c)),
    ...["search_radius", "gps_accuracy", "breakage_distance", "interpolation_distance", "turn_penalty_factor"].flatMap((k) =>
      bounds(action, ["trace_options", k], 0, null, 158).map((c) => (c.code ? { ...c, mentions: [...(c.mentions ?? []), "Input trace option is out of bounds"] } : c)),
    ),
    { name: "trace_options all set accepted", action, body: withField(action, ["trace_options"], { search_radius: 50, gps_accuracy: 5, breakage_distance: 2000, interpolation_distance: 10, turn_penalty_factor: 500 }), code: null },
    { name: "trace_options not an object refused", action, body: withField(action, ["trace_options"], "tight"), code: 158, mentions: ["trace_options"] },
    { name: "trace_options.search_radius as text refused", action, body: withField(action, ["trace_options", "search_radius"], "50"), code: 158, mentions: ["trace_options.search_radius"] },
    ...enumCases(action, ["shape_format"], ["polyline6", "polyline5", "geojson", "no_shape"], "wkt", 164),
    // times
    { name: "durations, one per pair, accepted", action, body: { ...withField(action, ["shape"], [A, B, C]), begin_time: 1717226400, durations: [60, 75.5], use_timestamps: true }, code: null },
    { name: "durations with encoded_polyline accepted", action, body: { costing: "auto", encoded_polyline: POLY_3, durations: [60, 60] }, code: null },
    { name: "durations too few refused", action, body: { ...withField(action, ["shape"], [A, B, C]), durations: [60] }, code: 136, mentions: ["durations size not compatible with trace size", "durations", "2"] },
    { name: "durations too many for encoded_polyline refused", action, body: { costing: "auto", encoded_polyline: POLY_2, durations: [60, 60] }, code: 136, mentions: ["durations", "1"] },
    { name: "negative duration refused", action, body: withField(action, ["durations"], [-5]), code: 136, mentions: ["durations", "non-negative"] },
    { name: "durations null refused", action, body: withField(action, ["durations"], null), code: 136, mentions: ["durations"] },
    ...intBounds(action, ["begin_time"], 0, 4294967295, 199),
    { name: "use_timestamps with shape times accepted", action, body: { ...withField(action, ["shape"], timed), use_timestamps: true }, code: null },
    { name: "use_timestamps without times refused", action, body: withField(action, ["use_timestamps"], true), code: 159, mentions: ["use_timestamps set with no timestamps present", "use_timestamps"] },
    { name: "use_timestamps false without times accepted", action, body: withField(action, ["use_timestamps"], false), code: null },
    { name: "use_timestamps not boolean refused", action, body: withField(action, ["use_timestamps"], "yes"), code: 199, mentions: ["use_timestamps"] },
    // BaseRequest
    { name: "costing missing refused", action, body: withField(action, ["costing"], undefined), code: 124, mentions: ["costing"] },
    { name: "costing multimodal refused", action, body: withField(action, ["costing"], "multimodal"), code: 125, mentions: ["costing"] },
    { name: "date_time type 3 without value refused", action, body: withField(action, ["date_time"], { type: 3 }), code: 165, mentions: ["date_time.value"] },
    ...enumCases(action, ["directions_type"], ["none", "maneuvers"], "all", 199),
    { name: "ignore_closures with a shape point's exclude_closures refused", action, body: { costing: "auto", costing_options: ignoreClosures, shape: [A, { ...B, search_filter: { exclude_closures: true } }] }, code: 143, mentions: ["shape[1].search_filter.exclude_closures", "ignore_closures"] },
  ];
}

export const TRACE_ROUTE_CASES: Case[] = [
  ...traceCases("trace_route"),
  { name: "filters (trace_attributes only) pass through", action: "trace_route", body: { ...BASE.trace_route, filters: { attributes: ["edge.names"], action: "keep" } }, code: null },
];

export const TRACE_ATTRIBUTES_CASES: Case[] = [
  ...traceCases("trace_attributes"),
  { name: "include filters accepted", action: "trace_attributes", body: withField("trace_attributes", ["filters"], { attributes: ["edge.names", "edge.way_id", "node.type", "matched.point"], action: "include" }), code: null },
  { name: "exclude filters accepted", action: "trace_attributes", body: withField("trace_attributes", ["filters"], { attributes: ["shape"], action: "exclude" }), code: null },
  { name: "filters.action keep refused", action: "trace_attributes", body: withField("trace_attributes", ["filters"], { attributes: ["edge.names"], action: "keep" }), code: 199, mentions: ["filters.action", "include, exclude"] },
  { name: "filters.attributes as a string refused", action: "trace_attributes", body: withField("trace_attributes", ["filters"], { attributes: "edge.names", action: "include" }), code: 199, mentions: ["filters.attributes"] },
  { name: "filters.attributes with a number refused", action: "trace_attributes", body: withField("trace_attributes", ["filters", "attributes"], [1]), code: 199, mentions: ["filters.attributes[0]"] },
  { name: "filters not an object refused", action: "trace_attributes", body: withField("trace_attributes", ["filters"], ["edge.names"]), code: 199, mentions: ["filters"] },
];

/**
 * `durations` on the actions without a shape: the engine wrote through a null shape point for any
 * of them (SIGSEGV, issue 31); refused with 136. Height has a shape: one per pair, as for traces.
 */
const DURATIONS_CASES: Case[] = [
  ...(["route", "isochrone", "expansion", "locate", "centroid", "sources_to_targets", "optimized_route"] as const).flatMap((action) => [
    { name: "durations [] refused (no shape)", action, body: withField(action, ["durations"], []), code: 136, mentions: ["durations", "shape"] },
    { name: "durations [60] refused (no shape)", action, body: withField(action, ["durations"], [60]), code: 136, mentions: ["durations"] },
  ]),
  { name: "durations one per pair accepted", action: "height", body: withField("height", ["durations"], [60]), code: null },
  { name: "durations [] refused for 2 points", action: "height", body: withField("height", ["durations"], []), code: 136, mentions: ["durations", "1 for 2 points"] },
  { name: "durations with a negative refused", action: "height", body: withField("height", ["durations"], [-1]), code: 136, mentions: ["durations"] },
];

/** Expansion contours, as isochrone's: the engine divided by them (SIGFPE on time -1000, distance -1e308; issue 31). */
const EXPANSION_CONTOUR_CASES: Case[] = [
  { name: "isochrone action with a contour accepted", action: "expansion", body: { ...BASE.expansion, action: "isochrone", locations: [A], contours: [{ time: 10 }] }, code: null },
  { name: "isochrone action without contours refused", action: "expansion", body: { ...withField("expansion", ["contours"], undefined), action: "isochrone", locations: [A] }, code: 113, mentions: ["contours"] },
  ...[{ time: -1000 }, { time: -1e9 }, { time: -1e308 }, { distance: -1e308 }, { time: 0 }, { time: 101 }, { distance: 101 }, { time: 120 }].map((c) => ({
    name: `contour ${JSON.stringify(c)} refused`,
    action: "expansion" as const,
    body: { ...BASE.expansion, action: "isochrone", locations: [A], contours: [c] },
    code: (c.time ?? 0) > 100 ? 151 : (c.distance ?? 0) > 100 ? 166 : 113,
    mentions: ["contours[0]", "1", "100"],
  })),
  { name: "contour with time and distance refused", action: "expansion", body: { ...BASE.expansion, action: "isochrone", locations: [A], contours: [{ time: 5, distance: 5 }] }, code: 113, mentions: ["exactly one metric"] },
  { name: "6 contours refused", action: "expansion", body: { ...BASE.expansion, action: "isochrone", locations: [A], contours: [1, 2, 3, 4, 5, 6].map((time) => ({ time })) }, code: 152, mentions: ["contours"] },
  { name: "route action with a bad contour refused", action: "expansion", body: { ...BASE.expansion, contours: [{ time: -1000 }] }, code: 113, mentions: ["contours[0]"] },
];

export const ALL_CASES: Record<string, Case[]> = {
  route: ROUTE_CASES,
  isochrone: ISOCHRONE_CASES,
  expansion: EXPANSION_CASES,
  height: HEIGHT_CASES,
  locate: LOCATE_CASES,
  centroid: CENTROID_CASES,
  sources_to_targets: SOURCES_TO_TARGETS_CASES,
  optimized_route: OPTIMIZED_ROUTE_CASES,
  trace_route: TRACE_ROUTE_CASES,
  trace_attributes: TRACE_ATTRIBUTES_CASES,
  durations: DURATIONS_CASES,
  "expansion contours": EXPANSION_CONTOUR_CASES,
};
