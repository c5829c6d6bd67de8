/**
 * The executable GTFS GraphQL schema: OTP's schema (schema.ts) with this service's root fields
 * attached (one resolver module per family under resolvers/), and every field resolved from the
 * objects of model.ts. A field this service does not answer yet is a GraphQL error with the code
 * NOT_IMPLEMENTED (never a made-up value); data it does not hold by nature (rental, parking)
 * answers null or an empty list (resolvers/unavailable.ts).
 */
import { type FieldNode, GraphQLError, type GraphQLFieldResolver, GraphQLObjectType, type GraphQLSchema } from "graphql";
import type { GqlContext } from "./model.ts";
import { otpSchema } from "./schema.ts";
import { planRoots } from "./resolvers/plan.ts";
import { transitRoots } from "./resolvers/transit.ts";
import { unavailableRoots } from "./resolvers/unavailable.ts";

type Root = (args: any, ctx: GqlContext) => unknown;

/** Every root field this service answers, by name. */
export const ROOTS: Record<string, Root> = { ...transitRoots, ...planRoots, ...unavailableRoots };

const notImplemented = (type: string, field: string) =>
  new GraphQLError(`${type}.${field} is not implemented yet on this server`, { extensions: { code: "NOT_IMPLEMENTED" } });

/** The resolvers made by fieldOf (compiled.ts reads those fields itself, the same way). */
const MODEL_RESOLVERS = new WeakSet<object>();
/** Each root field's resolver and the root function it calls. */
const ROOT_RESOLVERS = new WeakMap<object, Root>();

/**
 * The resolver of one field of a model object type: the object's property, or its method called
 * with (args, context) (never graphql's `info`: compiled.ts reads the same fields without the
 * executor); a field the object does not have is not implemented yet. Made per field, its name and
 * type held in the closure (a plan's answer resolves several hundred fields).
 */
const fieldOf = (type: string, name: string): GraphQLFieldResolver<any, GqlContext> => {
  const resolve: GraphQLFieldResolver<any, GqlContext> = (source, args, ctx) => {
    if (source === null || typeof source !== "object" || !(name in source)) throw notImplemented(type, name);
    const v = source[name];
    return typeof v === "function" ? v.call(source, args, ctx) : v;
  };
  MODEL_RESOLVERS.add(resolve);
  return resolve;
};

/** Whether a field resolves as fieldOf does (the object's property, or its method called with (args, context)). */
export const isModelResolver = (resolve: unknown): boolean => typeof resolve === "function" && MODEL_RESOLVERS.has(resolve);
/** The root function behind a root field's resolver (called with (args, context)); undefined for any other resolver. */
export const rootOf = (resolve: unknown): Root | undefined => (typeof resolve === "function" ? ROOT_RESOLVERS.get(resolve) : undefined);

/**
 * Where the root value hands root fields' results already computed (by compiled.ts, before it
 * falls back to the executor), by the field's first node: the root resolver returns (or throws)
 * them instead of running the field again (a plan is searched once per request).
 */
export const ROOT_RESULTS = Symbol("root results");
export type RootResults = Map<FieldNode, { value: unknown } | { error: unknown }>;

/** A root field's resolver: the root function, or the result compiled.ts already has. */
const rootField = (root: Root): GraphQLFieldResolver<unknown, GqlContext> => {
  const resolve: GraphQLFieldResolver<unknown, GqlContext> = (source, args, ctx, info) => {
    const done = (source as { [ROOT_RESULTS]?: RootResults } | null | undefined)?.[ROOT_RESULTS]?.get(info.fieldNodes[0]!);
    if (!done) return root(args, ctx);
    if ("error" in done) throw done.error;
    return done.value;
  };
  ROOT_RESOLVERS.set(resolve, root);
  return resolve;
};

/** OTP's schema with this service's resolvers. */
export function executableSchema(): GraphQLSchema {
  const schema = otpSchema();
  const query = schema.getQueryType()!;
  for (const [name, field] of Object.entries(query.getFields())) {
    const root = ROOTS[name];
    field.resolve = root ? rootField(root) : () => {
      throw notImplemented(query.name, name);
    };
  }
  for (const type of Object.values(schema.getTypeMap())) {
    if (!(type instanceof GraphQLObjectType) || type === query || type.name.startsWith("__")) continue;
    for (const field of Object.values(type.getFields())) field.resolve = fieldOf(type.name, field.name);
  }
  return schema;
}
