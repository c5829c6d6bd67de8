/**
 * The fuzzer's requests: one fast-check arbitrary over every operation of the service's OpenAPI
 * description (/docs/json: paths, methods, parameters with their types, enums and bounds, the
 * street endpoints' request-body schemas), with keys drawn from the dataset, mixed with hand-made
 * hostile inputs (hostile.ts) and request-level mischief: wrong methods, missing or foreign keys,
 * unknown and duplicated parameters, odd content types.
 */
import fc from "fast-check";
import { type Family, familyOf, HOSTILE_PARAM_VALUES, HOSTILE_PATH_SEGMENTS, HOSTILE_FORMATS, hostileBodies } from "./hostile.ts";
import { parameterText, type Schema, type SchemaContext, schemaArbitrary, toJson } from "./schema-arbitrary.ts";
import type { FuzzRequest, KeyPools, Keys } from "./types.ts";

export type { FuzzRequest, KeyPools, Keys } from "./types.ts";


export const requestFamily = (r: FuzzRequest): Family => familyOf(r.path);

interface Parameter {
  name: string;
  in: "path" | "query" | "header" | "cookie";
  required?: boolean;
  schema?: Schema;
  content?: Record<string, { schema?: Schema }>;
}

export interface Operation {
  method: string;
  /** path template, e.g. /api/v2/rest/stops/{stop_key}.{format} */
  template: string;
  parameters: Parameter[];
  body: Schema | null;
}

/** Every operation of the OpenAPI document, plus the docs' own two pages. */
export function operations(doc: { paths: Record<string, Record<string, { parameters?: Parameter[]; requestBody?: { content?: Record<string, { schema?: Schema }> } }>> }): Operation[] {
  const out: Operation[] = [];
  for (const [template, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (!["get", "post", "put", "delete", "patch", "head", "options"].includes(method)) continue;
      out.push({ method: method.toUpperCase(), template, parameters: op.parameters ?? [], body: op.requestBody?.content?.["application/json"]?.schema ?? null });
    }
  }
  out.push({ method: "GET", template: "/docs/json", parameters: [], body: null }, { method: "GET", template: "/docs", parameters: [], body: null });
  return out;
}



/** encodeURIComponent, with lone surrogates (which it refuses, and UTF-8 cannot carry) as U+FFFD */
const enc = (s: string) => encodeURIComponent(s.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, "\uFFFD"));

const ident = (xs: string[]) => fc.constantFrom(...(xs.length ? xs : ["x"]));

/** Extra values for parameters whose schema says little (free strings): what the service expects there. */
function hints(name: string, pools: KeyPools, ctx: SchemaContext): fc.Arbitrary<string> | null {
  const [minLon, minLat, maxLon, maxLat] = ctx.bbox;
  const lat = fc.double({ min: minLat, max: maxLat, noNaN: true }).map((x) => x.toFixed(5));
  const lon = fc.double({ min: minLon, max: maxLon, noNaN: true }).map((x) => x.toFixed(5));
  switch (name) {
    case "fromPlace":
    case "toPlace":
      return fc.oneof(fc.tuple(lat, lon).map(([a, b]) => `${a},${b}`), fc.tuple(lat, lon).map(([a, b]) => `Here::${a},${b}`), ident(pools.stopIds).map((s) => `${pools.feedOnestopIds[0]}:${s}`));
    case "date":
    case "service_date":
      return fc.constantFrom("2019-06-04", "2019-06-08", "20190604", "06-04-2019", "2030-01-01", "1900-02-30", "2019-02-29", "2019-13-01", "0000-00-00");
    case "time":
      return fc.constantFrom("08:00", "8:00am", "12:30pm", "23:59:59", "25:00", "48:00", "47:59:59", "36000", "-1", "8:60");
    case "mode":
      return fc.constantFrom("WALK", "TRANSIT,WALK", "BICYCLE", "CAR", "BUS,RAIL", "SUBWAY,WALK", "WALK,TRANSIT,FOO", "BICYCLE,TRANSIT");
    case "bbox":
      return fc.oneof(fc.tuple(lon, lat, lon, lat).map((xs) => xs.join(",")), fc.constant(`${minLon},${minLat},${maxLon},${maxLat}`), fc.constant("-180,-90,180,90"));
    case "served_by_onestop_ids":
    case "preferredRoutes":
    case "bannedRoutes":
    case "whiteListedRoutes":
      return fc.array(ident([...pools.routeOnestopIds, ...pools.routeKeys]), { minLength: 1, maxLength: 3 }).map((xs) => xs.join(","));
    case "served_by_route_types":
      return fc.array(fc.integer({ min: -1, max: 1800 }), { minLength: 1, maxLength: 3 }).map((xs) => xs.join(","));
    case "feed_onestop_id":
      return ident(pools.feedOnestopIds);
    case "feed_version_sha1":
      return ident(pools.versionSha1s);
    case "stop_id":
    case "bannedStops":
      return ident(pools.stopIds);
    case "onestop_id":
      return ident(pools.stopKeys.filter((k) => k.startsWith("s-")));
    case "trip_id":
    case "bannedTrips":
      return ident(pools.tripGtfsIds);
    default:
      return null;
  }
}

