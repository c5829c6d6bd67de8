/** street feature: placeholder until its issue lands; it mounts no routes. */
import { Elysia } from "elysia";
import type { Feature, FeatureContext } from "../feature.ts";

export async function createStreetFeature(_ctx: FeatureContext): Promise<Feature> {
  return { name: "street", routes: new Elysia({ name: "street" }) };
}
