/** planner feature: placeholder until its issue lands; it mounts no routes. */
import { Elysia } from "elysia";
import type { Feature, FeatureContext } from "../feature.ts";

export async function createPlannerFeature(_ctx: FeatureContext): Promise<Feature> {
  return { name: "planner", routes: new Elysia({ name: "planner" }) };
}