function pathValue(name: string, pools: KeyPools, schema: Schema | undefined, ctx: SchemaContext): fc.Arbitrary<string> {
  const hostile = fc.constantFrom(...HOSTILE_PATH_SEGMENTS);
  if (name === "format") {
    const formats = Array.isArray(schema?.enum) ? (schema!.enum as string[]) : ["json"];
    return fc.oneof({ arbitrary: fc.constantFrom(...formats), weight: 8 }, { arbitrary: fc.constantFrom(...HOSTILE_FORMATS), weight: 2 });
  }
  const pool = name === "route_key" ? pools.routeKeys : name === "stop_key" ? pools.stopKeys : name === "id" ? pools.tripIds : [];
  const valid = pool.length ? ident(pool).map(enc) : parameterText(schema, name, ctx).map(enc);
  return fc.oneof({ arbitrary: valid, weight: 8 }, { arbitrary: fc.integer({ min: -5, max: 100_000 }).map(String), weight: 1 }, { arbitrary: hostile, weight: 2 });
}

/** A query value: hinted, from the schema, or hostile (hostile ones are already URL-safe text). */
function queryPair(p: Parameter, pools: KeyPools, ctx: SchemaContext): fc.Arbitrary<string> {
  const schema = p.schema ?? p.content?.["application/json"]?.schema;
  const isJson = !p.schema && Boolean(p.content?.["application/json"]);
  const fromSchema = isJson && schema ? schemaArbitrary(schema, p.name, ctx).map(toJson) : parameterText(schema, p.name, ctx);
  const hint = hints(p.name, pools, ctx);
  const arbs: fc.WeightedArbitrary<string>[] = [
    { arbitrary: fromSchema.map(enc), weight: 6 },
    { arbitrary: fc.constantFrom(...HOSTILE_PARAM_VALUES), weight: 1 },
  ];
  if (hint) arbs.push({ arbitrary: hint.map(enc), weight: 10 });
  return fc.oneof(...arbs).map((v) => `${enc(p.name)}=${v}`);
}

const UNKNOWN_PARAMS = ["unknown=1", "foo%5Bbar%5D=2", "__proto__=x", "__proto__%5Bpolluted%5D=1", "constructor=1", "=empty-name", "flag", "a".repeat(200) + "=1", "%FF=1", "apikey="];

