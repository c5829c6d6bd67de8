/**
 * Field-level fuzzing (issue 31, item 6): requests built from every field the code documents, each
 * mutated. The street bodies come from walking the zod request schemas of every Valhalla action
 * (server/street/schemas) plus the fields Valhalla reads that those schemas only pass through
 * (VALHALLA_PASSTHROUGH); any field may be sent to any action (a trace's `durations` to `status`, an
 * isochrone's `contours` to `expansion`), by POST body or GET `?json=`. The catalog and plan queries
 * come from the parameter tables (server/catalog/params.ts, server/planner/plan-params.ts) and their
 * JSON Schema metadata. Mutations: types mixed (string, number, array, object, null, boolean), signs
 * flipped, extremes (0, -0, ±1e308, ±1e-308, 1e400, "NaN", "Infinity"), arrays of 0, 1 and 10,000
 * items, deep nesting, duplicated keys and parameters.
 */
import fc from "fast-check";
import type { z } from "zod";
import { DEPARTURE_PARAMS, PATH_PARAMS, ROUTE_PARAMS, STOP_PARAMS, TRIP_PARAMS } from "../../server/catalog/params.ts";
import { PLAN_PARAMS } from "../../server/planner/plan-params.ts";
import { COSTINGS } from "../../server/street/schemas/costing.ts";
import { ACTIONS, REQUEST_SCHEMAS, type StreetAction } from "../../server/street/schemas/index.ts";
import type { FuzzRequest, KeyPools, Keys } from "./requests.ts";

// ---- the zod walk

export type FieldKind =
  | { kind: "number"; min?: number; max?: number; int?: boolean }
  | { kind: "string"; values?: readonly string[] }
  | { kind: "boolean" }
  | { kind: "literal"; values: readonly unknown[] }
  | { kind: "array" }
  | { kind: "object" }
  | { kind: "any" };

/** A field: its path in the request ("[]" is an array's item, "[i]" a tuple's i-th) and what it holds. */
export interface Field {
  path: readonly string[];
  type: FieldKind;
}

interface ZodDef {
  type: string;
  innerType?: z.ZodType;
  in?: z.ZodType;
  out?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  element?: z.ZodType;
  items?: z.ZodType[];
  options?: z.ZodType[];
  entries?: Record<string, string>;
  values?: unknown[];
  left?: z.ZodType;
  right?: z.ZodType;
}
const defOf = (s: z.ZodType) => (s as unknown as { _zod: { def: ZodDef } })._zod.def;

/** Every field of a zod schema, by walking its definition (wrappers, pipes, unions, objects, arrays). */
export function zodFields(schema: z.ZodType, path: readonly string[] = [], out: Field[] = [], depth = 0): Field[] {
  if (depth > 12) return out;
  const d = defOf(schema);
  const push = (type: FieldKind) => path.length > 0 && out.push({ path, type });
  switch (d.type) {
    case "optional":
    case "default":
    case "prefault":
    case "nullable":
    case "readonly":
    case "catch":
    case "nonoptional":
      return zodFields(d.innerType!, path, out, depth + 1);
    case "pipe": {
      // what a client sends is the pipe's input; an enum at its end names the values that pass
      const o = defOf(d.out!);
      if (o.type === "enum") return (push({ kind: "string", values: Object.values(o.entries!) }), out);
      if (defOf(d.in!).type === "unknown" || defOf(d.in!).type === "any") return zodFields(d.out!, path, out, depth + 1);
      return zodFields(d.in!, path, out, depth + 1);
    }
    case "object":
      push({ kind: "object" });
      for (const [k, v] of Object.entries(d.shape!)) zodFields(v, [...path, k], out, depth + 1);
      return out;
    case "array":
      push({ kind: "array" });
      return zodFields(d.element!, [...path, "[]"], out, depth + 1);
    case "tuple":
      push({ kind: "array" });
      d.items!.forEach((it, i) => zodFields(it, [...path, `[${i}]`], out, depth + 1));
      return out;
    case "union":
      for (const o of d.options!) zodFields(o, path, out, depth + 1);
      return out;
    case "intersection":
      zodFields(d.left!, path, out, depth + 1);
      return zodFields(d.right!, path, out, depth + 1);
    case "number": {
      const n = schema as unknown as { minValue: number | null; maxValue: number | null; isInt: boolean };
      return (push({ kind: "number", ...(Number.isFinite(n.minValue) ? { min: n.minValue! } : {}), ...(Number.isFinite(n.maxValue) ? { max: n.maxValue! } : {}), int: n.isInt }), out);
    }
    case "string":
      return (push({ kind: "string" }), out);
    case "boolean":
      return (push({ kind: "boolean" }), out);
    case "enum":
      return (push({ kind: "string", values: Object.values(d.entries!) }), out);
    case "literal":
      return (push({ kind: "literal", values: d.values! }), out);
    default:
      // unknown, any, and what a refinement hides (linear_cost_factors' items)
      return (push({ kind: "any" }), out);
  }
}

