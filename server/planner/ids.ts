/**
 * Feed-scoped ids, as OpenTripPlanner 1 writes them (`FeedScopedId`: `feedId:id`): the plan's
 * agency, route, trip and stop ids carry the feed's Onestop ID before a colon, so ids of two feeds
 * never collide and OTP-UI finds the operator (`routeId.split(":")[0]`). Parameters that take an
 * id accept the scoped form back, and a bare GTFS id (matching that id in every feed).
 */

/** `feedId:id` of a GTFS id. */
export const scopedId = (feedId: string, id: string): string => `${feedId}:${id}`;

export interface ParsedId {
  /** the feed's Onestop ID, or null for a bare id (any feed) */
  feed: string | null;
  /** the GTFS id */
  id: string;
}

/**
 * A scoped or bare id. `feeds` are the known feed Onestop IDs: the prefix must name one of them
 * (GTFS ids may hold colons themselves, so `a:b` of an unknown feed `a` is the bare id `a:b`).
 */
export function parseScopedId(text: string, feeds: readonly string[]): ParsedId {
  const colon = text.indexOf(":");
  if (colon > 0) {
    // the longest known feed id that prefixes the text (feed ids hold no colon, but be exact)
    for (const f of feeds) if (text.length > f.length + 1 && text.startsWith(f) && text[f.length] === ":") return { feed: f, id: text.slice(f.length + 1) };
  }
  return { feed: null, id: text };
}
