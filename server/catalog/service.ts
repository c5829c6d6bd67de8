/**
 * The catalog service (routes, trips, stops, departures): holds the loaded dataset, swaps it
 * atomically on reload (the old one keeps serving until the new one is ready, and closes when its
 * last request or stream ends), and answers typed queries with Listings (listing.ts): documents and the next page's cursor. No HTTP
 * here: routes.ts parses requests into queries (params.ts) and renders the listings (render.ts).
 */
import { AppError, notFound as notFoundError } from "../errors.ts";
import { type AlertLookup, type AlertSource, NO_ALERTS, stopItemWithAlerts } from "./alerts.ts";
import { NO_TRIP_UPDATES } from "./trip-updates.ts";
import type { TripUpdateSource } from "../trip-updates.ts";
import type { Logger } from "../feature.ts";
import { holding, type Item, type Listing } from "./listing.ts";
import { type CommonQuery, DEFAULT_LIMIT, type DepartureQuery, type RouteQuery, type StopQuery, type TripQuery } from "./params.ts";
import { allRoutes, findRoutePage, findRoutesByKey, routeItem, routeRender, streamRoutes } from "./route-list.ts";
import { findStopDepartures } from "./departures.ts";
import { findStopPage, findStopsByKey, streamStops } from "./stops.ts";
import { type CatalogData, IncompleteVersionError, loadCatalog } from "./store.ts";
import { findTrip, renderOptions, renderTrips, selectTrips, streamTrips, tripPage, tripScope } from "./trips.ts";
import { readManifest } from "../../pipeline/schema/manifest.ts";
import {
  agencyItem,
  feedByKey,
  findAgencies,
  findFeeds,
  findFeedVersions,
  findOperators,
  type OnestopKind,
  operatorByKey,
  operatorItem,
  resolveAgencies,
  resolveOnestopId,
  versionByKey,
  versionItem,
} from "./feeds.ts";
import type { AgencyQuery, FeedQuery, FeedVersionQuery, OperatorQuery } from "./params.ts";
import { basename, join } from "node:path";
import { existsSync, readFileSync } from "node:fs";
import { validationOf } from "../../pipeline/schema/validation.ts";
import { escapeHtml } from "../../shared/html.ts";


/** How soon a failed catalog load is tried again (while the manifest names data that did not load). */
export const CATALOG_RETRY_MS = 2000;

export class CatalogService {
  private data: CatalogData | null = null;
  private loading: Promise<void> = Promise.resolve();
  private lastError: string | null = null;

  constructor(
    private readonly dataDir: string,
    private readonly log: Logger,
    private readonly now: () => number,
    /** realtime alerts (server/realtime, handed over by main.ts) */
    private readonly alerts: AlertSource = NO_ALERTS,
    /** realtime trip updates (server/realtime, handed over by main.ts) */
    private readonly updates: TripUpdateSource = NO_TRIP_UPDATES,
    /** the catalog index cache folder (index-cache.ts) */
    private readonly indexDir: string = join(dataDir, "indexes"),
  ) {}

  /** The request's alerts: null unless it asks for them (include_alerts / active_alerts). */
  /** The request's alerts: null unless it asks for them (for the feed endpoints). */
  alertsOf(q: { includeAlerts: boolean; activeAlerts: boolean }): AlertLookup | null {
    return q.includeAlerts ? this.alerts.lookup(this.now(), q.activeAlerts) : null;
  }

  private alertsFor(q: CommonQuery): AlertLookup | null {
    return q.includeAlerts ? this.alerts.lookup(this.now(), q.activeAlerts) : null;
  }

