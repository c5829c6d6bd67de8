/** street feature: Valhalla-compatible routing gateway (validation, forwarding, relaying). */
import type { Feature, FeatureContext } from "../feature.ts";
import { createEngine, type StreetEngine } from "./engine.ts";
import { createGateway } from "./gateway.ts";
import { streetRoutes } from "./routes.ts";

export async function createStreetFeature(ctx: FeatureContext, engine: StreetEngine = createEngine(ctx.config)): Promise<Feature> {
  const gateway = createGateway({ engine, allowHardExclusions: ctx.config.allowHardExclusions, log: ctx.log });
  if (engine.kind === "none") ctx.log.warn("street routing has no engine: its endpoints answer 503 (set --valhalla-url)");
  return {
    name: "street",
    routes: streetRoutes(gateway),
    health: () => ({ ...engine.health(), hard_exclusions: ctx.config.allowHardExclusions }),
    close: async () => engine.close?.(),
  };
}