/**
 * Fields Valhalla 3.6.1 reads that the gateway's schemas do not declare (they pass through to the
 * engine unchecked): per action and per costing (src/worker.cc, sif/*cost.cc, the API reference).
 */
const num = (min?: number, max?: number): FieldKind => ({ kind: "number", ...(min !== undefined ? { min } : {}), ...(max !== undefined ? { max } : {}) });
const numbers: FieldKind = { kind: "array" };
export const VALHALLA_PASSTHROUGH: Field[] = [
  { path: ["durations"], type: numbers },
  { path: ["durations", "[]"], type: num(0) },
  { path: ["shape_match"], type: { kind: "string", values: ["edge_walk", "map_snap", "walk_or_snap"] } },
  { path: ["trace_options"], type: { kind: "object" } },
  ...["search_radius", "gps_accuracy", "breakage_distance", "interpolation_distance", "turn_penalty_factor"].map((k) => ({ path: ["trace_options", k], type: num(0) })),
  { path: ["filters"], type: { kind: "object" } },
  { path: ["filters", "attributes"], type: { kind: "array" } },
  { path: ["filters", "action"], type: { kind: "string", values: ["include", "exclude"] } },
  { path: ["date_time", "type"], type: num(0, 3) },
  { path: ["date_time", "value"], type: { kind: "string", values: ["2019-06-04T08:00", "current"] } },
  { path: ["contours"], type: { kind: "array" } },
  { path: ["contours", "[]", "time"], type: num(1, 100) },
  { path: ["contours", "[]", "distance"], type: num(1, 100) },
  { path: ["contours", "[]", "color"], type: { kind: "string", values: ["ff0000"] } },
  { path: ["action"], type: { kind: "string", values: ["route", "isochrone", "sources_to_targets"] } },
  { path: ["sources"], type: { kind: "array" } },
  { path: ["targets"], type: { kind: "array" } },
  { path: ["shape"], type: { kind: "array" } },
  { path: ["encoded_polyline"], type: { kind: "string" } },
  { path: ["resample_distance"], type: num(0, 100) },
  { path: ["height_precision"], type: num(0, 2) },
  { path: ["range"], type: { kind: "boolean" } },
  { path: ["elevation_interval"], type: num(0) },
  { path: ["alternates"], type: num(0, 2) },
  { path: ["begin_time"], type: num(0) },
  { path: ["use_timestamps"], type: { kind: "boolean" } },
  { path: ["matrix_locations"], type: num(1) },
  { path: ["verbose"], type: { kind: "boolean" } },
  { path: ["denoise"], type: num(0, 1) },
  { path: ["generalize"], type: num(0, 200) },
  { path: ["polygons"], type: { kind: "boolean" } },
  { path: ["reverse"], type: { kind: "boolean" } },
  { path: ["show_locations"], type: { kind: "boolean" } },
  { path: ["dedupe"], type: { kind: "boolean" } },
  { path: ["skip_opposites"], type: { kind: "boolean" } },
  { path: ["expansion_properties"], type: { kind: "array" } },
  { path: ["prioritize_bidirectional"], type: { kind: "boolean" } },
  { path: ["roundabout_exits"], type: { kind: "boolean" } },
  { path: ["banner_instructions"], type: { kind: "boolean" } },
  { path: ["voice_instructions"], type: { kind: "boolean" } },
  { path: ["linear_references"], type: { kind: "boolean" } },
  { path: ["turn_lanes"], type: { kind: "boolean" } },
  { path: ["elevation"], type: { kind: "boolean" } },
  { path: ["avoid_locations"], type: { kind: "array" } },
  { path: ["avoid_polygons"], type: { kind: "array" } },
  { path: ["trace"], type: { kind: "array" } },
  { path: ["locations", "[]", "time"], type: num(0) },
  { path: ["locations", "[]", "date_time"], type: { kind: "string" } },
  { path: ["locations", "[]", "search_filter", "level"], type: num() },
  { path: ["shape", "[]", "time"], type: num(0) },
  // costing options the schemas leave to the engine (pedestrian, truck, motorcycle, motor scooter)
  ...[
    ...["walking_speed", "walkway_factor", "sidewalk_factor", "alley_factor", "driveway_factor", "step_penalty", "elevator_penalty", "max_hiking_difficulty", "max_distance", "transit_start_end_max_distance", "transit_transfer_max_distance", "use_lit", "mode_factor", "bss_rent_cost"].map((k) => ["pedestrian", k] as const),
    ...["height", "width", "length", "weight", "axle_load", "axle_count", "hazmat", "use_truck_route", "top_speed", "use_highways", "use_tolls", "fixed_speed"].map((k) => ["truck", k] as const),
    ...["use_highways", "use_trails", "use_primary", "use_hills", "top_speed"].map((k) => ["motorcycle", k] as const),
    ...["use_primary", "use_hills", "top_speed"].map((k) => ["motor_scooter", k] as const),
    ...["walking_speed", "cycling_speed", "bss_rent_cost", "bss_rent_penalty"].map((k) => ["bikeshare", k] as const),
  ].map(([c, k]) => ({ path: ["costing_options", c, k], type: k === "hazmat" || k === "use_truck_route" ? ({ kind: "boolean" } as FieldKind) : k === "type" ? ({ kind: "string" } as FieldKind) : num(0) })),
  { path: ["costing_options", "pedestrian", "type"], type: { kind: "string", values: ["foot", "wheelchair", "blind"] } },
];

