/**
 * A realtime snapshot's Parquet rows (pipeline/schema/realtime.ts REALTIME_TABLES) back into a
 * GTFS-Realtime FeedMessage, encoded with npm gtfs-realtime-bindings (the MobilityData classes of
 * gtfs-realtime.proto): as protobuf bytes and as the protobuf JSON mapping (what Go's protojson
 * writes, which Transitland's download_latest_rt answers: lowerCamelCase names, enums by name,
 * 64-bit integers as strings, float fields in their shortest form). For the catalog's realtime
 * downloads (the port server/realtime-feeds.ts).
 *
 * What the rows hold is what comes back: the header's gtfs_realtime_version is "2.0" and its
 * incrementality FULL_DATASET (the snapshot tables keep neither), extensions and fields the tables
 * do not have (e.g. TripUpdate.trip_properties, VehiclePosition.multi_carriage_details) are gone.
 */
import GtfsRealtimeBindings from "gtfs-realtime-bindings";
import type { EncodedFeedMessage, RtKind } from "../realtime-feeds.ts";

const { transit_realtime: rt } = GtfsRealtimeBindings;

type Row = Record<string, unknown>;
type Obj = Record<string, unknown>;

/** The columns each kind's message is built from (every column but the snapshot's and `unknown`). */
export const MESSAGE_COLUMNS: Record<RtKind, string[]> = {
  alerts: ["entity_id", "is_deleted", "cause", "effect", "severity_level", "url", "header_text", "description_text", "tts_header_text", "tts_description_text", "active_period", "informed_entity"],
  trip_updates: [
    "entity_id", "is_deleted", "trip_id", "route_id", "direction_id", "start_time", "start_date", "schedule_relationship", "vehicle_id", "vehicle_label", "vehicle_license_plate",
    "timestamp", "delay", "stop_sequence", "stop_id", "arrival_time", "arrival_delay", "arrival_uncertainty", "departure_time", "departure_delay", "departure_uncertainty", "stop_schedule_relationship",
  ],
  vehicle_positions: [
    "entity_id", "is_deleted", "trip_id", "route_id", "direction_id", "start_time", "start_date", "schedule_relationship", "vehicle_id", "vehicle_label", "vehicle_license_plate",
    "latitude", "longitude", "bearing", "odometer", "speed", "current_stop_sequence", "stop_id", "current_status", "timestamp", "congestion_level", "occupancy_status", "occupancy_percentage",
  ],
};

/** An object of the fields that have a value (null and undefined left out); undefined when none has. */
function some(fields: Obj): Obj | undefined {
  const out: Obj = {};
  for (const [k, v] of Object.entries(fields)) if (v !== null && v !== undefined) out[k] = v;
  return Object.keys(out).length ? out : undefined;
}

/** An enum value as stored: its name, or the number of a value the bindings did not know. */
const enumOf = (v: unknown) => (v === null || v === undefined ? undefined : /^-?\d+$/.test(String(v)) ? Number(v) : String(v));
const num = (v: unknown) => (v === null || v === undefined ? undefined : Number(v));

const translated = (t: unknown) =>
  Array.isArray(t) ? { translation: (t as { text: string | null; language: string | null }[]).map((x) => some({ text: x.text ?? "", language: x.language })!) } : undefined;

const tripOf = (r: Row) =>
  some({ tripId: r.trip_id, routeId: r.route_id, directionId: num(r.direction_id), startTime: r.start_time, startDate: r.start_date, scheduleRelationship: enumOf(r.schedule_relationship) });
const vehicleOf = (r: Row) => some({ id: r.vehicle_id, label: r.vehicle_label, licensePlate: r.vehicle_license_plate });

function alertEntity(r: Row): Obj {
  const selectors = (r.informed_entity as Row[] | null) ?? [];
  const alert = some({
    activePeriod: ((r.active_period as Row[] | null) ?? []).map((p) => some({ start: num(p.start), end: num(p.end) }) ?? {}),
    informedEntity: selectors.map((s) => some({
      agencyId: s.agency_id, routeId: s.route_id, routeType: num(s.route_type), directionId: num(s.direction_id),
      trip: s.trip ? tripOf(s.trip as Row) : undefined, stopId: s.stop_id,
    }) ?? {}),
    cause: enumOf(r.cause), effect: enumOf(r.effect), severityLevel: enumOf(r.severity_level),
    url: translated(r.url), headerText: translated(r.header_text), descriptionText: translated(r.description_text),
    ttsHeaderText: translated(r.tts_header_text), ttsDescriptionText: translated(r.tts_description_text),
  });
  return some({ id: r.entity_id, isDeleted: r.is_deleted, alert: alert ?? {} })!;
}

