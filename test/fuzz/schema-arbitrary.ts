/**
 * fast-check arbitraries from the JSON Schemas of the service's OpenAPI description (/docs/json):
 * values that follow a schema (types, enums, consts, bounds, patterns, item counts, required
 * properties) most of the time, and that break it now and then (a bound crossed, a wrong type, an
 * unknown property, a hostile number), so requests both reach the engine and probe the validation.
 * Coordinates (properties named lat/lon) lean towards the test's street extract, or every request
 * would be a "no street nearby" refusal. JSON texts are built by toJson, which can also write what
 * JSON.stringify cannot: -0, 1e400, NaN.
 */
import fc from "fast-check";

export type Schema = Record<string, unknown>;

/** A piece of JSON text written as is (numbers JSON.stringify would change or refuse). */
export class RawJson {
  constructor(readonly text: string) {}
}

/** JSON text of a generated value (RawJson pieces inserted verbatim). */
export function toJson(v: unknown): string {
  if (v instanceof RawJson) return v.text;
  if (Array.isArray(v)) return `[${v.map(toJson).join(",")}]`;
  if (v && typeof v === "object") return `{${Object.entries(v).map(([k, x]) => `${JSON.stringify(k)}:${toJson(x)}`).join(",")}}`;
  return JSON.stringify(v) ?? "null";
}

/** Numbers and number-like texts that have broken parsers before: huge, tiny, negative zero, not finite. */
export const HOSTILE_NUMBER_TEXTS = ["-0", "1e400", "-1e400", "1e308", "-1.7976931348623157e308", "5e-324", "123456789012345678901234567890", "9007199254740993", "0.1e-400", "-2147483649", "4294967296"];
const hostileNumber = fc.constantFrom(...HOSTILE_NUMBER_TEXTS.map((t) => new RawJson(t)), new RawJson("NaN"), new RawJson("Infinity"));

/** Values of the wrong type for anything. */
const wrongType = fc.oneof(fc.constant(null), fc.constant(""), fc.constant("x".repeat(300)), fc.constant([]), fc.constant({}), fc.boolean(), fc.constant(-1), fc.string({ maxLength: 12 }), fc.constant(new RawJson('{"__proto__":{"polluted":true},"constructor":{"prototype":{"x":1}}}')), fc.constant("\u0000\uFFFF\uD800"));

export interface SchemaContext {
  /** resolves a $ref (a JSON pointer into the OpenAPI document) */
  resolve(ref: string): Schema;
  /** the street extract's box [minLon, minLat, maxLon, maxLat], for lat/lon properties */
  bbox: [number, number, number, number];
}

const MAX_DEPTH = 6;

function numberArb(s: Schema, name: string, ctx: SchemaContext): fc.Arbitrary<unknown> {
  const integer = s.type === "integer";
  const min = typeof s.minimum === "number" ? s.minimum : typeof s.exclusiveMinimum === "number" ? s.exclusiveMinimum : undefined;
  const max = typeof s.maximum === "number" ? s.maximum : typeof s.exclusiveMaximum === "number" ? s.exclusiveMaximum : undefined;
  const lo = Math.max(min ?? -1e6, -1e6);
  const hi = Math.min(max ?? 1e6, 1e6);
  const inRange: fc.Arbitrary<number> = integer ? fc.integer({ min: Math.ceil(lo), max: Math.floor(Math.max(lo, hi)) }) : fc.double({ min: lo, max: Math.max(lo, hi), noNaN: true, noDefaultInfinity: true });
  const defined = (xs: (number | undefined)[]) => xs.filter((x): x is number => x !== undefined);
  const edges = defined([min, max]);
  const beyond = defined([min !== undefined ? min - 1 : undefined, max !== undefined ? max + 1 : undefined]);
  const arbs: fc.WeightedArbitrary<unknown>[] = [
    { arbitrary: inRange, weight: 20 },
    { arbitrary: hostileNumber, weight: 1 },
  ];
  if (edges.length) arbs.push({ arbitrary: fc.constantFrom(...edges), weight: 3 });
  if (beyond.length) arbs.push({ arbitrary: fc.constantFrom(...beyond), weight: 1 });
  if (name === "lat" || name === "lon") {
    const [minLon, minLat, maxLon, maxLat] = ctx.bbox;
    const near = name === "lat" ? fc.double({ min: minLat, max: maxLat, noNaN: true }) : fc.double({ min: minLon, max: maxLon, noNaN: true });
    arbs.push({ arbitrary: near, weight: 24 });
  }
  return fc.oneof(...arbs);
}

function stringArb(s: Schema): fc.Arbitrary<unknown> {
  const arbs: fc.Arbitrary<unknown>[] = [];
  if (typeof s.pattern === "string") {
    try {
      arbs.push(fc.stringMatching(new RegExp(s.pattern)));
    } catch {
      // a pattern fast-check cannot invert: plain strings only
    }
  }
  arbs.push(fc.string({ minLength: typeof s.minLength === "number" ? s.minLength : 0, maxLength: 24 }), fc.string({ unit: "grapheme", maxLength: 8 }));
  return fc.oneof(...arbs);
}