  /** (Re)load when the manifest generation differs from the one being served. */
  reload(): Promise<void> {
    // (after a failed first load, the chain goes on: a later reload must still run)
    this.loading = this.loading.catch(() => {}).then(async () => {
      const generation = readManifest(this.dataDir).generation;
      if (this.data && this.data.generation === generation) return;
      try {
        const next = await loadCatalog(this.dataDir, this.log, { indexDir: this.indexDir });
        const old = this.data;
        this.data = next;
        this.lastError = null;
        old?.retire();
      } catch (e) {
        this.lastError = String((e as Error)?.message ?? e);
        this.log.error("catalog load failed; still serving the previous dataset", { error: this.lastError });
        // tried again while the manifest still names data that did not load (files still arriving on a
        // synced replica): the manifest does not change again when they arrive
        if (e instanceof IncompleteVersionError) this.retryLater();
        if (!this.data) throw e;
      }
    });
    return this.loading;
  }

  private retry: ReturnType<typeof setTimeout> | null = null;

  private retryLater(): void {
    if (this.retry) return;
    this.retry = setTimeout(() => {
      this.retry = null;
      this.reload().catch(() => {}); // (failures are logged and retried by reload itself)
    }, CATALOG_RETRY_MS);
    this.retry.unref?.();
  }

  close(): void {
    if (this.retry) clearTimeout(this.retry);
    this.retry = null;
    this.data?.retire();
    this.data = null;
  }

  /** The dataset being served (for the transit-data port, transit-data.ts), or null before the first load. */
  current(): CatalogData | null {
    return this.data;
  }

  health(): Record<string, unknown> {
    const d = this.data;
    return d
      ? { status: "ok", generation: d.generation, versions: d.versions.size, active: d.activeVersionIds.length, stops: d.stops.size, routes: d.routes.size, error: this.lastError ?? undefined }
      : { status: "unavailable", error: this.lastError };
  }

  /**
   * Run `fn` with the current dataset retained. `stream(make)` hands the dataset over to a batch
   * generator, which lets go of it when it finishes (listing.ts holding).
   */
  /** The current dataset, for work done at once; UNAVAILABLE before the first load. */
  private loaded(): CatalogData {
    const data = this.data;
    if (!data) throw new AppError("UNAVAILABLE", "the catalog dataset is not loaded yet");
    return data;
  }

  private async use(fn: (data: CatalogData, stream: <T>(make: (end: () => void) => AsyncGenerator<T>) => AsyncIterableIterator<T>) => Promise<Listing>): Promise<Listing> {
    const data = this.loaded();
    const release = data.retain();
    let handedOver = false;
    try {
      return await fn(data, (make) => {
        handedOver = true;
        return holding(make, release);
      });
    } finally {
      if (!handedOver) release();
    }
  }

  /** Stops matching `q`: a page, or every one as batches when `q.limit` is null. */
  stops(q: StopQuery): Promise<Listing> {
    const alerts = this.alertsFor(q);
    return this.use(async (data, stream) => {
      if (q.limit === null) return { items: stream((end) => withStopAlerts(streamStops(data, q, end), data, alerts)), after: null };
      const page = await findStopPage(data, q);
      return alerts ? { ...page, items: page.items.map((it) => stopItemWithAlerts(it, data, alerts)) } : page;
    });
  }

  /** The stops a stop key names (several for a Onestop ID shared by feeds), after the query's filters. */
  stop(key: string, q: StopQuery): Listing {
    const alerts = this.alertsFor(q);
    // done at once: nothing awaits while the dataset is in use, so it need not be retained
    const data = this.loaded();
    const items = findStopsByKey(data, key, q);
    return { items: alerts ? items.map((it) => stopItemWithAlerts(it, data, alerts)) : items, after: null };
  }

  /** Routes matching `q`: a page, or every one as batches when `q.limit` is null. */
  routes(q: RouteQuery): Promise<Listing> {
    const o = routeRender(q, false, this.alertsFor(q));
    return this.use(async (data, stream) => {
      if (q.limit === null) return { items: stream((end) => streamRoutes(data, allRoutes(data, q), o, end)), after: null };
      const { routes, after } = findRoutePage(data, q);
      // bodies with geometries can be large: stream them; plain pages are small enough to build
      if (routes.length && (o.embedGeometry || o.geometryColumn)) return { items: stream((end) => streamRoutes(data, routes, o, end)), after };
      return { items: routes.map((r) => routeItem(data, r, o)), after };
    });
  }

