/**
 * One alerts snapshot, indexed for the catalog by the reference rules (Transitland's rtfinder;
 * docs: README "Alerts"): an informed entity (EntitySelector) puts its alert on
 * - a trip: it has a trip descriptor whose trip_id is the trip's;
 * - a stop: no trip descriptor, stop_id is the stop's (agency and route may be given);
 * - a route: no trip descriptor, no stop_id, route_id is the route's;
 * - an agency: no trip descriptor, no route_id, no stop_id, agency_id is the agency's.
 * A selector naming an id the static feed lacks attaches to nothing (the ingest reports it);
 * it is never widened to the agency or route it also names.
 */

/** A row of the alerts snapshot table (pipeline/schema/realtime.ts), as DuckDB's to_json gives it. */
export interface AlertRow {
  entity_id: string;
  is_deleted: boolean | null;
  cause: string | null;
  effect: string | null;
  severity_level: string | null;
  url: Translation[] | null;
  header_text: Translation[] | null;
  description_text: Translation[] | null;
  tts_header_text: Translation[] | null;
  tts_description_text: Translation[] | null;
  active_period: { start: number | null; end: number | null }[] | null;
  informed_entity: Selector[] | null;
}
interface Translation {
  language: string | null;
  text: string | null;
}
interface Selector {
  agency_id: string | null;
  route_id: string | null;
  route_type?: number | null;
  stop_id: string | null;
  trip: { trip_id: string | null } | null;
}

/**
 * One alert: its Alert object as JSON text (the catalog's), its active periods (POSIX seconds, null
 * = open), and its texts as plans show them (header, description, url translations).
 */
export interface AlertDoc {
  json: string;
  periods: { start: number | null; end: number | null }[];
  header: { language: string | null; text: string }[];
  description: { language: string | null; text: string }[];
  url: { language: string | null; text: string }[] | null;
}

const translations = (t: Translation[] | null, nullable: boolean) =>
  t === null ? (nullable ? null : []) : t.map((x) => ({ language: x.language ?? null, text: x.text ?? "" }));

/**
 * The spec's Alert object, fields in its order plus the reference's header_text and
 * tts_header_text: description_text and header_text are arrays (empty when absent); url, the tts
 * texts and active_period are null when absent.
 */
export function alertJson(r: AlertRow): string {
  const periods = r.active_period ?? [];
  return JSON.stringify({
    cause: r.cause,
    effect: r.effect,
    severity_level: r.severity_level,
    url: translations(r.url, true),
    header_text: translations(r.header_text, false),
    description_text: translations(r.description_text, false),
    tts_header_text: translations(r.tts_header_text, true),
    tts_description_text: translations(r.tts_description_text, true),
    active_period: periods.length ? periods.map((p) => ({ start: p.start ?? null, end: p.end ?? null })) : null,
  });
}

/**
 * Active at `t` (POSIX seconds): no active period, or one with start <= t < end (open ends
 * unbounded), GTFS-Realtime's TimeRange rule.
 */
export function activeAt(doc: AlertDoc, t: number): boolean {
  if (!doc.periods.length) return true;
  return doc.periods.some((p) => (p.start === null || p.start <= t) && (p.end === null || t < p.end));
}

/**
 * One alert as a record with its informed entities (the GraphQL API's alerts, through the catalog's
 * transit-data port): `id` is the feed entity's id.
 */
export interface AlertRecord {
  id: string;
  cause: string | null;
  effect: string | null;
  severity: string | null;
  header: { language: string | null; text: string }[];
  description: { language: string | null; text: string }[];
  url: { language: string | null; text: string }[];
  periods: { start: number | null; end: number | null }[];
  entities: { agency: string | null; route: string | null; routeType: number | null; stop: string | null; trip: string | null }[];
}

export class AlertIndex {
  /** every alert of the snapshot, in its order */
  readonly records: AlertRecord[] = [];
  readonly byTrip = new Map<string, AlertDoc[]>();
  readonly byStop = new Map<string, AlertDoc[]>();
  readonly byRoute = new Map<string, AlertDoc[]>();
  readonly byAgency = new Map<string, AlertDoc[]>();
  count = 0;

  add(r: AlertRow): void {
    if (r.is_deleted) return;
    this.count++;
    const doc: AlertDoc = {
      json: alertJson(r),
      periods: (r.active_period ?? []).map((p) => ({ start: p.start ?? null, end: p.end ?? null })),
      header: translations(r.header_text, false)!,
      description: translations(r.description_text, false)!,
      url: translations(r.url, true),
    };
    this.records.push({
      id: r.entity_id, cause: r.cause, effect: r.effect, severity: r.severity_level, header: doc.header, description: doc.description, url: doc.url ?? [],
      periods: doc.periods,
      entities: (r.informed_entity ?? []).map((e) => ({ agency: e.agency_id ?? null, route: e.route_id ?? null, routeType: e.route_type ?? null, stop: e.stop_id ?? null, trip: e.trip?.trip_id ?? null })),
    });
    // one alert appears once per entity, however many of its selectors name it
    const seen = new Set<string>();
    const put = (m: Map<string, AlertDoc[]>, kind: string, id: string | null) => {
      if (!id || seen.has(`${kind}\u0000${id}`)) return;
      seen.add(`${kind}\u0000${id}`);
      const list = m.get(id);
      if (list) list.push(doc);
      else m.set(id, [doc]);
    };
    for (const s of r.informed_entity ?? []) {
      if (s.trip) put(this.byTrip, "trip", s.trip.trip_id);
      else if (s.stop_id) put(this.byStop, "stop", s.stop_id);
      else if (s.route_id) put(this.byRoute, "route", s.route_id);
      else put(this.byAgency, "agency", s.agency_id);
    }
  }
}

/** The alerts of a list as a JSON array text, only those active at `t` when `t` is given. */
export function alertsText(docs: AlertDoc[] | undefined, t: number | null): string {
  if (!docs) return "[]";
  const keep = t === null ? docs : docs.filter((d) => activeAt(d, t));
  return `[${keep.map((d) => d.json).join(",")}]`;
}
