/** street feature: Valhalla-compatible routing gateway (validation, forwarding, relaying). */
import type { Feature, FeatureContext } from "../feature.ts";
import { createEngine } from "./create-engine.ts";
import type { StreetEngine } from "./engine.ts";
import { createGateway } from "./gateway.ts";
import { streetErrors, streetRoutes } from "./routes.ts";

/** What the street feature needs from the server beyond its context (a port: it imports neither server/ops nor server/auth). */
export interface StreetPorts {
  /** the account a request was authenticated as; undefined without API keys (no per-account engine limit then) */
  accountOf?: (request: Request) => string | undefined;
}

export async function createStreetFeature(ctx: FeatureContext, engine: StreetEngine = createEngine(ctx.config, ctx.log), ports: StreetPorts = {}): Promise<Feature> {
  const gateway = createGateway({ engine, allowHardExclusions: ctx.config.allowHardExclusions, accountConcurrency: ctx.config.engineAccountConcurrency ?? 0, log: ctx.log });
  const reload = async () => {
    try {
      await engine.reload?.();
    } catch (e) {
      ctx.log.error("street dataset could not be loaded; street routing keeps the previous one", { error: String((e as Error).message ?? e) });
    }
  };
  await reload();
  if (engine.kind === "embedded" && !(engine.health().street_dataset)) {
    ctx.log.warn("no street dataset: street routing answers 503 until one is imported (interchange import --osm FILE.osm.pbf) or --valhalla-url is set");
  }
  return {
    name: "street",
    routes: streetRoutes(gateway, ports.accountOf),
    errors: streetErrors,
    reload,
    health: () => ({ ...engine.health(), hard_exclusions: ctx.config.allowHardExclusions }),
    close: async () => engine.close?.(),
  };
}
