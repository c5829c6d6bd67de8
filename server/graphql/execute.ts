/**
 * The executable GTFS GraphQL schema: OTP's schema (schema.ts) with this service's root fields
 * attached (one resolver module per family under resolvers/), and every field resolved from the
 * objects of model.ts. A field this service does not answer yet is a GraphQL error with the code
 * NOT_IMPLEMENTED (never a made-up value); data it does not hold by nature (rental, parking)
 * answers null or an empty list (resolvers/unavailable.ts).
 */
import { GraphQLError, type GraphQLFieldResolver, GraphQLObjectType, type GraphQLSchema } from "graphql";
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

/**
 * The resolver of one field of a model object type: the object's property, or its method called
 * with (args, context, info); a field the object does not have is not implemented yet. Made per
 * field, its name and type held in the closure (a plan's answer resolves several hundred fields).
 */
const fieldOf = (type: string, name: string): GraphQLFieldResolver<any, GqlContext> => (source, args, ctx, info) => {
  if (source === null || typeof source !== "object" || !(name in source)) throw notImplemented(type, name);
  const v = source[name];
  return typeof v === "function" ? v.call(source, args, ctx, info) : v;
};

/** OTP's schema with this service's resolvers. */
export function executableSchema(): GraphQLSchema {
  const schema = otpSchema();
  const query = schema.getQueryType()!;
  for (const [name, field] of Object.entries(query.getFields())) {
    const root = ROOTS[name];
    field.resolve = root ? (_s, args, ctx) => root(args, ctx) : () => {
      throw notImplemented(query.name, name);
    };
  }
  for (const type of Object.values(schema.getTypeMap())) {
    if (!(type instanceof GraphQLObjectType) || type === query || type.name.startsWith("__")) continue;
    for (const field of Object.values(type.getFields())) field.resolve = fieldOf(type.name, field.name);
  }
  return schema;
}