// ---- JSON text that JSON.stringify cannot write

/** A piece of JSON text written as is (-0, 1e400, NaN, deep nesting). */
export class Raw {
  constructor(readonly text: string) {}
}
/** An object written from its entries, so a key may appear twice. */
export class Entries {
  constructor(readonly entries: [string, unknown][]) {}
}

export function json(v: unknown): string {
  if (v instanceof Raw) return v.text;
  if (v instanceof Entries) return `{${v.entries.map(([k, x]) => `${JSON.stringify(k)}:${json(x)}`).join(",")}}`;
  if (Array.isArray(v)) return `[${v.map(json).join(",")}]`;
  if (v && typeof v === "object") return `{${Object.entries(v).map(([k, x]) => `${JSON.stringify(k)}:${json(x)}`).join(",")}}`;
  if (typeof v === "number" && !Number.isFinite(v)) return "null";
  return JSON.stringify(v) ?? "null";
}

// ---- mutated values

/** Numbers at the edges of what doubles and parsers hold (as JSON text). */
export const EXTREME_NUMBERS = ["0", "-0", "1e308", "-1e308", "1e-308", "-1e-308", "1.7976931348623157e308", "-1.7976931348623157e308", "5e-324", "1e400", "-1e400", "9007199254740993", "-2147483649", "4294967296", "-1000", "-1e5", "-1e9", "-1e12"];
const extreme = fc.constantFrom(...EXTREME_NUMBERS.map((t) => new Raw(t)), "NaN", "Infinity", "-Infinity", "-0", "1e308");
/** Deep nesting: arrays and objects, a few levels to thousands. */
const deep = fc.constantFrom(...[64, 1_000, 10_000].flatMap((n) => [new Raw("[".repeat(n) + "]".repeat(n)), new Raw('{"a":'.repeat(n) + "1" + "}".repeat(n))]));

