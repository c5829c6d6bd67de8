/**
 * Map feature: the web map page (issue 21), served by the same server, offline.
 *
 * - `GET /` redirects to `/map`; `GET /map` is the page (server/map/web/index.html), and
 *   `/map/<file>` its hand-written ES modules and CSS (no build step).
 * - `/map/vendor/<file>`: maplibre-gl's dist files from node_modules (the ESM build, its worker
 *   module beside it, the CSS), so the page needs nothing from the internet.
 * - `/map/data/streets.geojson`, `/map/data/dataset.json`: the street background and the dataset
 *   summary, which the public API has no endpoint for (layers.ts), rebuilt when the manifest changes.
 * - `/tiles/{layers}/{z}/{x}/{y}.pbf` and `/tiles/{layers}/tilejson.json`: vector tiles of stops,
 *   stations, route lines and streets, stops and stations in OTP2's layer names (tiles.ts), public like the page.
 * - `/map/fonts/{fontstack}/{range}.pbf`: label glyphs (SDF) built from the npm package's Noto Sans
 *   (glyphs.ts), public like the page.
 *
 * Everything else the page shows comes from the public API (the catalog's routes, stops, trips and
 * departures, plan, reachability, street routing), called from the browser with the `apikey` header: the page is an example client. The
 * page and its files need no API key (server/app.ts checks keys under /api/ only).
 */
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { gunzipSync } from "node:zlib";
import { Elysia } from "elysia";
import type { Feature, FeatureContext } from "../feature.ts";
import type { PublicOrigin } from "../origin.ts";
import { invalidParameter, notFound, renderError } from "../errors.ts";
import { PAGE_HEADERS } from "../page-headers.ts";
import { localDate } from "../../shared/time.ts";
import { glyphRange, GLYPH_STACKS, parseGlyphRange, servedStack } from "./glyphs.ts";
import { buildMapLayers, EMPTY_FEATURES, type MapLayers } from "./layers.ts";
import { buildTileSet, parseLayers, parseTile, tileJson, tileOf, type TileSet } from "./tiles.ts";

export const MAP_PATH = "/map";
export const TILES_PATH = "/tiles";
/** OpenTripPlanner 2's path of the same tiles, for front ends configured with an OTP base URL (`otp2-tile-overlay`) */
export const OTP_TILES_PATH = "/otp/routers/default/vectorTiles";
const WEB_DIR = join(import.meta.dir, "web");

/** The page's own files (server/map/web), by name. */
const WEB_FILES: Record<string, string> = {
  "app.js": "text/javascript; charset=utf-8",
  "api.js": "text/javascript; charset=utf-8",
  "util.js": "text/javascript; charset=utf-8",
  "style.css": "text/css; charset=utf-8",
};

/** maplibre-gl's dist files the page loads (the worker module is fetched by maplibre beside its own URL). */
const VENDOR_FILES: Record<string, string> = {
  "maplibre-gl.mjs": "text/javascript; charset=utf-8",
  "maplibre-gl-worker.mjs": "text/javascript; charset=utf-8",
  "maplibre-gl.css": "text/css; charset=utf-8",
  "maplibre-gl.mjs.map": "application/json",
  "maplibre-gl-worker.mjs.map": "application/json",
};

function maplibreDist(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve("maplibre-gl/package.json")), "dist");
}

const hidden = { detail: { hide: true } };

/** A gzip body: as it is for a client that takes gzip (every browser), unpacked otherwise. */
function gzAnswer(request: Request, gz: Uint8Array, type: string): Response {
  const accepts = /\bgzip\b/.test(request.headers.get("accept-encoding") ?? "");
  const headers: Record<string, string> = { ...PAGE_HEADERS, "content-type": type, "cache-control": "no-cache", vary: "accept-encoding" };
  if (accepts) return new Response(gz, { headers: { ...headers, "content-encoding": "gzip" } });
  return new Response(gunzipSync(gz), { headers });
}

/**
 * The map's layers (layers.ts) and tiles (tiles.ts), built in the background at start and again on
 * each reload, one build at a time in manifest order; a failed build keeps the previous ones.
 */