function arrayArb(s: Schema, name: string, ctx: SchemaContext, depth: number): fc.Arbitrary<unknown> {
  if (Array.isArray(s.prefixItems)) {
    const tuple = fc.tuple(...(s.prefixItems as Schema[]).map((p, i) => schemaArbitrary(p, `${name}[${i}]`, ctx, depth + 1)));
    return fc.oneof({ arbitrary: tuple, weight: 8 }, { arbitrary: fc.constant([]), weight: 1 });
  }
  const minItems = typeof s.minItems === "number" ? s.minItems : 0;
  const maxItems = Math.min(typeof s.maxItems === "number" ? s.maxItems : 4, minItems + 4);
  const items = s.items && typeof s.items === "object" ? schemaArbitrary(s.items as Schema, name, ctx, depth + 1) : wrongType;
  const arbs: fc.WeightedArbitrary<unknown>[] = [{ arbitrary: fc.array(items, { minLength: minItems, maxLength: Math.max(minItems, maxItems) }), weight: 10 }];
  // one item too many (the spec's limits: 50 shape points, 3 locations, 5 contours, ...)
  if (typeof s.maxItems === "number" && s.maxItems < 100) arbs.push({ arbitrary: fc.array(items, { minLength: s.maxItems + 1, maxLength: s.maxItems + 1 }), weight: 1 });
  return fc.oneof(...arbs);
}

function objectArb(s: Schema, ctx: SchemaContext, depth: number): fc.Arbitrary<unknown> {
  const props = (s.properties ?? {}) as Record<string, Schema>;
  const required = new Set(Array.isArray(s.required) ? (s.required as string[]) : []);
  const optional = Object.keys(props).filter((k) => !required.has(k));
  // the required properties and a few optional ones: a request with every option set fails on one of them
  return fc.tuple(fc.subarray(optional, { maxLength: Math.min(3, optional.length) }), fc.boolean(), fc.constantFrom(...(required.size ? [true, true, true, false] : [true]))).chain(([chosen, unknown, allRequired]) => {
    const keys = [...[...required].filter((_, i) => allRequired || i > 0), ...chosen];
    const record: Record<string, fc.Arbitrary<unknown>> = {};
    for (const k of keys) record[k] = schemaArbitrary(props[k]!, k, ctx, depth + 1);
    if (unknown && depth === 0) record.unknown_option = wrongType;
    return fc.record(record);
  });
}

/** Values for `schema` (a property named `name`): mostly valid, sometimes not. */
export function schemaArbitrary(schema: Schema, name: string, ctx: SchemaContext, depth = 0): fc.Arbitrary<unknown> {
  const s = typeof schema.$ref === "string" ? ctx.resolve(schema.$ref) : schema;
  if (depth > MAX_DEPTH) return fc.constant({});
  const valid = validArbitrary(s, name, ctx, depth);
  return fc.oneof({ arbitrary: valid, weight: 60 }, { arbitrary: wrongType, weight: 1 });
}

function validArbitrary(s: Schema, name: string, ctx: SchemaContext, depth: number): fc.Arbitrary<unknown> {
  if ("const" in s) return fc.constant(s.const);
  if (Array.isArray(s.enum)) return fc.oneof({ arbitrary: fc.constantFrom(...(s.enum as unknown[])), weight: 30 }, { arbitrary: fc.constant("not-in-the-enum"), weight: 1 });
  const variants = (s.anyOf ?? s.oneOf) as Schema[] | undefined;
  if (Array.isArray(variants) && variants.length) return fc.oneof(...variants.map((v) => schemaArbitrary(v, name, ctx, depth + 1)));
  if (Array.isArray(s.allOf) && s.allOf.length) return schemaArbitrary(Object.assign({}, ...(s.allOf as Schema[])), name, ctx, depth + 1);
  switch (s.type) {
    case "number":
    case "integer":
      return numberArb(s, name, ctx);
    case "string":
      return stringArb(s);
    case "boolean":
      return fc.boolean();
    case "null":
      return fc.constant(null);
    case "array":
      return arrayArb(s, name, ctx, depth);
    case "object":
      return objectArb(s, ctx, depth);
    default:
      // {} (any value), or a type list
      return fc.oneof(fc.jsonValue({ maxDepth: 2 }), wrongType);
  }
}

/** A query-parameter value (as text) for a parameter schema. */
export function parameterText(schema: Schema | undefined, name: string, ctx: SchemaContext): fc.Arbitrary<string> {
  if (!schema) return fc.string({ maxLength: 12 });
  return schemaArbitrary(schema, name, ctx).map((v) => (typeof v === "string" ? v : v instanceof RawJson ? v.text : typeof v === "number" || typeof v === "boolean" ? String(v) : toJson(v)));
}