  /** The routes a route key names (several for a Onestop ID shared by feeds), with their geometry. */
  route(key: string, q: RouteQuery): Promise<Listing> {
    const o = routeRender(q, true, this.alertsFor(q));
    return this.use(async (data) => ({ items: findRoutesByKey(data, key, q).map((r) => routeItem(data, r, o)), after: null }));
  }

  /** The stops a stop key names with their departures (and their child stops'), per the query's day and window. */
  departures(key: string, q: DepartureQuery): Promise<Listing> {
    return this.use(async (data) => {
      const now = this.now();
      const o = { alerts: this.alertsFor(q), updates: this.updates.tripUpdates(now), nowMs: now, includeGeometry: q.includeGeometry, limit: q.limit ?? DEFAULT_LIMIT };
      return { items: findStopDepartures(data, key, q, o), after: null };
    });
  }

  /** Trips of the routes a route key names, matching `q`: a page, or every one as batches when `q.limit` is null. */
  trips(routeKey: string, q: TripQuery): Promise<Listing> {
    return this.use(async (data, stream) => {
      const scope = tripScope(data, routeKey, q, this.now());
      const now = this.now();
      const o = renderOptions(q, false, this.alertsFor(q), this.updates.tripUpdates(now), now);
      const selection = await selectTrips(data, scope, q);
      if (q.limit === null) return { items: stream((end) => streamTrips(data, selection.matches(), o, end)), after: null };
      const { indexes, after } = tripPage(data, selection, q.limit);
      // Bodies with shapes can be large: stream them; plain pages are small enough to build.
      if (indexes.length && (q.format !== "json" || q.includeGeometry)) return { items: stream((end) => streamTrips(data, indexes, o, end)), after };
      return { items: renderTrips(data, indexes, o), after };
    });
  }

  /** One trip of the routes a route key names, by internal id, with stop_times and geometry. */
  trip(routeKey: string, id: number, q: TripQuery): Promise<Listing> {
    return this.use(async (data) => {
      const scope = tripScope(data, routeKey, q, this.now());
      const now = this.now();
      return { items: [await findTrip(data, scope, q, id, this.alertsFor(q), this.updates.tripUpdates(now), now)], after: null };
    });
  }
}

/** The feed endpoints (feeds, feed versions, agencies, operators, Onestop IDs): feeds.ts over the dataset's FeedDirectory. */
export class FeedEndpoints {
  constructor(
    private readonly catalog: CatalogService,
    private readonly dataDir: string,
  ) {}

  private use<T>(fn: (data: CatalogData) => T): T {
    const data = this.catalog.current();
    if (!data) throw new AppError("UNAVAILABLE", "the catalog dataset is not loaded yet");
    return fn(data);
  }

  feeds(q: FeedQuery): Listing {
    return this.use((data) => findFeeds(data.directory, data, q));
  }

  /** One feed by key (an integer id or a Onestop ID); 404 when unknown. */
  feed(key: string, q: FeedQuery): Listing {
    return this.use((data) => {
      const f = feedByKey(data.directory, key);
      if (!f) throw notFoundError(`feed not found: ${key}`);
      return findFeeds(data.directory, data, { ...q, key, after: 0, limit: null });
    });
  }

  feedVersions(q: FeedVersionQuery): Listing {
    return this.use((data) => findFeedVersions(data.directory, data, q));
  }

  /** One feed version by key (an integer id or a SHA-1); 404 when unknown. */
  feedVersion(key: string): Listing {
    return this.use((data) => {
      const v = versionByKey(data.directory, data, key);
      if (!v) throw notFoundError(`feed version not found: ${key}`);
      return { items: [versionItem(v)], after: null };
    });
  }