class MapData {
  layers: MapLayers | null = null;
  tiles: TileSet | null = null;
  error: string | null = null;
  private building: Promise<void>;

  constructor(private readonly ctx: FeatureContext) {
    // built in the background: the page's data routes wait for the first build, nothing else does
    this.building = this.build();
  }

  private async build(): Promise<void> {
    const { ctx } = this;
    const t0 = performance.now();
    try {
      this.layers = await buildMapLayers(ctx.config.dataDir, (tz) => localDate(ctx.now(), tz));
      this.tiles = await buildTileSet(ctx.config.dataDir);
      this.error = null;
      ctx.log.info("map layers built", { feeds: this.layers.dataset.feeds.length, streets_background: this.layers.streetsGz !== null, ms: Math.round(performance.now() - t0) });
    } catch (e) {
      this.error = String(e);
      ctx.log.error("map layers failed to build; the map keeps the previous ones", { error: this.error });
    }
  }

  /** The layers once the build under way is done. */
  async current(): Promise<MapLayers | null> {
    await this.building;
    return this.layers;
  }

  /** The tiles once the build under way is done. */
  async currentTiles(): Promise<TileSet | null> {
    await this.building;
    return this.tiles;
  }

  /** Build again after the builds under way. */
  async reload(): Promise<void> {
    this.building = this.building.then(() => this.build());
    await this.building;
  }
}

/** A file of `dir` named by the request, if `types` lists it (its content type). */
function staticFile(dir: string, name: unknown, types: Record<string, string>, cache: string): Response {
  // Elysia hands over null for a name that is not valid percent-encoded UTF-8 (/map/%c0)
  if (typeof name !== "string") throw invalidParameter("file", "the file name is not valid percent-encoded UTF-8");
  const type = Object.hasOwn(types, name) ? types[name] : undefined;
  const path = join(dir, name);
  if (!type || !existsSync(path)) throw notFound(`no such file: ${name.slice(0, 80)}`);
  return new Response(readFileSync(path), { headers: { ...PAGE_HEADERS, "content-type": type, "cache-control": cache } });
}

/** GET /map/fonts/{fontstack}/{range}.pbf: one SDF glyph range of the first served font of the stack. */
function glyphAnswer(fontstack: unknown, rangeFile: unknown): Response {
  if (typeof fontstack !== "string" || fontstack.length > 512) throw invalidParameter("fontstack", "the font stack must be a comma-separated list of font names, at most 512 characters");
  if (typeof rangeFile !== "string" || !rangeFile.endsWith(".pbf")) throw notFound("a glyph range's path ends in .pbf: /map/fonts/{fontstack}/{range}.pbf");
  const start = parseGlyphRange(rangeFile.slice(0, -4));
  const stack = servedStack(fontstack);
  if (!stack) throw notFound(`no font of the stack "${fontstack.slice(0, 80)}" is served; the stacks are ${Object.keys(GLYPH_STACKS).map((s) => `"${s}"`).join(", ")}`);
  return new Response(glyphRange(stack, start), { headers: { "content-type": "application/x-protobuf", "cache-control": "public, max-age=86400", "access-control-allow-origin": "*" } });
}

/** The TileJSON of `layers`, its tile URLs under `prefix` (the path it was asked on). */
async function tileJsonAnswer(data: MapData, origin: PublicOrigin, prefix: string, layers: string, request: Request): Promise<Response> {
  const names = parseLayers(String(layers));
  const set = await data.currentTiles();
  const body = set ? tileJson(set, names, `${origin.of(request)}${prefix}`) : { tilejson: "3.0.0", tiles: [] };
  return new Response(JSON.stringify(body), { headers: { "content-type": "application/json", "cache-control": "no-cache", "access-control-allow-origin": "*" } });
}

