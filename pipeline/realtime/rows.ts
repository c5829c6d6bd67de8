/**
 * A decoded feed as the rows of its snapshot table (pipeline/schema/realtime.ts REALTIME_TABLES),
 * every id checked against the static feed: what the feed names but the feed's active version does
 * not have is listed in the row (`unknown`) and counted, never dropped and never re-attached to
 * something else.
 */
import type { RealtimeKind, UnknownIds } from "../schema/realtime.ts";
import type { StaticIds } from "./static-ids.ts";
import type { Alert, EntitySelector, FeedEntity, FeedMessage, TranslatedString, TripDescriptor, VehicleDescriptor } from "./decode.ts";
import { ENTITY_FIELD, headerTimestamp } from "./decode.ts";

export type Row = Record<string, unknown>;

export interface SnapshotRows {
  rows: Row[];
  /** entities of the kind */
  entities: number;
  unknown: UnknownIds;
  /** alerts only: alerts without a selector on a known agency, route, trip or stop */
  unattachedAlerts: number;
}

const MAX_EXAMPLES = 5;

class UnknownCounter {
  readonly ids: UnknownIds = { count: 0, by_field: {}, examples: [] };
  /** the fields of `ids` (field -> id) that `known` rejects, counted */
  check(entityId: string, ids: [field: string, id: string | undefined, known: (id: string) => boolean][]): string[] {
    const out: string[] = [];
    for (const [field, id, known] of ids) {
      if (id === undefined || id === "" || known(id)) continue;
      out.push(field);
      this.ids.count++;
      this.ids.by_field[field] = (this.ids.by_field[field] ?? 0) + 1;
      if (this.ids.examples.length < MAX_EXAMPLES) this.ids.examples.push(`entity ${entityId}: ${field} ${id}`);
    }
    return out;
  }
}

const translations = (t: TranslatedString | undefined) => (t ? (t.translation ?? []).map((x) => ({ language: x.language ?? null, text: x.text ?? "" })) : null);
const opt = <T>(v: T | undefined): T | null => (v === undefined ? null : v);
const trip = (t: TripDescriptor | undefined) =>
  t
    ? {
        trip_id: opt(t.tripId), route_id: opt(t.routeId), direction_id: opt(t.directionId), start_time: opt(t.startTime),
        start_date: opt(t.startDate), schedule_relationship: opt(t.scheduleRelationship),
      }
    : null;
const tripColumns = (t: TripDescriptor | undefined, v: VehicleDescriptor | undefined): Row => ({
  trip_id: opt(t?.tripId), route_id: opt(t?.routeId), direction_id: opt(t?.directionId), start_time: opt(t?.startTime),
  start_date: opt(t?.startDate), schedule_relationship: opt(t?.scheduleRelationship),
  vehicle_id: opt(v?.id), vehicle_label: opt(v?.label), vehicle_license_plate: opt(v?.licensePlate),
});

/**
 * Whether a selector can be attached to a known entity by the catalog's rules (server/realtime):
 * a trip by trip_id; without a trip, a stop by stop_id; without trip and stop, a route by
 * route_id; with none of these, an agency by agency_id.
 */
function attachable(s: EntitySelector, ids: StaticIds): boolean {
  if (s.trip) return Boolean(s.trip.tripId && ids.trip(s.trip.tripId));
  if (s.stopId) return ids.stop(s.stopId);
  if (s.routeId) return ids.route(s.routeId);
  return Boolean(s.agencyId && ids.agency(s.agencyId));
}