/** A valid value for a field (within its bounds, from its enum). */
function validValue(t: FieldKind): fc.Arbitrary<unknown> {
  switch (t.kind) {
    case "number": {
      const lo = Math.max(t.min ?? -1e4, -1e6);
      const hi = Math.min(t.max ?? Math.max(lo, 0) + 1e4, 1e6);
      const edges = [t.min, t.max].filter((x): x is number => x !== undefined);
      const inside = t.int ? fc.integer({ min: Math.ceil(lo), max: Math.floor(Math.max(lo, hi)) }) : fc.double({ min: lo, max: Math.max(lo, hi), noNaN: true, noDefaultInfinity: true });
      return edges.length ? fc.oneof({ arbitrary: inside, weight: 4 }, { arbitrary: fc.constantFrom(...edges), weight: 1 }) : inside;
    }
    case "string":
      return t.values?.length ? fc.constantFrom(...t.values) : fc.string({ maxLength: 12 });
    case "boolean":
      return fc.boolean();
    case "literal":
      return fc.constantFrom(...t.values);
    case "array":
      return fc.constantFrom([], [], [0], [{}]);
    case "object":
      return fc.constant({});
    case "any":
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** The same value as another type: string↔number↔array↔object↔null↔boolean. */
const retyped = (v: unknown): fc.Arbitrary<unknown> => fc.constantFrom(typeof v === "string" ? v : String(json(v)), typeof v === "number" ? v : Number.isFinite(Number(v)) ? Number(v) : 1, [v], { value: v }, null, true, false, "");

/** A sign-flipped value: -x for a number (and the number of a numeric string), -1000 and -1e308 otherwise. */
const flipped = (v: unknown): unknown => (typeof v === "number" ? (v === 0 ? new Raw("-0") : -v) : typeof v === "string" && v !== "" && Number.isFinite(Number(v)) ? String(-Number(v)) : new Raw("-1000"));

/** Arrays of 0, 1 and 10,000 items (10k small numbers, 10k empty objects, 10k copies of the value). */
const sized = (v: unknown): fc.Arbitrary<unknown> =>
  fc.constantFrom([], [v], new Raw(`[${Array(10_000).fill("0").join(",")}]`), new Raw(`[${Array(10_000).fill("-1e308").join(",")}]`), new Raw(`[${Array(10_000).fill("{}").join(",")}]`), new Raw(`[${Array(10_000).fill(json(v)).join(",")}]`));

export type Mutation = "valid" | "retyped" | "flipped" | "extreme" | "sized" | "deep";

/** A value for a field: valid, or mutated one way. */
export function fieldValue(t: FieldKind): fc.Arbitrary<{ mutation: Mutation; value: unknown }> {
  const valid = validValue(t);
  return fc.oneof(
    { arbitrary: valid.map((value) => ({ mutation: "valid" as const, value })), weight: 3 },
    { arbitrary: valid.chain(retyped).map((value) => ({ mutation: "retyped" as const, value })), weight: 2 },
    { arbitrary: valid.map((v) => ({ mutation: "flipped" as const, value: flipped(v) })), weight: 2 },
    { arbitrary: extreme.map((value) => ({ mutation: "extreme" as const, value })), weight: 3 },
    { arbitrary: valid.chain(sized).map((value) => ({ mutation: "sized" as const, value })), weight: 1 },
    { arbitrary: deep.map((value) => ({ mutation: "deep" as const, value })), weight: 1 },
  );
}

// ---- street bodies

type Body = Record<string, unknown>;

/** Sets `value` at `path` in `body` (creating objects and one-item arrays on the way; "[]" is item 0, or every item). */
export function setAt(body: Body, path: readonly string[], value: unknown, everyItem = false): void {
  let node: unknown = body;
  for (let i = 0; i < path.length; i++) {
    const key = path[i]!;
    const last = i === path.length - 1;
    if (key === "[]" || /^\[\d+\]$/.test(key)) {
      if (!Array.isArray(node)) return;
      const idx = key === "[]" ? 0 : Number(key.slice(1, -1));
      if (node.length <= idx) node.push(...Array.from({ length: idx + 1 - node.length }, () => ({})));
      const targets = key === "[]" && everyItem ? node.map((_, j) => j) : [idx];
      if (last) {
        for (const j of targets) node[j] = value;
        return;
      }
      for (const j of targets) {
        if (typeof node[j] !== "object" || node[j] === null || node[j] instanceof Raw) node[j] = path[i + 1]!.startsWith("[") ? [] : {};
      }
      if (targets.length > 1) {
        for (const j of targets.slice(1)) setAt(node[j] as Body, path.slice(i + 1), value);
      }
      node = node[targets[0]!];
      continue;
    }
    const o = node as Body;
    if (last) {
      o[key] = value;
      return;
    }
    if (typeof o[key] !== "object" || o[key] === null || o[key] instanceof Raw) o[key] = path[i + 1]!.startsWith("[") ? [] : {};
    node = o[key];
  }
}

/** Two places downtown, inside the street extract (Civic Center, Embarcadero) and a walk between them. */
const A = { lat: 37.7793, lon: -122.4193 };
const B = { lat: 37.7895, lon: -122.3972 };
const TRACE = [
  { lat: 37.7793, lon: -122.4193 },
  { lat: 37.7801, lon: -122.4177 },
  { lat: 37.7809, lon: -122.4161 },
];

/** A request of `action` the engine answers (the base a mutation starts from). */
export function baseBody(action: StreetAction, costing: string): Body {
  const locs = () => [{ ...A }, { ...B }];
  switch (action) {
    case "route":
    case "centroid":
    case "optimized_route":
      return { costing, locations: locs() };
    case "isochrone":
      return { costing, locations: [{ ...A }], contours: [{ time: 5 }] };
    case "expansion":
      return { costing, locations: [{ ...A }], action: "isochrone", contours: [{ time: 5 }] };
    case "height":
      return { shape: locs() };
    case "locate":
      return { costing, locations: [{ ...A }] };
    case "sources_to_targets":
      return { costing, sources: [{ ...A }], targets: [{ ...B }] };
    case "trace_route":
    case "trace_attributes":
      return { costing, shape: TRACE.map((p) => ({ ...p })) };
    case "status":
      return {};
  }
}

/** The fields of each action's schema (status: none), walked once. */
export const STREET_FIELDS: Record<StreetAction, Field[]> = Object.fromEntries(ACTIONS.map((a) => [a, a === "status" ? [] : zodFields(REQUEST_SCHEMAS[a])])) as Record<StreetAction, Field[]>;

/** Every field any action documents or Valhalla reads, deduplicated by path. */
const ALL_STREET_FIELDS: Field[] = (() => {
  const seen = new Map<string, Field>();
  for (const f of [...Object.values(STREET_FIELDS).flat(), ...VALHALLA_PASSTHROUGH]) if (!seen.has(f.path.join("."))) seen.set(f.path.join("."), f);
  return [...seen.values()];
})();

/**
 * One field of a list, its group first (the top-level key; costing_options by costing), then a field
 * of the group: the 400 costing options do not drown `durations`.
 */
function grouped(fields: Field[]): fc.Arbitrary<Field> {
  const groups = new Map<string, Field[]>();
  for (const f of fields) {
    const g = f.path[0] === "costing_options" && f.path.length > 1 ? `${f.path[0]}.${f.path[1]}` : f.path[0]!;
    groups.set(g, [...(groups.get(g) ?? []), f]);
  }
  return fc.constantFrom(...groups.values()).chain((g) => fc.constantFrom(...g));
}

/** The fields a working request already holds (what a mutation most often reaches the engine through), typed by their values. */
function presentFields(body: unknown, path: string[] = []): Field[] {
  if (Array.isArray(body)) return [...(path.length ? [{ path, type: { kind: "array" } as FieldKind }] : []), ...(body.length ? presentFields(body[0], [...path, "[]"]) : [])];
  if (body && typeof body === "object") return [...(path.length ? [{ path, type: { kind: "object" } as FieldKind }] : []), ...Object.entries(body).flatMap(([k, v]) => presentFields(v, [...path, k]))];
  const type: FieldKind = typeof body === "number" ? { kind: "number", min: path.at(-1) === "time" ? 1 : undefined, max: undefined } : typeof body === "boolean" ? { kind: "boolean" } : { kind: "string", values: [String(body)] };
  return [{ path, type: JSON.parse(JSON.stringify(type)) as FieldKind }];
}

const CAN_COST = COSTINGS.filter((c) => c !== "auto_pedestrian");

/**
 * A street request: an action's base request with one to three fields (its own, another action's, or
 * a pass-through one) set to a valid or mutated value, sometimes a key duplicated; as a POST body or
 * a GET `?json=`.
 */
export function streetFieldRequest(keys: Keys): fc.Arbitrary<FuzzRequest> {
  const perAction = ACTIONS.map((action) => {
    const own = STREET_FIELDS[action];
    const present = presentFields(baseBody(action, "auto"));
    const field = fc.oneof(
      ...(present.length ? [{ arbitrary: fc.constantFrom(...present), weight: 3 }] : []),
      ...(own.length ? [{ arbitrary: grouped(own), weight: 3 }] : []),
      { arbitrary: grouped(ALL_STREET_FIELDS), weight: 2 },
      { arbitrary: grouped(VALHALLA_PASSTHROUGH), weight: 4 },
    );
    return fc
      .record({
        costing: fc.constantFrom(...CAN_COST),
        changes: fc.array(fc.tuple(field, fc.boolean()).chain(([f, every]) => fieldValue(f.type).map((v) => ({ f, v, every }))), { minLength: 1, maxLength: 3 }),
        duplicate: fc.constantFrom(false, false, false, true),
        get: fc.constantFrom(false, false, false, true),
      })
      .map(({ costing, changes, duplicate, get }): FuzzRequest => {
        const body = baseBody(action, costing);
        for (const { f, v, every } of changes) setAt(body, f.path, v.value, every);
        let text = json(body);
        if (duplicate) {
          // the first changed top-level key again, with its base value after it
          const k = changes[0]!.f.path[0]!;
          const again = (baseBody(action, costing) as Body)[k];
          text = json(new Entries([...Object.entries(body), [k, again ?? null]]));
        }
        const label = `street fields ${action}: ${changes.map(({ f, v }) => `${f.path.join(".")}=${v.mutation}`).join(", ")}${duplicate ? " (key twice)" : ""}`;
        const path = `/api/v2/routing/valhalla/${action}`;
        // GET ?json= while the URL stays under Bun's limit (a longer one is Bun's own 431)
        if ((get || action === "status") && text.length <= 6_000) return { label, method: "GET", path, query: `json=${encodeURIComponent(text)}`, headers: { apikey: keys.valid } };
        return { label, method: "POST", path, query: "", headers: { apikey: keys.valid, "content-type": "application/json" }, body: text };
      });
  });
  return fc.oneof(...perAction);
}

// ---- the pages and files outside the API

/** Pages and static files (the map, the docs) with a hostile last segment: invalid percent-encoding, traversal. */
export function staticPathRequest(segments: readonly string[]): fc.Arbitrary<FuzzRequest> {
  return fc
    .tuple(fc.constantFrom("/map", "/map/vendor", "/map/web", "/docs", "/docs/json", ""), fc.constantFrom(...segments, "%c0", "%c0%af", "%", "%2", "vendor%2F..%2F..%2Fpackage.json"))
    .map(([base, seg]) => ({ label: `static ${base}/{hostile}`, method: "GET", path: `${base}/${seg}`, query: "", headers: {} }));
}

// ---- catalog and plan queries

type ParamTable = Record<string, z.ZodType>;
interface ParamMeta {
  type?: string;
  minimum?: number;
  maximum?: number;
  enum?: string[];
  pattern?: string;
}
const metaOf = (s: z.ZodType): ParamMeta => ((s as unknown as { meta(): ParamMeta | undefined }).meta() ?? {}) as ParamMeta;

/** The catalog's and the planner's endpoints with their parameter tables. */
export const QUERY_TABLES: { name: string; table: ParamTable; paths: (pools: KeyPools) => string[] }[] = [
  { name: "stops", table: STOP_PARAMS, paths: (p) => ["/api/v2/rest/stops", "/api/v2/rest/stops.geojson", `/api/v2/rest/stops/${encodeURIComponent(p.stopKeys[0] ?? "1")}`] },
  { name: "routes", table: ROUTE_PARAMS, paths: (p) => ["/api/v2/rest/routes", "/api/v2/rest/routes.geojsonl", `/api/v2/rest/routes/${encodeURIComponent(p.routeKeys[0] ?? "1")}`] },
  { name: "trips", table: TRIP_PARAMS, paths: (p) => [`/api/v2/rest/routes/${encodeURIComponent(p.routeKeys[0] ?? "1")}/trips`, `/api/v2/rest/routes/${encodeURIComponent(p.routeKeys[0] ?? "1")}/trips.geojson`] },
  { name: "departures", table: DEPARTURE_PARAMS, paths: (p) => [`/api/v2/rest/stops/${encodeURIComponent(p.stopKeys[0] ?? "1")}/departures`] },
  { name: "plan", table: PLAN_PARAMS, paths: () => ["/api/v2/routing/otp/plan"] },
];
/** Every query parameter name the code's tables hold (for sending one endpoint's name to another). */
const ALL_PARAM_NAMES = [...new Set(QUERY_TABLES.flatMap((t) => Object.keys(t.table)))];
export const PATH_PARAM_NAMES = Object.keys(PATH_PARAMS);

/** Text values of a parameter from its metadata: valid ones, or mutated. */
function paramText(m: ParamMeta): fc.Arbitrary<string> {
  const valid: fc.Arbitrary<string> = m.enum?.length
    ? fc.constantFrom(...m.enum)
    : m.type === "integer" || m.type === "number"
      ? validValue({ kind: "number", ...(m.minimum !== undefined ? { min: m.minimum } : {}), ...(m.maximum !== undefined ? { max: m.maximum } : {}), int: m.type === "integer" }).map(String)
      : m.type === "boolean"
        ? fc.constantFrom("true", "false")
        : fc.string({ maxLength: 10 });
  const list = (n: number, x: string) => Array(n).fill(x).join(",");
  return fc.oneof(
    { arbitrary: valid, weight: 3 },
    { arbitrary: valid.map((v) => (Number.isFinite(Number(v)) && v !== "" ? String(-Number(v)) : `-${v}`)), weight: 2 },
    { arbitrary: fc.constantFrom(...EXTREME_NUMBERS, "NaN", "Infinity", "-Infinity", "1e-308"), weight: 3 },
    { arbitrary: fc.constantFrom("true", "null", "[]", "{}", "[1]", '{"a":1}', "", " ", "1,2", "a", "x".repeat(2_000)), weight: 2 },
    // long lists that keep the URL under Bun's limit (a longer one is Bun's own 431, not the service's)
    { arbitrary: fc.constantFrom(list(1_000, "1"), list(400, "-1e308"), list(1_000, "x"), "[".repeat(1_000)), weight: 1 },
  );
}

/** A plan that reaches the planner: both places and a date and time (the mutations go on top). */
const PLAN_BASE = ["fromPlace=37.7793%2C-122.4193", "toPlace=37.8044%2C-122.2712", "date=2019-06-04", "time=08%3A00"];

/**
 * A catalog or plan request: one to four of an endpoint's parameters (names from its table, now and
 * then another endpoint's), each valid or mutated, a name sometimes twice or in array form.
 */
export function paramFieldRequest(keys: Keys, pools: KeyPools): fc.Arbitrary<FuzzRequest> {
  return fc.oneof(
    ...QUERY_TABLES.map(({ name, table, paths }) => {
      const own = Object.keys(table);
      const pname = fc.oneof({ arbitrary: fc.constantFrom(...own), weight: 6 }, { arbitrary: fc.constantFrom(...ALL_PARAM_NAMES), weight: 1 });
      const pair = pname.chain((n) => fc.tuple(fc.constant(n), paramText(metaOf(table[n] ?? table[own[0]!]!)), fc.constantFrom("", "", "", "", "", "", "[]", "[0]")));
      return fc
        .record({ path: fc.constantFrom(...paths(pools)), pairs: fc.array(pair, { minLength: 1, maxLength: 4 }), twice: fc.constantFrom(false, false, false, true), base: fc.constantFrom(true, true, true, false) })
        .map(({ path, pairs, twice, base }): FuzzRequest => {
          const q = pairs.map(([n, v, form]) => `${encodeURIComponent(n)}${encodeURIComponent(form)}=${encodeURIComponent(v)}`);
          if (twice) q.push(q[0]!.replace(/=.*/, "=1"));
          if (name === "plan" && base) q.unshift(...PLAN_BASE);
          return { label: `${name} params: ${pairs.map(([n, , f]) => n + f).join(", ")}${twice ? " (twice)" : ""}`, method: "GET", path, query: q.join("&"), headers: { apikey: keys.valid } };
        });
    }),
  );
}