/** One vector tile, `{layers}/{z}/{x}/{y}.pbf` under `prefix`; empty before the first build. */
async function tileAnswer(data: MapData, prefix: string, params: { layers: string; z: string; x: string; y: string }): Promise<Response> {
  const names = parseLayers(String(params.layers));
  const yText = String(params.y);
  if (!yText.endsWith(".pbf")) throw notFound(`a tile's path ends in .pbf: ${prefix}/{layers}/{z}/{x}/{y}.pbf`);
  const { z, x, y } = parseTile(String(params.z), String(params.x), yText.slice(0, -4));
  const set = await data.currentTiles();
  const body = set ? tileOf(set, names, z, x, y) : new Uint8Array(0);
  return new Response(body, { headers: { "content-type": "application/vnd.mapbox-vector-tile", "cache-control": "no-cache", "access-control-allow-origin": "*" } });
}

/** GET /map/data/dataset.json: the dataset summary and which street routing answers. */
async function datasetAnswer(data: MapData, ctx: FeatureContext): Promise<Response> {
  const l = await data.current();
  const dataset = l?.dataset ?? { feeds: [], bbox: null, suggested_date: null, streets: null };
  // street routing answers with the active street dataset (embedded engine) or an external engine
  const streetRouting = ctx.config.valhallaUrl ? "external" : dataset.streets ? "embedded" : null;
  return new Response(JSON.stringify({ ...dataset, street_routing: streetRouting }), { headers: { ...PAGE_HEADERS, "content-type": "application/json", "cache-control": "no-cache" } });
}

/** The map feature's routes: the page and its files, its data, the tiles under both paths, the glyphs. */
function mapRoutes(data: MapData, ctx: FeatureContext, dist: string) {
  const page = () => staticFile(WEB_DIR, "index.html", { "index.html": "text/html; charset=utf-8" }, "no-cache");
  return new Elysia({ name: "map" })
    .get("/", ({ redirect }) => redirect(MAP_PATH, 302), hidden)
    .get(MAP_PATH, page, hidden)
    .get(`${MAP_PATH}/`, page, hidden)
    .get(`${MAP_PATH}/vendor/:file`, ({ params }) => staticFile(dist, params.file, VENDOR_FILES, "public, max-age=86400"), hidden)
    .get(`${MAP_PATH}/data/streets.geojson`, async ({ request }) => gzAnswer(request, (await data.current())?.streetsGz ?? EMPTY_FEATURES, "application/geo+json"), hidden)
    .get(`${MAP_PATH}/data/dataset.json`, () => datasetAnswer(data, ctx), hidden)
    .get(`${TILES_PATH}/:layers/tilejson.json`, ({ params, request }) => tileJsonAnswer(data, ctx.origin, TILES_PATH, params.layers, request), hidden)
    .get(`${TILES_PATH}/:layers/:z/:x/:y`, ({ params }) => tileAnswer(data, TILES_PATH, params), hidden)
    .get(`${OTP_TILES_PATH}/:layers/tilejson.json`, ({ params, request }) => tileJsonAnswer(data, ctx.origin, OTP_TILES_PATH, params.layers, request), hidden)
    .get(`${OTP_TILES_PATH}/:layers/:z/:x/:y`, ({ params }) => tileAnswer(data, OTP_TILES_PATH, params), hidden)
    .get(`${MAP_PATH}/fonts/:fontstack/:range`, ({ params }) => glyphAnswer(params.fontstack, params.range), hidden)
    .get(`${MAP_PATH}/:file`, ({ params }) => staticFile(WEB_DIR, params.file, WEB_FILES, "no-cache"), hidden);
}

/** The map feature: its routes over the map data built in the background, reloaded when the manifest changes. */
export async function createMapFeature(ctx: FeatureContext): Promise<Feature> {
  const dist = maplibreDist();
  const data = new MapData(ctx);
  return {
    name: "map",
    routes: mapRoutes(data, ctx, dist),
    // the page and its files are public; what it shows comes from the API, with the user's key
    publicPaths: ["/", MAP_PATH, `${MAP_PATH}/`, `${TILES_PATH}/`, `${OTP_TILES_PATH}/`],
    // the tiles under OTP's path answer errors as under /tiles, not as the GraphQL API under /otp/
    errors: { prefix: `${OTP_TILES_PATH}/`, render: renderError },
    reload: () => data.reload(),
    health: () => ({ feeds: data.layers?.dataset.feeds.length ?? 0, streets_background: data.layers ? data.layers.streetsGz !== null : false, ...(data.error ? { error: data.error } : {}) }),
  };
}
