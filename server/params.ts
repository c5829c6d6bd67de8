/**
 * Query and path parameters described once, as zod schemas, for both validation and the OpenAPI
 * document. A feature writes one schema per parameter: from the raw text (undefined when absent)
 * to the typed value, with the parameter's own error messages and, in `.meta()`, its description
 * and JSON Schema type for the docs (z.toJSONSchema merges the two). parseParams runs them in the
 * order of the feature's shape and turns the first problem into INVALID_PARAMETER naming the
 * parameter (400 with the feature's body, never Elysia's 422); openApiParameters lists them for
 * a route's `detail.parameters`.
 */
import { z } from "zod";
import { type AppError, invalidParameter } from "./errors.ts";

/** A parameter schema: raw text (undefined when absent) → value. */
export type ParamSchema<T = unknown> = z.ZodType<T, string | undefined>;
export type ParamShape = Record<string, ParamSchema>;
export type ParamValues<S extends ParamShape> = { [K in keyof S]: z.output<S[K]> };

/** Refuse a raw value from inside a parameter's transform: the message and what is allowed. */
export function reject(ctx: z.RefinementCtx, message: string, allowed?: string): never {
  ctx.addIssue({ code: "custom", message, params: { allowed } });
  return z.NEVER;
}

/**
 * A parameter schema from its parts: `parse` turns the present raw text into the value (refusing it
 * with `reject`), `absent` is the value when the parameter is missing; `json` (JSON Schema type,
 * bounds, default) and `description` are what the docs show.
 */
export function param<T, A>(json: Record<string, unknown>, description: string, absent: A, parse: (raw: string, ctx: z.RefinementCtx) => T): ParamSchema<T | A> {
  return z
    .string()
    .optional()
    .transform((raw, ctx) => (raw === undefined ? absent : parse(raw, ctx)))
    .meta({ description, ...json });
}

export interface ParamRules {
  /**
   * Conditions between parameters, each checked on the raw values just before the parameter it is
   * keyed by is parsed (so which problem is reported first is part of the description).
   */
  before?: Record<string, (raw: (name: string) => string | undefined) => AppError | null>;
  /**
   * Other names a parameter is accepted under, tried in order after its own; the first one present
   * is parsed with its own schema (the shape holds one per name, for the docs too) and a problem is
   * reported under the name the client used. The value lands under the parameter's own key.
   */
  aliases?: Record<string, readonly string[]>;
}

/** A parameter as parseParams runs it: its names (own first, then aliases), schemas, rule and absent value. */
interface Step {
  key: string;
  names: string[];
  schemas: ParamSchema[];
  before: ((raw: (name: string) => string | undefined) => AppError | null) | undefined;
  /** the schema's result for an absent parameter (schemas are pure: computed once) */
  absent: { ok: boolean; value: unknown };
}

/** How parseParams runs a shape: its steps, and the values of a request that names no parameter. */
interface Plan {
  steps: Step[];
  /** every parameter's absent value (a request's values start as a copy: one object shape for all) */
  absent: Record<string, unknown>;
}

const NO_RULES: ParamRules = {};
const plans = new WeakMap<ParamShape, WeakMap<ParamRules, Plan>>();

function plan(shape: ParamShape, rules: ParamRules): Plan {
  let byRules = plans.get(shape);
  if (!byRules) plans.set(shape, (byRules = new WeakMap()));
  const known = byRules.get(rules);
  if (known) return known;
  const aliasNames = new Set(Object.values(rules.aliases ?? {}).flat());
  const steps: Step[] = [];
  const absent: Record<string, unknown> = {};
  for (const key of Object.keys(shape)) {
    if (aliasNames.has(key)) continue;
    const names = [key, ...(rules.aliases?.[key] ?? [])];
    const schemas = names.map((n) => {
      const schema = shape[n];
      if (!schema) throw new Error(`parameter ${n} has no schema`);
      return schema;
    });
    const r = schemas[0]!.safeParse(undefined);
    steps.push({ key, names, schemas, before: rules.before?.[key], absent: { ok: r.success, value: r.data } });
    absent[key] = r.data;
  }
  const p = { steps, absent };
  byRules.set(rules, p);
  return p;
}

/**
 * Parse raw parameter values (`raw(name)`: the text, undefined when absent) with the schemas of
 * `shape`, in its order. Throws INVALID_PARAMETER for the first problem.
 */
export function parseParams<S extends ParamShape>(shape: S, raw: (name: string) => string | undefined, rules: ParamRules = NO_RULES): ParamValues<S> {
  const { steps, absent } = plan(shape, rules);
  const out: Record<string, unknown> = { ...absent };
  for (const step of steps) {
    if (step.before) {
      const bad = step.before(raw);
      if (bad) throw bad;
    }
    let value: string | undefined;
    let i = 0;
    for (; i < step.names.length; i++) if ((value = raw(step.names[i]!)) !== undefined) break;
    if (value !== undefined) out[step.key] = check(step.names[i]!, step.schemas[i]!, value);
    else if (!step.absent.ok) check(step.key, step.schemas[0]!, undefined);
  }
  return out as ParamValues<S>;
}

function check<T>(name: string, schema: ParamSchema<T>, value: string | undefined): T {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const issue = r.error.issues[0]!;
  throw invalidParameter(name, issue.message, (issue as { params?: { allowed?: string } }).params?.allowed);
}

const absentParam = new WeakMap<ParamSchema, { ok: boolean; value: unknown }>();

/** Parse one raw value with one parameter's schema (path parameters). */
export function parseParam<T>(name: string, schema: ParamSchema<T>, raw: string | undefined): T {
  if (raw === undefined) {
    let a = absentParam.get(schema);
    if (!a) {
      const r = schema.safeParse(undefined);
      absentParam.set(schema, (a = { ok: r.success, value: r.data }));
    }
    if (a.ok) return a.value as T;
  }
  return check(name, schema, raw);
}

/** One parameter of an OpenAPI operation. */
export interface OpenApiParameter {
  name: string;
  in: "query" | "path";
  description?: string;
  required?: boolean;
  schema: Record<string, unknown>;
}

const docCache = new WeakMap<z.ZodType, OpenApiParameter>();

/**
 * OpenAPI parameters of a shape: each parameter's JSON Schema from its `.meta()` (the
 * description moves to the parameter). Path parameters are always required.
 */
export function openApiParameters(shape: ParamShape, where: "query" | "path" = "query"): OpenApiParameter[] {
  return Object.entries(shape).map(([name, schema]) => {
    let doc = docCache.get(schema);
    if (!doc || doc.name !== name || doc.in !== where) {
      const { $schema: _, description, ...json } = z.toJSONSchema(schema, { io: "output", unrepresentable: "any" }) as Record<string, unknown>;
      doc = { name, in: where, ...(description ? { description: String(description) } : {}), ...(where === "path" ? { required: true } : {}), schema: json };
      docCache.set(schema, doc);
    }
    return doc;
  });
}

