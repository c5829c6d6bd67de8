/** catalog feature: placeholder until its issue lands; it mounts no routes. */
import { Elysia } from "elysia";
import type { Feature, FeatureContext } from "../feature.ts";

export async function createCatalogFeature(_ctx: FeatureContext): Promise<Feature> {
  return { name: "catalog", routes: new Elysia({ name: "catalog" }) };
}