const event = (r: Row, which: "arrival" | "departure") => some({ delay: num(r[`${which}_delay`]), time: num(r[`${which}_time`]), uncertainty: num(r[`${which}_uncertainty`]) });

/** Trip update rows (one per StopTimeUpdate, an entity's rows consecutive) into entities. */
function tripUpdateEntities(rows: Row[]): Obj[] {
  const out: Obj[] = [];
  let entity: string | null = null;
  let updates: Obj[] = [];
  for (const r of rows) {
    if (r.entity_id !== entity || !out.length) {
      entity = String(r.entity_id);
      updates = [];
      out.push(some({ id: r.entity_id, isDeleted: r.is_deleted, tripUpdate: some({ trip: tripOf(r) ?? {}, vehicle: vehicleOf(r), stopTimeUpdate: updates, timestamp: num(r.timestamp), delay: num(r.delay) }) })!);
    }
    const stop = some({ stopSequence: num(r.stop_sequence), stopId: r.stop_id, arrival: event(r, "arrival"), departure: event(r, "departure"), scheduleRelationship: enumOf(r.stop_schedule_relationship) });
    // a TripUpdate without StopTimeUpdates is one row with no stop columns
    if (stop && (stop.stopSequence !== undefined || stop.stopId !== undefined || stop.arrival || stop.departure)) updates.push(stop);
  }
  return out;
}

function vehicleEntity(r: Row): Obj {
  const position = r.latitude === null || r.longitude === null ? undefined : some({ latitude: num(r.latitude), longitude: num(r.longitude), bearing: num(r.bearing), odometer: num(r.odometer), speed: num(r.speed) });
  const vehicle = some({
    trip: tripOf(r), vehicle: vehicleOf(r), position, currentStopSequence: num(r.current_stop_sequence), stopId: r.stop_id, currentStatus: enumOf(r.current_status),
    timestamp: num(r.timestamp), congestionLevel: enumOf(r.congestion_level), occupancyStatus: enumOf(r.occupancy_status), occupancyPercentage: num(r.occupancy_percentage),
  });
  return some({ id: r.entity_id, isDeleted: r.is_deleted, vehicle: vehicle ?? {} })!;
}

/** The FeedMessage (the bindings' plain-object form) of one snapshot's rows. */
export function feedMessageObject(kind: RtKind, headerTimestamp: number | null, rows: Row[]): Obj {
  const entity = kind === "alerts" ? rows.map(alertEntity) : kind === "trip_updates" ? tripUpdateEntities(rows) : rows.map(vehicleEntity);
  return { header: some({ gtfsRealtimeVersion: "2.0", incrementality: "FULL_DATASET", timestamp: headerTimestamp ?? undefined }), entity };
}

/** The shortest decimal that reads back as the same 32-bit float (as protojson writes `float` fields). */
function float32(x: number): number {
  if (!Number.isFinite(x)) return x;
  const f = Math.fround(x);
  for (let p = 1; p <= 9; p++) {
    const v = Number(f.toPrecision(p));
    if (Math.fround(v) === f) return v;
  }
  return f;
}

/** The `float` fields of gtfs-realtime.proto the tables hold (Position's latitude, longitude, bearing, speed), in their protojson form. */
function shortFloats(message: Obj): void {
  for (const e of (message.entity as Obj[] | undefined) ?? []) {
    const p = (e.vehicle as Obj | undefined)?.position as Obj | undefined;
    if (!p) continue;
    for (const k of ["latitude", "longitude", "bearing", "speed"]) if (typeof p[k] === "number") p[k] = float32(p[k] as number);
  }
}

/** A FeedMessage object in both encodings. */
export function encodeFeedMessage(object: Obj): EncodedFeedMessage {
  const message = rt.FeedMessage.fromObject(object);
  const pb = rt.FeedMessage.encode(message).finish();
  const json = rt.FeedMessage.toObject(message, { longs: String, enums: String, json: true }) as Obj;
  shortFloats(json);
  return { pb, json: JSON.stringify(json), entities: ((object.entity as unknown[]) ?? []).length };
}