function alertRow(e: FeedEntity, a: Alert, ids: StaticIds, unknown: UnknownCounter): { row: Row; attached: boolean } {
  const selectors = a.informedEntity ?? [];
  const row: Row = {
    entity_id: e.id, is_deleted: opt(e.isDeleted),
    cause: opt(a.cause), effect: opt(a.effect), severity_level: opt(a.severityLevel),
    url: translations(a.url), header_text: translations(a.headerText), description_text: translations(a.descriptionText),
    tts_header_text: translations(a.ttsHeaderText), tts_description_text: translations(a.ttsDescriptionText),
    active_period: (a.activePeriod ?? []).map((p) => ({ start: opt(p.start), end: opt(p.end) })),
    informed_entity: selectors.map((s) => ({
      agency_id: opt(s.agencyId), route_id: opt(s.routeId), route_type: opt(s.routeType), direction_id: opt(s.directionId),
      trip: trip(s.trip), stop_id: opt(s.stopId),
      unknown: unknown.check(e.id, [
        ["agency_id", s.agencyId, ids.agency], ["route_id", s.routeId, ids.route], ["trip_id", s.trip?.tripId, ids.trip],
        ["trip.route_id", s.trip?.routeId, ids.route], ["stop_id", s.stopId, ids.stop],
      ]),
    })),
  };
  return { row, attached: selectors.some((s) => attachable(s, ids)) };
}

function tripUpdateRows(e: FeedEntity, ids: StaticIds, unknown: UnknownCounter): Row[] {
  const u = e.tripUpdate!;
  const tripUnknown = unknown.check(e.id, [["trip_id", u.trip?.tripId, ids.trip], ["route_id", u.trip?.routeId, ids.route]]);
  const base: Row = { entity_id: e.id, is_deleted: opt(e.isDeleted), ...tripColumns(u.trip, u.vehicle), timestamp: opt(u.timestamp), delay: opt(u.delay) };
  const stops = u.stopTimeUpdate ?? [];
  if (!stops.length) return [{ ...base, unknown: tripUnknown }];
  return stops.map((s) => ({
    ...base,
    stop_sequence: opt(s.stopSequence), stop_id: opt(s.stopId),
    arrival_time: opt(s.arrival?.time), arrival_delay: opt(s.arrival?.delay), arrival_uncertainty: opt(s.arrival?.uncertainty),
    departure_time: opt(s.departure?.time), departure_delay: opt(s.departure?.delay), departure_uncertainty: opt(s.departure?.uncertainty),
    stop_schedule_relationship: opt(s.scheduleRelationship),
    unknown: [...tripUnknown, ...unknown.check(e.id, [["stop_id", s.stopId, ids.stop]])],
  }));
}

function vehicleRow(e: FeedEntity, ids: StaticIds, unknown: UnknownCounter): Row {
  const v = e.vehicle!;
  return {
    entity_id: e.id, is_deleted: opt(e.isDeleted), ...tripColumns(v.trip, v.vehicle),
    latitude: opt(v.position?.latitude), longitude: opt(v.position?.longitude), bearing: opt(v.position?.bearing),
    odometer: opt(v.position?.odometer), speed: opt(v.position?.speed),
    current_stop_sequence: opt(v.currentStopSequence), stop_id: opt(v.stopId), current_status: opt(v.currentStatus),
    timestamp: opt(v.timestamp), congestion_level: opt(v.congestionLevel), occupancy_status: opt(v.occupancyStatus),
    occupancy_percentage: opt(v.occupancyPercentage),
    unknown: unknown.check(e.id, [["trip_id", v.trip?.tripId, ids.trip], ["route_id", v.trip?.routeId, ids.route], ["stop_id", v.stopId, ids.stop]]),
  };
}

/** The rows of one kind of a decoded feed, with the snapshot columns filled in. */
export function snapshotRows(m: FeedMessage, kind: RealtimeKind, fetchedAt: Date, ids: StaticIds): SnapshotRows {
  const unknown = new UnknownCounter();
  const field = ENTITY_FIELD[kind];
  const entities = (m.entity ?? []).filter((e) => e[field]);
  const rows: Row[] = [];
  let unattachedAlerts = 0;
  for (const e of entities) {
    if (kind === "alerts") {
      const { row, attached } = alertRow(e, e.alert!, ids, unknown);
      if (!attached) unattachedAlerts++;
      rows.push(row);
    } else if (kind === "trip_updates") rows.push(...tripUpdateRows(e, ids, unknown));
    else rows.push(vehicleRow(e, ids, unknown));
  }
  const snapshot = { header_timestamp: headerTimestamp(m), fetched_at: fetchedAt.toISOString() };
  return { rows: rows.map((r) => ({ ...snapshot, ...r })), entities: entities.length, unknown: unknown.ids, unattachedAlerts };
}
