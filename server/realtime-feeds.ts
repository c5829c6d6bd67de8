/**
 * The port between the realtime feature and the catalog for the realtime downloads
 * (`/api/v2/rest/feeds/{feed_key}/download_latest_rt/{kind}.{pb|json}`): a feed's current snapshot
 * of one kind re-encoded as a GTFS-Realtime FeedMessage. Implemented by server/realtime (store.ts,
 * feed-message.ts) and handed to the catalog by server/main.ts, so neither feature imports the other.
 */

export const RT_KINDS = ["alerts", "trip_updates", "vehicle_positions"] as const;
export type RtKind = (typeof RT_KINDS)[number];

/** One FeedMessage in both encodings. */
export interface EncodedFeedMessage {
  /** protobuf bytes (gtfs-realtime.proto FeedMessage) */
  pb: Uint8Array;
  /** the protobuf JSON mapping of the same message (lowerCamelCase names, enums by name, 64-bit integers as strings) */
  json: string;
  /** entities in the message */
  entities: number;
}

export interface RealtimeFeeds {
  /**
   * The feed's current snapshot of `kind` served at `nowMs` as a FeedMessage; a message with its
   * header and no entity when the feed has no snapshot of that kind being served; null when the
   * dataset has no realtime source for the feed (no status file).
   */
  feedMessage(feedOnestopId: string, kind: RtKind, nowMs: number): Promise<EncodedFeedMessage | null>;
}

export const NO_REALTIME_FEEDS: RealtimeFeeds = { feedMessage: async () => null };
