/**
 * The port between the realtime feature and the catalog for trip updates: what the catalog asks
 * for (TripUpdateSource) and the shape of an update, implemented by server/realtime (store.ts,
 * trip-updates.ts) and handed over by server/main.ts, so neither feature imports the other.
 */

export interface StopTimeUpdate {
  stop_sequence: number | null;
  stop_id: string | null;
  /** POSIX seconds */
  arrival_time: number | null;
  arrival_delay: number | null;
  departure_time: number | null;
  departure_delay: number | null;
  /** SCHEDULED, SKIPPED, NO_DATA, UNSCHEDULED */
  schedule_relationship: string | null;
}

export interface TripUpdate {
  /** the trip's: SCHEDULED, ADDED, UNSCHEDULED, CANCELED, ... (null when absent) */
  schedule_relationship: string | null;
  /** YYYYMMDD */
  start_date: string | null;
  /** TripUpdate.delay, seconds */
  delay: number | null;
  /** of the snapshot, POSIX seconds */
  header_timestamp: number | null;
  stops: StopTimeUpdate[];
}

export interface TripUpdateLookup {
  trip(feed: string, tripId: string): TripUpdate | null;
}
export interface TripUpdateSource {
  tripUpdates(nowMs: number): TripUpdateLookup;
}
