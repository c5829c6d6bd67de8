/**
 * The street endpoints' OpenAPI descriptions, generated from the zod schemas that validate them
 * (schemas/index.ts), so the two never disagree: each action's request schema as JSON Schema
 * (z.toJSONSchema) is the POST requestBody, and the GET `json` query parameter refers to it.
 */
import { z } from "zod";
import { STREET_PREFIX } from "./gateway.ts";
import { REQUEST_SCHEMAS, type StreetAction } from "./schemas/index.ts";

const SUMMARY: Record<StreetAction, string> = {
  route: "Route between locations (Valhalla /route)",
  isochrone: "Reachable areas (Valhalla /isochrone)",
  expansion: "Explored graph edges (Valhalla /expansion); answers can be very large",
  height: "Elevation along a shape (Valhalla /height)",
  locate: "Edges and nodes near locations (Valhalla /locate)",
  centroid: "Routes converging on one point (Valhalla /centroid)",
  sources_to_targets: "Time-distance matrix between sources and targets (Valhalla /sources_to_targets)",
  optimized_route: "Route visiting the locations in the best order (Valhalla /optimized_route)",
  trace_route: "Map-match a trace into a route (Valhalla /trace_route)",
  trace_attributes: "Edge attributes along a map-matched trace (Valhalla /trace_attributes)",
  status: "Routing engine status (Valhalla /status)",
};

type Json = Record<string, unknown>;

/**
 * Drops from each object's `required` the properties that have a default: the output side of a
 * schema (io "output", as server/params.ts documents parameters, which keeps the enums behind
 * pipes such as `costing`) always holds them, but a client may leave them out.
 */
function defaultsOptional(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(defaultsOptional);
  if (!node || typeof node !== "object") return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node as Json)) {
    out[k] = k === "properties" && v && typeof v === "object" ? Object.fromEntries(Object.entries(v as Json).map(([p, s]) => [p, defaultsOptional(s)])) : defaultsOptional(v);
  }
  const props = out.properties as Record<string, Json> | undefined;
  if (Array.isArray(out.required) && props) {
    const required = (out.required as string[]).filter((p) => !(props[p] && "default" in props[p]!));
    if (required.length) out.required = required;
    else delete out.required;
  }
  return out;
}

const jsonSchemas = new Map<StreetAction, Json | null>();

/** An action's request as JSON Schema (what the gateway validates), null for status (it takes none). */
export function streetRequestJsonSchema(action: StreetAction): Json | null {
  let known = jsonSchemas.get(action);
  if (known === undefined) {
    known = null;
    if (action !== "status") {
      const { $schema: _, ...json } = z.toJSONSchema(REQUEST_SCHEMAS[action], { io: "output", unrepresentable: "any" }) as Json;
      known = defaultsOptional(json) as Json;
    }
    jsonSchemas.set(action, known);
  }
  return known;
}

/** A JSON Pointer token (RFC 6901). */
const pointer = (s: string) => s.replace(/~/g, "~0").replace(/\//g, "~1");

/** Where the POST requestBody schema of an action sits in the served document. */
export const requestSchemaRef = (action: StreetAction) => `#/paths/${pointer(`${STREET_PREFIX}/${action}`)}/post/requestBody/content/${pointer("application/json")}/schema`;

/** The OpenAPI details of an action's GET and POST routes. */
export function streetDocs(action: StreetAction): { get: Json; post: Json } {
  const schema = streetRequestJsonSchema(action);
  const common = { tags: ["street routing"], summary: SUMMARY[action] };
  const also = "Like Valhalla, other query parameters count as top-level fields the JSON does not set; `apikey` is never forwarded.";
  if (!schema) {
    return {
      get: {
        ...common,
        description: `Needs no request; \`json\` may carry \`{"verbose": true}\`. ${also}`,
        parameters: [{ name: "json", in: "query", required: false, description: "the request JSON, e.g. `{\"verbose\": true}`", schema: { type: "string" } }],
      },
      post: { ...common, description: `Needs no body; it may be \`{"verbose": true}\`. ${also}` },
    };
  }
  return {
    get: {
      ...common,
      description: `The request JSON in the \`json\` query parameter (URL-encoded), the same object as the POST body. ${also}`,
      parameters: [
        {
          name: "json",
          in: "query",
          required: false,
          description: "the request JSON (its schema is the POST body's); an absent one is read as `{}`",
          content: { "application/json": { schema: { $ref: requestSchemaRef(action) } } },
        },
      ],
    },
    post: {
      ...common,
      description: `The request JSON as the body, as Valhalla accepts it (a \`json\` query parameter takes precedence). ${also}`,
      requestBody: { required: true, content: { "application/json": { schema } } },
    },
  };
}
