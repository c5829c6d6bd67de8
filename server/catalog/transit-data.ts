/**
 * The catalog's implementation of the transit-data port (server/transit-data.ts) the GTFS GraphQL
 * API reads: the loaded dataset's JS indexes (store.ts), restricted to the active feed versions.
 * Stop and route records are parsed from the documents rendered at load, once per dataset and
 * entity, on first use; agencies' details are read from DuckDB once per dataset.
 */
import type { BoundingBox, TransitAgency, TransitData, TransitRoute, TransitSnapshot, TransitStop } from "../transit-data.ts";
import type { CatalogData } from "./store.ts";

const nz = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : null);
const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

class CatalogSnapshot implements TransitSnapshot {
  private readonly stopCache = new Map<number, TransitStop>();
  private readonly routeCache = new Map<number, TransitRoute>();
  private activeStops: Int32Array | null = null;
  private activeRoutes: Int32Array | null = null;
  private readonly active: Set<number>;

  constructor(
    private readonly data: CatalogData,
    private readonly agencyDetails: Map<number, TransitAgency>,
  ) {
    this.active = new Set(data.activeVersionIds);
  }

  private feedOf(fv: number): string {
    return this.data.versions.get(fv)!.feedOnestopId;
  }

  feeds(): string[] {
    return [...new Set([...this.active].map((fv) => this.feedOf(fv)))].sort();
  }

  stop(ref: number): TransitStop | null {
    const cached = this.stopCache.get(ref);
    if (cached) return cached;
    const d = this.data.stops.get(ref);
    if (!d || !this.active.has(d.fv)) return null;
    const p = JSON.parse(`${d.propsOpen}}`) as Record<string, unknown>;
    const s: TransitStop = {
      ref, feed: this.feedOf(d.fv), id: d.stopId, name: d.stopName, code: nz(p.stop_code), desc: nz(p.stop_desc), url: nz(p.stop_url),
      lat: d.lat, lon: d.lon, locationType: d.locationType, parent: d.parentRef, timezone: d.timezone, platformCode: nz(p.platform_code),
      zoneId: nz(p.zone_id), wheelchairBoarding: num(p.wheelchair_boarding),
    };
    this.stopCache.set(ref, s);
    return s;
  }

  private firstActive(refs: number[], get: (ref: number) => unknown): number | null {
    for (const r of refs) if (get(r)) return r;
    return null;
  }

  stopById(feed: string, id: string): TransitStop | null {
    const ref = this.firstActive(this.data.stopsByFeed(feed, id), (r) => this.stop(r));
    return ref === null ? null : this.stop(ref);
  }

  stopRefs(): Int32Array {
    if (!this.activeStops) {
      const out: number[] = [];
      for (const d of this.data.stops.values()) if (this.active.has(d.fv)) out.push(d.id);
      this.activeStops = Int32Array.from(out).sort();
    }
    return this.activeStops;
  }

  private activeOnly(ids: Int32Array): Int32Array {
    return ids.filter((id) => {
      const d = this.data.stops.get(id);
      return d !== undefined && this.active.has(d.fv);
    });
  }

  stopsInBox(box: BoundingBox): Int32Array {
    return this.activeOnly(this.data.spatial.selectIds(box, null));
  }

  stopsNear(lat: number, lon: number, radius: number): Int32Array {
    return this.activeOnly(this.data.spatial.selectIds(null, { lat, lon, radius }));
  }

  childrenOf(ref: number): number[] {
    return this.data.childrenOf.get(ref) ?? [];
  }

  routesOfStops(refs: readonly number[]): Int32Array[] {
    return refs.map((r) => this.data.stopRoutes.get(r) ?? new Int32Array(0));
  }

  route(ref: number): TransitRoute | null {
    const cached = this.routeCache.get(ref);
    if (cached) return cached;
    const r = this.data.routes.get(ref);
    if (!r || !this.active.has(r.fv)) return null;
    const p = JSON.parse(`${r.propsOpen}}`) as Record<string, unknown>;
    const out: TransitRoute = {
      ref, feed: this.feedOf(r.fv), id: r.routeId, agency: r.agencyRef, shortName: r.shortName, longName: r.longName, desc: nz(p.route_desc),
      type: r.routeType, url: nz(p.route_url), color: nz(p.route_color), textColor: nz(p.route_text_color), sortOrder: num(p.route_sort_order),
    };
    this.routeCache.set(ref, out);
    return out;
  }

  routeById(feed: string, id: string): TransitRoute | null {
    const ref = this.firstActive(this.data.routesByFeed(feed, id), (r) => this.route(r));
    return ref === null ? null : this.route(ref);
  }

  routeRefs(): Int32Array {
    if (!this.activeRoutes) this.activeRoutes = this.data.routeOrder.filter((id) => this.active.has(this.data.routes.get(id)!.fv));
    return this.activeRoutes;
  }

  stopsOfRoute(ref: number): Int32Array {
    return this.data.routeStops.get(ref) ?? new Int32Array(0);
  }

  agency(ref: number): TransitAgency | null {
    return this.agencyDetails.get(ref) ?? null;
  }

  agencyById(feed: string, id: string): TransitAgency | null {
    const ref = this.firstActive(this.data.agenciesByFeed(feed, id), (r) => this.agency(r));
    return ref === null ? null : this.agency(ref);
  }

  agencyRefs(): Int32Array {
    return Int32Array.from([...this.agencyDetails.keys()]).sort();
  }
}

/** Agencies' details of the active versions, read from the dataset's DuckDB once. */
async function loadAgencies(data: CatalogData): Promise<Map<number, TransitAgency>> {
  const active = new Set(data.activeVersionIds);
  const rows = await data.db.rows({
    sql: `SELECT id, feed_version_id, agency_id, agency_name, agency_url, agency_timezone, agency_lang, agency_phone, agency_fare_url FROM agencies ORDER BY id`,
    values: [],
  });
  const out = new Map<number, TransitAgency>();
  for (const [id, fv, agencyId, name, url, tz, lang, phone, fareUrl] of rows) {
    if (!active.has(Number(fv))) continue;
    const v = data.versions.get(Number(fv))!;
    out.set(Number(id), { ref: Number(id), feed: v.feedOnestopId, id: String(agencyId ?? ""), name: nz(name), url: nz(url), timezone: nz(tz), lang: nz(lang), phone: nz(phone), fareUrl: nz(fareUrl) });
  }
  return out;
}

/**
 * The port over the catalog's current dataset (`current()`, the service's): one snapshot per
 * loaded dataset, made on the first request after a load (its agencies read from DuckDB then).
 */
export function catalogTransitData(current: () => CatalogData | null): TransitData {
  let built: { data: CatalogData; snap: CatalogSnapshot } | null = null;
  let preparing: { data: CatalogData; done: Promise<CatalogSnapshot> } | null = null;
  return {
    async snapshot() {
      const data = current();
      if (!data) return null;
      if (built && built.data === data) return built.snap;
      if (!preparing || preparing.data !== data) {
        const release = data.retain();
        const done = loadAgencies(data)
          .then((agencies) => new CatalogSnapshot(data, agencies))
          .finally(release);
        preparing = { data, done };
      }
      const snap = await preparing.done;
      built = { data, snap };
      return snap;
    },
  };
}