  /**
   * A version's validation report (report.json or report.html) as text; 404 when it has none. The
   * report's input is shown by file name only (reports written before the import did so name the
   * local path, which is not for clients).
   */
  validationReport(key: string, kind: "json" | "html"): string {
    return this.use((data) => {
      const v = versionByKey(data.directory, data, key);
      if (!v) throw notFoundError(`feed version not found: ${key}`);
      const summary = validationOf(this.dataDir, v.sha1);
      const jsonPath = summary ? join(this.dataDir, summary.report_json) : null;
      const htmlPath = summary ? join(this.dataDir, summary.report_html) : null;
      const path = kind === "json" ? jsonPath : htmlPath;
      if (!jsonPath || !path || !existsSync(path)) throw notFoundError(`feed version ${v.sha1} has no validation report (imported without validation: see docs/validation.md)`);
      const report = JSON.parse(readFileSync(jsonPath, "utf8")) as { summary?: { gtfsInput?: unknown } };
      const input = typeof report.summary?.gtfsInput === "string" ? report.summary.gtfsInput : "";
      const shown = /^https?:\/\//i.test(input) ? input.replace(/[?#].*$/, "") : basename(input);
      if (kind === "json") {
        if (report.summary) report.summary.gtfsInput = shown;
        return JSON.stringify(report, null, 2);
      }
      const html = readFileSync(path, "utf8");
      return input && input !== shown ? html.replaceAll(escapeHtml(input), escapeHtml(shown)) : html;
    });
  }

  agencies(q: AgencyQuery): Listing {
    return this.use((data) => findAgencies(data.directory, data, q, { alerts: this.catalog.alertsOf(q), includeRoutes: q.includeRoutes }));
  }

  /** The agencies an agency key names (several for a Onestop ID shared by feeds); 404 when none. */
  agency(key: string, q: AgencyQuery): Listing {
    return this.use((data) => {
      const o = { alerts: this.catalog.alertsOf(q), includeRoutes: q.includeRoutes };
      return { items: resolveAgencies(data.directory, data, key, q).map((a) => agencyItem(data.directory, data, a, o)), after: null };
    });
  }

  /** 404 unless the agency key names an agency (for /agencies/{key}/routes, which then lists routes with agency_key). */
  checkAgency(key: string, q: CommonQuery): void {
    this.use((data) => resolveAgencies(data.directory, data, key, q));
  }

  operators(q: OperatorQuery): Listing {
    return this.use((data) => findOperators(data.directory, data, q, q.includeAlerts ? this.catalog.alertsOf(q) : null));
  }

  /** One operator by key (an integer id or a Onestop ID); 404 when unknown. */
  operator(key: string, q: OperatorQuery): Listing {
    return this.use((data) => {
      const op = operatorByKey(data.directory, key);
      if (!op) throw notFoundError(`operator not found: ${key}`);
      return { items: [operatorItem(data, op, q.includeAlerts ? this.catalog.alertsOf(q) : null)], after: null };
    });
  }

  /** Which endpoint holds a Onestop ID; 404 when the dataset has no such entity. */
  onestopId(id: string): OnestopKind {
    return this.use((data) => {
      const kind = resolveOnestopId(data.directory, data, id);
      if (!kind) throw notFoundError(`not found: no feed (f-), operator (o-), stop (s-) or route (r-) with the Onestop ID ${id}`);
      return kind;
    });
  }
}

/** Stop batches with each stop's alerts (the source is closed when the stream ends or is cancelled). */
async function* withStopAlerts(batches: AsyncGenerator<Item[]>, data: CatalogData, alerts: AlertLookup | null): AsyncGenerator<Item[]> {
  if (!alerts) return yield* batches;
  for await (const b of batches) yield b.map((it) => stopItemWithAlerts(it, data, alerts));
}
