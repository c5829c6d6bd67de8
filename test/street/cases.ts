/**
 * Request cases built from the spec's tables: for each request type, every bound just inside and
 * just outside, every enum with a good and a bad value. `code` null means the gateway forwards the
 * request; otherwise it refuses with that Valhalla code and a message naming `field`.
 */
export interface Case {
  name: string;
  action: "route" | "isochrone" | "expansion" | "height" | "locate" | "centroid";
  body: Record<string, unknown>;
  code: number | null;
  /** text the refusal message must contain (the field; for bounds also the range) */
  mentions?: string[];
}

const A = { lat: 52.52, lon: 13.405 };
const B = { lat: 52.53, lon: 13.41 };
const C = { lat: 52.54, lon: 13.42 };
const D = { lat: 52.55, lon: 13.43 };

export const BASE: Record<Case["action"], Record<string, unknown>> = {
  route: { costing: "auto", locations: [A, B] },
  isochrone: { costing: "auto", locations: [A], contours: [{ time: 10 }] },
  expansion: { costing: "auto", locations: [A, B], action: "route" },
  height: { shape: [A, B] },
  locate: { costing: "auto", locations: [A] },
  centroid: { costing: "auto", locations: [A, B] },
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
  ...enumCases("route", ["costing"], ["auto", "bicycle", "pedestrian", "truck", "bus", "taxi", "motor_scooter", "motorcycle", "bikeshare", "auto_pedestrian"], "car", 125),
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
  ...bounds("height", ["resample_distance"], 0, 100, 313),
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

export const ALL_CASES: Record<string, Case[]> = {
  route: ROUTE_CASES,
  isochrone: ISOCHRONE_CASES,
  expansion: EXPANSION_CASES,
  height: HEIGHT_CASES,
  locate: LOCATE_CASES,
  centroid: CENTROID_CASES,
};
