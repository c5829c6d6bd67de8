/**
 * Realtime feature: the GTFS-Realtime snapshots the server serves (store.ts), followed from the
 * dataset's status files. It has no endpoints of its own: the catalog attaches its alerts
 * (include_alerts=true) and trip updates (main.ts hands the store over as the catalog's
 * AlertSource and TripUpdateSource) and /health
 * shows what is served and the ingest's counts. The ingest itself (decode, checks, Parquet) is the
 * pipeline's (pipeline/realtime/), run by `interchange import-rt` or `serve --realtime`.
 */
import { Elysia } from "elysia";
import { watchRealtime } from "../../pipeline/schema/realtime.ts";
import type { Feature, FeatureContext } from "../feature.ts";
import { RealtimeStore } from "./store.ts";

export interface RealtimeFeature {
  feature: Feature;
  store: RealtimeStore;
}

export async function createRealtimeFeature(ctx: FeatureContext): Promise<RealtimeFeature> {
  const store = new RealtimeStore(ctx.config.dataDir, ctx.config.realtimeMaxAgeS, ctx.log, ctx.now);
  await store.refresh();
  const stopWatching = watchRealtime(ctx.config.dataDir, () => void store.refresh());
  return {
    store,
    feature: {
      name: "realtime",
      routes: new Elysia({ name: "realtime" }),
      async close() {
        stopWatching();
        await store.close();
      },
      health: () => store.health(),
    },
  };
}
