/**
 * FEATURE UNDER TEST: the street endpoints in the served OpenAPI document (/docs/json): each
 * action's POST requestBody is the JSON Schema of the zod schema that validates it
 * (server/street/schemas, through server/street/openapi.ts), and the GET `json` query parameter
 * refers to that schema.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { STREET_PREFIX } from "../../server/street/gateway.ts";
import { streetRequestJsonSchema } from "../../server/street/openapi.ts";
import { ACTIONS } from "../../server/street/schemas/index.ts";
import { type Gateway, startGateway } from "../support/street-server.ts";

// biome-ignore lint: the document is untyped JSON
type Doc = any;

/** The value a local JSON Reference (`#/a/b~1c`) points at. */
const resolveRef = (doc: Doc, ref: string): unknown =>
  ref
    .slice(2)
    .split("/")
    .map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"))
    .reduce((node: Doc, key) => node?.[key], doc);

let gw: Gateway;
let doc: Doc;

beforeAll(async () => {
  gw = await startGateway();
  const res = await fetch(`${gw.url}/docs/json`);
  expect(res.status).toBe(200);
  doc = await res.json();
});
afterAll(async () => {
  await gw?.stop();
});

const bodySchema = (action: string) => doc.paths[`${STREET_PREFIX}/${action}`].post.requestBody?.content["application/json"].schema;

describe("OpenAPI document of the street endpoints", () => {
  test("route: locations with their item properties, the costing enum, what is required", () => {
    const s = bodySchema("route");
    expect(s.type).toBe("object");
    expect(s.required).toEqual(["costing", "locations"]);
    expect(s.properties.locations).toMatchObject({ type: "array", minItems: 2, items: { type: "object", required: ["lat", "lon"] } });
    expect(s.properties.locations.items.properties.lat).toEqual({ type: "number", minimum: -90, maximum: 90 });
    expect(s.properties.locations.items.properties.lon).toEqual({ type: "number", minimum: -180, maximum: 180 });
    expect(s.properties.locations.items.properties.type).toMatchObject({ enum: ["break", "through", "via", "break_through"], default: "break" });
    expect(s.properties.costing.enum).toEqual(expect.arrayContaining(["auto", "bicycle", "pedestrian", "truck", "bus", "taxi", "motor_scooter", "motorcycle", "bikeshare"]));
    // options with a default may be left out
    expect(s.properties.costing_options.properties.auto.required).toBeUndefined();
    expect(s.properties.units).toMatchObject({ default: "km", enum: expect.arrayContaining(["km", "miles"]) });
  });

  test("every action but status documents its request schema as the POST body, and GET's json parameter refers to it", () => {
    for (const action of ACTIONS) {
      const item = doc.paths[`${STREET_PREFIX}/${action}`];
      const json = item.get.parameters.find((p: { name: string }) => p.name === "json");
      expect({ action, in: json.in, required: json.required }).toEqual({ action, in: "query", required: false });
      if (action === "status") {
        expect(item.post.requestBody).toBeUndefined();
        continue;
      }
      expect({ action, schema: bodySchema(action) }).toEqual({ action, schema: streetRequestJsonSchema(action) });
      const ref = json.content["application/json"].schema.$ref as string;
      expect({ action, resolved: resolveRef(doc, ref) }).toEqual({ action, resolved: bodySchema(action) });
    }
  });

  test("the bounds of other actions come from their schemas", () => {
    const iso = bodySchema("isochrone");
    expect(iso.required).toEqual(expect.arrayContaining(["costing", "locations", "contours"]));
    expect(iso.properties.contours).toMatchObject({ type: "array", minItems: 1, maxItems: 5 });
    expect(iso.properties.locations).toMatchObject({ minItems: 1, maxItems: 3 });
    const matrix = bodySchema("sources_to_targets");
    expect(Object.keys(matrix.properties)).toEqual(expect.arrayContaining(["sources", "targets"]));
    expect(bodySchema("height").properties.shape.type).toBe("array");
  });
});
