/**
 * The GTFS GraphQL API's type system: OTP's published schema as OpenTripPlanner's own client
 * library ships it (`@opentripplanner/core-utils` 16.x, `lib/otpSchema.json`, an introspection
 * result; installed as the `core-utils-16` alias), turned into a schema at start-up, never retyped.
 * Resolvers are attached by server/graphql/execute.ts; this module only reads and builds.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { buildClientSchema, type GraphQLSchema, type IntrospectionQuery } from "graphql";

/** Where the schema comes from (an npm alias pinned in package.json). */
export const SCHEMA_SOURCE = "core-utils-16/lib/otpSchema.json";

/** The introspection result OTP's clients are built against. */
export function otpIntrospection(): IntrospectionQuery {
  const path = createRequire(import.meta.url).resolve(SCHEMA_SOURCE);
  const json = JSON.parse(readFileSync(path, "utf8")) as { data?: IntrospectionQuery } & Partial<IntrospectionQuery>;
  return (json.data ?? json) as IntrospectionQuery;
}

/** OTP's GTFS GraphQL schema, executable (fields resolve through graphql's default resolver). */
export function otpSchema(): GraphQLSchema {
  return buildClientSchema(otpIntrospection());
}
