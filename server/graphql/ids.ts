/**
 * OTP's identifiers in the GTFS GraphQL API: a GTFS id is `FEED:ID` (the feed's Onestop ID, the
 * entity's id in its feed; the id may itself contain ":"), and a global id (`Node.id`, the `node`
 * root field) is base64 of `TYPE:FEED:ID`, as OTP writes them (e.g. "Stop:BART:12TH").
 */

export interface GtfsId {
  feed: string;
  id: string;
}

/** "FEED:ID" split at its first ":", or null without one. */
export function parseGtfsId(s: string): GtfsId | null {
  const i = s.indexOf(":");
  if (i <= 0 || i === s.length - 1) return null;
  return { feed: s.slice(0, i), id: s.slice(i + 1) };
}

export const gtfsId = (feed: string, id: string) => `${feed}:${id}`;

export const globalId = (type: string, gtfs: string) => Buffer.from(`${type}:${gtfs}`, "utf8").toString("base64");

/** A global id's type and GTFS id, or null when it is not one. */
export function parseGlobalId(id: string): { type: string; gtfs: GtfsId } | null {
  if (!/^[A-Za-z0-9+/=_-]+$/.test(id)) return null;
  const text = Buffer.from(id, "base64").toString("utf8");
  const i = text.indexOf(":");
  if (i <= 0) return null;
  const gtfs = parseGtfsId(text.slice(i + 1));
  return gtfs ? { type: text.slice(0, i), gtfs } : null;
}
