/**
 * One trip updates snapshot, indexed by trip_id for the catalog: per trip, the trip's
 * schedule_relationship, start_date, delay and its stop time updates in feed order. A feed that
 * sends several updates for one trip_id: the last wins (Transitland's rule); deleted entities and
 * updates without a trip_id are left out.
 */

import type { TripUpdate } from "../trip-updates.ts";

/** A row of the trip_updates snapshot table (pipeline/schema/realtime.ts), as DuckDB's to_json gives it. */
export interface TripUpdateRow {
  entity_id: string;
  is_deleted: boolean | null;
  trip_id: string | null;
  schedule_relationship: string | null;
  start_date: string | null;
  delay: number | null;
  stop_sequence: number | null;
  stop_id: string | null;
  arrival_time: number | null;
  arrival_delay: number | null;
  departure_time: number | null;
  departure_delay: number | null;
  stop_schedule_relationship: string | null;
}

export const TRIP_UPDATE_COLUMNS = [
  "entity_id", "is_deleted", "trip_id", "schedule_relationship", "start_date", "delay", "stop_sequence", "stop_id",
  "arrival_time", "arrival_delay", "departure_time", "departure_delay", "stop_schedule_relationship",
];

export class TripUpdateIndex {
  readonly byTrip = new Map<string, TripUpdate>();
  constructor(private readonly headerTimestamp: number | null) {}

  /** Rows in file order (the rows of one entity are consecutive). */
  addRows(rows: TripUpdateRow[]): void {
    let entity: string | null = null;
    let current: TripUpdate | null = null;
    for (const r of rows) {
      if (r.is_deleted || !r.trip_id) continue;
      if (r.entity_id !== entity || !current) {
        entity = r.entity_id;
        current = { schedule_relationship: r.schedule_relationship, start_date: r.start_date, delay: r.delay, header_timestamp: this.headerTimestamp, stops: [] };
        this.byTrip.set(r.trip_id, current);
      }
      if (r.stop_sequence === null && r.stop_id === null) continue;
      current.stops.push({
        stop_sequence: r.stop_sequence, stop_id: r.stop_id, arrival_time: r.arrival_time, arrival_delay: r.arrival_delay,
        departure_time: r.departure_time, departure_delay: r.departure_delay, schedule_relationship: r.stop_schedule_relationship,
      });
    }
  }
}
