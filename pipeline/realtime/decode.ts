/**
 * GTFS-Realtime protobuf bytes -> plain objects, with npm gtfs-realtime-bindings (the
 * MobilityData classes of gtfs-realtime.proto). https://gtfs.org/realtime/reference/
 * Longs become numbers, enums their names; absent optional fields stay absent (so an absent
 * `effect` is not turned into its default).
 */
import GtfsRealtimeBindings from "gtfs-realtime-bindings";
import type { RealtimeKind } from "../schema/realtime.ts";

const { transit_realtime: rt } = GtfsRealtimeBindings;

export interface Translation {
  text?: string;
  language?: string;
}
export interface TranslatedString {
  translation?: Translation[];
}
export interface TripDescriptor {
  tripId?: string;
  routeId?: string;
  directionId?: number;
  startTime?: string;
  startDate?: string;
  scheduleRelationship?: string;
}
export interface VehicleDescriptor {
  id?: string;
  label?: string;
  licensePlate?: string;
}
export interface EntitySelector {
  agencyId?: string;
  routeId?: string;
  routeType?: number;
  directionId?: number;
  trip?: TripDescriptor;
  stopId?: string;
}
export interface Alert {
  activePeriod?: { start?: number; end?: number }[];
  informedEntity?: EntitySelector[];
  cause?: string;
  effect?: string;
  severityLevel?: string;
  url?: TranslatedString;
  headerText?: TranslatedString;
  descriptionText?: TranslatedString;
  ttsHeaderText?: TranslatedString;
  ttsDescriptionText?: TranslatedString;
}
export interface StopTimeEvent {
  delay?: number;
  time?: number;
  uncertainty?: number;
}
export interface TripUpdate {
  trip?: TripDescriptor;
  vehicle?: VehicleDescriptor;
  stopTimeUpdate?: { stopSequence?: number; stopId?: string; arrival?: StopTimeEvent; departure?: StopTimeEvent; scheduleRelationship?: string }[];
  timestamp?: number;
  delay?: number;
}
export interface VehiclePosition {
  trip?: TripDescriptor;
  vehicle?: VehicleDescriptor;
  position?: { latitude?: number; longitude?: number; bearing?: number; odometer?: number; speed?: number };
  currentStopSequence?: number;
  stopId?: string;
  currentStatus?: string;
  timestamp?: number;
  congestionLevel?: string;
  occupancyStatus?: string;
  occupancyPercentage?: number;
}
export interface FeedEntity {
  id: string;
  isDeleted?: boolean;
  tripUpdate?: TripUpdate;
  vehicle?: VehiclePosition;
  alert?: Alert;
}
export interface FeedMessage {
  header: { gtfsRealtimeVersion?: string; incrementality?: string; timestamp?: number };
  entity?: FeedEntity[];
}

/** Bytes that are not a FeedMessage (the message says why). */
export class DecodeError extends Error {
  override readonly name = "DecodeError";
}

export function decodeFeed(bytes: Uint8Array): FeedMessage {
  try {
    const msg = rt.FeedMessage.decode(bytes);
    return rt.FeedMessage.toObject(msg, { longs: Number, enums: String }) as FeedMessage;
  } catch (e) {
    throw new DecodeError(`not a GTFS-Realtime FeedMessage (${bytes.length} bytes): ${(e as Error).message}`);
  }
}

/** Header timestamp in POSIX seconds, null when absent or 0. */
export const headerTimestamp = (m: FeedMessage): number | null => (m.header.timestamp ? Number(m.header.timestamp) : null);

/** The entity field of each kind. */
export const ENTITY_FIELD: Record<RealtimeKind, "alert" | "tripUpdate" | "vehicle"> = { alerts: "alert", trip_updates: "tripUpdate", vehicle_positions: "vehicle" };

/** The kinds a message has entities of, in REALTIME_KINDS order. */
export function kindsOf(m: FeedMessage): RealtimeKind[] {
  return (Object.keys(ENTITY_FIELD) as RealtimeKind[]).filter((k) => (m.entity ?? []).some((e) => e[ENTITY_FIELD[k]]));
}
