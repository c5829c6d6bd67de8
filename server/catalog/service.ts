/**
 * The catalog service: holds the loaded dataset, swaps it atomically on reload (the old one keeps
 * serving until the new one is ready, and closes when its last request or stream ends), and
 * answers the endpoint forms with Responses. No Elysia here; routes.ts maps paths to these calls.
 */
import { AppError, invalidParameter } from "../errors.ts";
import type { Logger } from "../feature.ts";
import { type Format, parseFormat, parseInteger, parseStopQuery, parseTripQuery } from "./params.ts";
import { listResponse, nextUrl, streamResponse } from "./render.ts";
import { findStopPage, findStopsByKey, streamStops } from "./stops.ts";
import { type CatalogData, loadCatalog } from "./store.ts";
import { findTrip, renderOptions, renderTrips, selectTrips, streamTrips, tripPage, tripScope } from "./trips.ts";
import { readManifest } from "../../pipeline/store/manifest.ts";

/** split "<key>.<format>" when the suffix is a format name */
export function splitFormat(raw: string): { key: string; format: string | null } {
  const dot = raw.lastIndexOf(".");
  if (dot <= 0) return { key: raw, format: null };
  const suffix = raw.slice(dot + 1).toLowerCase();
  if (suffix === "json" || suffix === "geojson" || suffix === "geojsonl") return { key: raw.slice(0, dot), format: suffix };
  return { key: raw, format: null };
}

export class CatalogService {
  private data: CatalogData | null = null;
  private loading: Promise<void> = Promise.resolve();
  private lastError: string | null = null;

  constructor(
    private readonly dataDir: string,
    private readonly log: Logger,
    private readonly now: () => number,
  ) {}

  /** (Re)load when the manifest generation differs from the one being served. */
  reload(): Promise<void> {
    this.loading = this.loading.then(async () => {
      const generation = readManifest(this.dataDir).generation;
      if (this.data && this.data.generation === generation) return;
      try {
        const next = await loadCatalog(this.dataDir, this.log);
        const old = this.data;
        this.data = next;
        this.lastError = null;
        old?.retire();
      } catch (e) {
        this.lastError = String((e as Error)?.message ?? e);
        this.log.error("catalog load failed; still serving the previous dataset", { error: this.lastError });
        if (!this.data) throw e;
      }
    });
    return this.loading;
  }

  close(): void {
    this.data?.retire();
    this.data = null;
  }

  health(): Record<string, unknown> {
    const d = this.data;
    return d
      ? { status: "ok", generation: d.generation, versions: d.versions.size, active: d.activeVersionIds.length, stops: d.stops.size, routes: d.routes.size, error: this.lastError ?? undefined }
      : { status: "unavailable", error: this.lastError };
  }

  /** Run `fn` with the current dataset retained; `fn` may take over the release (streams). */
  private async use(fn: (data: CatalogData, keep: () => () => void) => Promise<Response>): Promise<Response> {
    const data = this.data;
    if (!data) throw new AppError("UNAVAILABLE", "the catalog dataset is not loaded yet");
    const release = data.retain();
    let handedOver = false;
    try {
      return await fn(data, () => {
        handedOver = true;
        return release;
      });
    } finally {
      if (!handedOver) release();
    }
  }

  /** GET /stops[.format] */
  stops(request: Request, format: string | null): Promise<Response> {
    const url = new URL(request.url);
    const fmt = parseFormat(format);
    const q = parseStopQuery(url.searchParams, fmt);
    return this.use(async (data, keep) => {
      if (q.limit === null) return streamResponse(fmt, "stops", streamStops(data, q), null, keep());
      const { items, page } = await findStopPage(data, q, request.url, nextUrl);
      return listResponse(fmt, "stops", items, page);
    });
  }

  /** GET /stops/{stop_key}[.format] */
  stop(request: Request, rawKey: string): Promise<Response> {
    const { key, format } = splitFormat(rawKey);
    const fmt = parseFormat(format);
    const q = parseStopQuery(new URL(request.url).searchParams, fmt);
    return this.use(async (data) => {
      try {
        return listResponse(fmt, "stops", findStopsByKey(data, key, q), null);
      } catch (e) {
        // "/stops/123.xml": a key that does not exist, with what looks like a format suffix
        const suffix = /\.([A-Za-z][A-Za-z0-9]{0,9})$/.exec(rawKey)?.[1];
        if (e instanceof AppError && e.code === "NOT_FOUND" && format === null && suffix) throw unknownFormat(suffix);
        throw e;
      }
    });
  }

  /** GET /routes/{route_key}/trips[.format] */
  trips(request: Request, routeKey: string, format: string | null): Promise<Response> {
    const fmt = parseFormat(format);
    const q = parseTripQuery(new URL(request.url).searchParams, fmt);
    return this.use(async (data, keep) => {
      const scope = tripScope(data, routeKey, q, this.now());
      const o = renderOptions(q, false);
      const selection = await selectTrips(data, scope, q);
      if (q.limit === null) return streamResponse(fmt, "trips", streamTrips(data, selection.matches(), o), null, keep());
      const { indexes, page } = tripPage(data, selection, q.limit, request.url, nextUrl);
      // Bodies with shapes can be large: stream them; plain pages are small enough to build.
      if (indexes.length && (fmt !== "json" || q.includeGeometry)) return streamResponse(fmt, "trips", streamTrips(data, indexes, o), page, keep());
      return listResponse(fmt, "trips", renderTrips(data, indexes, o), page);
    });
  }

  /** GET /routes/{route_key}/trips/{id}[.format] */
  trip(request: Request, routeKey: string, rawId: string): Promise<Response> {
    const { key, format } = splitFormat(rawId);
    const suffix = /^\d+\.(.*)$/.exec(key)?.[1];
    if (suffix !== undefined) throw unknownFormat(suffix);
    const fmt: Format = parseFormat(format);
    const id = parseInteger("id", key, 1, 2_147_483_647, "a positive integer trip id (use ?trip_id= for a GTFS trip_id)");
    const q = parseTripQuery(new URL(request.url).searchParams, fmt);
    return this.use(async (data) => {
      const scope = tripScope(data, routeKey, q, this.now());
      return listResponse(fmt, "trips", [await findTrip(data, scope, q, id)], null);
    });
  }
}

/** For an unknown "<key>.<suffix>" that looks like a format request. */
export function unknownFormat(suffix: string): AppError {
  return invalidParameter("format", `format must be one of json, geojson, geojsonl; got "${suffix}"`, "json, geojson, geojsonl");
}
