/**
 * Geocoder feature: Pelias's API over the dataset's own places (issue 34). `GET /v1/autocomplete`,
 * `/v1/search`, `/v1/reverse` (the paths a Pelias client such as `@opentripplanner/geocoder` asks
 * under its base URL), also under `/api/v2/geocode/` (the API family prefix, with its CORS
 * preflights). Both need an API key like the rest of the API.
 *
 * The places come from the index files written at import (pipeline/schema/geocode.ts): the active
 * street dataset's (OSM names and addresses) and each active feed version's (stops and stations),
 * loaded when the feature starts and again when the manifest changes; a request runs on the set
 * it started with. Search and ranking: ./engine.ts; parameters: ./params.ts; answers: ./render.ts.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Elysia } from "elysia";
import type { Feature, FeatureContext } from "../feature.ts";
import { activeStreets, activeVersions, readManifest } from "../../pipeline/schema/manifest.ts";
import { decodeGeocodeIndex, GEOCODE_FILE } from "../../pipeline/schema/geocode.ts";
import { GeocodeIndex, mergeHits, searchText } from "./engine.ts";
import { reverseParams, textParams } from "./params.ts";
import { featureCollection, renderGeocodeError } from "./render.ts";
import { geocodeDocs } from "./openapi.ts";

/** Where the Pelias paths are mounted: Pelias's own, and the API family's. */
export const GEOCODE_PREFIXES = ["/v1", "/api/v2/geocode"] as const;

interface Loaded {
  indexes: GeocodeIndex[];
  places: number;
  ms: number;
}

function load(dataDir: string, warn: (msg: string, f: Record<string, unknown>) => void): Loaded {
  const t0 = performance.now();
  const m = readManifest(dataDir);
  const files: { name: string; path: string }[] = [];
  const streets = activeStreets(m);
  if (streets) files.push({ name: `streets ${streets.sha1.slice(0, 8)}`, path: join(dataDir, streets.path, GEOCODE_FILE) });
  for (const v of activeVersions(m)) files.push({ name: `${v.feed_onestop_id} ${v.sha1.slice(0, 8)}`, path: join(dataDir, v.path, GEOCODE_FILE) });
  const indexes: GeocodeIndex[] = [];
  for (const f of files) {
    if (!existsSync(f.path)) {
      warn("geocoder: no index in this dataset part (imported before the geocoder; import it again to search it)", { part: f.name });
      continue;
    }
    try {
      const idx = new GeocodeIndex(decodeGeocodeIndex(readFileSync(f.path)), f.name);
      idx.warm();
      indexes.push(idx);
    } catch (e) {
      warn("geocoder: index unreadable, left out", { part: f.name, error: String((e as Error).message) });
    }
  }
  return { indexes, places: indexes.reduce((a, i) => a + i.docs, 0), ms: Math.round(performance.now() - t0) };
}

export async function createGeocoderFeature(ctx: FeatureContext): Promise<Feature> {
  let current = load(ctx.config.dataDir, ctx.log.warn);
  ctx.log.info("geocoder loaded", { indexes: current.indexes.length, places: current.places, ms: current.ms });
  const json = (body: unknown) => new Response(JSON.stringify(body), { headers: { "content-type": "application/json; charset=utf-8" } });

  const text = (request: Request) => {
    const p = textParams(new URL(request.url));
    const q = { ...p, prefixLast: true, focus: p.focus };
    const hits = searchText(current.indexes, q);
    return json(featureCollection(hits, p.echo, ctx.now(), { distances: p.focus !== undefined }));
  };
  const reverse = (request: Request) => {
    const p = reverseParams(new URL(request.url));
    const hits = mergeHits(current.indexes.map((i) => i.reverse(p.point.lat, p.point.lon, p.radiusKm * 1000, p.size, p, p.layers, p.sources)), p.size, true);
    return json(featureCollection(hits, p.echo, ctx.now(), { distances: true }));
  };

  // biome-ignore lint: the route table's types do not matter at the feature boundary
  let routes: Elysia<any, any, any, any, any, any, any> = new Elysia({ name: "geocoder" });
  for (const prefix of GEOCODE_PREFIXES) {
    routes = routes
      .get(`${prefix}/autocomplete`, ({ request }) => text(request), { detail: geocodeDocs("autocomplete", prefix) })
      .get(`${prefix}/search`, ({ request }) => text(request), { detail: geocodeDocs("search", prefix) })
      .get(`${prefix}/reverse`, ({ request }) => reverse(request), { detail: geocodeDocs("reverse", prefix) });
  }
  return {
    name: "geocoder",
    routes,
    errors: GEOCODE_PREFIXES.map((p) => ({ prefix: `${p}/`, render: (e: unknown) => renderGeocodeError(e, ctx.now()) })),
    async reload() {
      current = load(ctx.config.dataDir, ctx.log.warn);
      ctx.log.info("geocoder reloaded", { indexes: current.indexes.length, places: current.places, ms: current.ms });
    },
    health: () => ({ indexes: current.indexes.length, places: current.places, load_ms: current.ms }),
  };
}