function operationRequest(op: Operation, pools: KeyPools, ctx: SchemaContext, keys: Keys): fc.Arbitrary<FuzzRequest> {
  const pathNames = [...op.template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
  const pathArbs = pathNames.map((n) => pathValue(n, pools, op.parameters.find((p) => p.name === n && p.in === "path")?.schema, ctx));
  const query = op.parameters.filter((p) => p.in === "query");
  const required = query.filter((p) => p.required);
  const optional = query.filter((p) => !p.required);
  // plans need both places most of the time, or every plan is a "missing parameter"
  const wanted = op.template.endsWith("/plan") ? optional.filter((p) => p.name === "fromPlace" || p.name === "toPlace") : [];
  const queryArb = fc
    .record({
      chosen: fc.subarray(optional, { maxLength: Math.min(4, optional.length) }),
      keepWanted: fc.constantFrom(true, true, true, true, false),
      unknown: fc.oneof({ arbitrary: fc.constant<string[]>([]), weight: 8 }, { arbitrary: fc.subarray(UNKNOWN_PARAMS, { minLength: 1, maxLength: 2 }), weight: 1 }),
      duplicate: fc.constantFrom(false, false, false, false, false, true),
    })
    .chain(({ chosen, keepWanted, unknown, duplicate }) => {
      const params = [...required, ...(keepWanted ? wanted : []), ...chosen.filter((p) => !wanted.includes(p))];
      const pairs = params.map((p) => queryPair(p, pools, ctx));
      if (duplicate && params.length) pairs.push(queryPair(params[0]!, pools, ctx));
      return (pairs.length ? fc.tuple(...pairs) : fc.constant([] as string[])).map((xs) => [...xs, ...unknown]);
    });
  const bodyArb: fc.Arbitrary<string | Uint8Array | undefined> = op.body
    ? fc.oneof({ arbitrary: schemaArbitrary(op.body, "body", ctx).map(toJson), weight: 12 }, { arbitrary: hostileBodies(ctx.bbox), weight: 2 })
    : fc.constant(undefined);
  const otherMethods = ["GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"].filter((m) => m !== op.method);
  return fc
    .record({
      parts: fc.tuple(...(pathArbs.length ? pathArbs : [fc.constant("")])),
      query: queryArb,
      body: bodyArb,
      method: fc.oneof({ arbitrary: fc.constant(op.method), weight: 20 }, { arbitrary: fc.constantFrom(...otherMethods), weight: 1 }),
      auth: fc.oneof({ arbitrary: fc.constant("header"), weight: 40 }, { arbitrary: fc.constantFrom("query", "none", "invalid", "limited", "both"), weight: 6 }),
      contentType: fc.constantFrom("application/json", "application/json", "application/json", "application/json", "text/plain", "application/x-www-form-urlencoded", "application/json; charset=utf-16", ""),
    })
    .map(({ parts, query, body, method, auth, contentType }) => {
      let i = 0;
      const path = op.template.replace(/\{[^}]+\}/g, () => parts[i++]!);
      const headers: Record<string, string> = {};
      const pairs = [...query];
      if (auth === "header" || auth === "both") headers.apikey = keys.valid;
      if (auth === "query" || auth === "both") pairs.push(`apikey=${keys.valid}`);
      if (auth === "invalid") headers.apikey = "not-a-valid-key";
      if (auth === "limited") headers.apikey = keys.limited;
      const withBody = body !== undefined && method !== "GET" && method !== "HEAD";
      if (withBody && contentType) headers["content-type"] = contentType;
      return { label: `${op.method} ${op.template}`, method, path, query: pairs.join("&"), headers, ...(withBody ? { body } : {}) };
    });
}

/**
 * One request: any operation of the description, built from its schemas, a hand-made hostile one, or
 * one of `extra` (fields.ts: every field of the code's schemas and parameter tables, mutated).
 */
export function requestArbitrary(ops: Operation[], pools: KeyPools, ctx: SchemaContext, keys: Keys, hostile: FuzzRequest[], extra: fc.WeightedArbitrary<FuzzRequest>[] = []): fc.Arbitrary<FuzzRequest> {
  // by family: the planner's one operation as often as the catalog's eight, the street's 22 less each
  const weight = (op: Operation) => ({ plan: 12, catalog: 3, street: 1, other: 1 })[familyOf(op.template)];
  const perOp = fc.oneof(...ops.map((op) => ({ arbitrary: operationRequest(op, pools, ctx, keys), weight: weight(op) })));
  return fc.oneof({ arbitrary: perOp, weight: 9 }, { arbitrary: fc.constantFrom(...hostile), weight: 1 }, ...extra);
}
