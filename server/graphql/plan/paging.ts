/**
 * planConnection's pages. Itineraries are ordered along the search: by departure for an
 * earliestDeparture search, by arrival backwards (latest first) for a latestArrival one; ties by
 * arrival (departure), then by their rides. A position in that order is a time `t` and `k`, the
 * number of itineraries at exactly `t` before it; a cursor is a position with the direction and
 * the search window (opaque base64 of JSON), so that:
 *
 * - `after` a cursor (or from the requested time) a page searches the window [t, t + window) of
 *   the order (one planner search, window-only: PlanQuery.windowOnly; or only its first part
 *   [t, t + searched) when that part already holds more than k + `first` rides:
 *   PlanQuery.windowFill), drops the first k at t and keeps at most `first`; its endCursor is the
 *   end of the part searched when the page holds all of it, else the position after its last
 *   itinerary;
 * - `before` a cursor a page searches [t - window, t) and keeps the last `last` of those and of
 *   the first k at t; its startCursor is the window's start when the page holds it all;
 * - every edge's cursor is the position after it.
 *
 * So pages following endCursors (startCursors) meet without repeating or skipping an itinerary.
 * Itineraries without a ride (walking all the way) come only on the first page, before the rides,
 * and take no place in the order. hasNextPage and hasPreviousPage are true: there is always a
 * later and an earlier window to search (as OTP2 always gives both cursors).
 */
import type { Itinerary } from "../../planner/public.ts";
import { badInput } from "./wire.ts";

export type Direction = "dep" | "arr";

export interface Position {
  d: Direction;
  /** Unix seconds */
  t: number;
  k: number;
  /** search window, seconds */
  w: number;
}

/** At most this many itineraries a page (first/last above it are cut to it). */
export const MAX_PAGE = 50;

export function encodeCursor(p: Position): string {
  return Buffer.from(JSON.stringify({ v: 1, d: p.d, t: p.t, k: p.k, w: p.w }), "utf8").toString("base64");
}

export function decodeCursor(c: string, field: string): Position {
  let o: any = null;
  try {
    o = JSON.parse(Buffer.from(c, "base64").toString("utf8"));
  } catch {
    o = null;
  }
  const ok = o && o.v === 1 && (o.d === "dep" || o.d === "arr") && Number.isInteger(o.t) && Number.isInteger(o.k) && o.k >= 0 && o.k < 10_000 && Number.isInteger(o.w) && o.w >= 0;
  if (!ok) throw badInput(`${field}: "${c.slice(0, 100)}" is not a cursor of planConnection`, field);
  return { d: o.d, t: o.t, k: o.k, w: o.w };
}

const endOf = (it: Itinerary) => {
  const l = it.legs[it.legs.length - 1]!;
  return l.kind === "street" ? l.startSec + l.durationSec : l.endSec;
};
const startOf = (it: Itinerary) => it.legs[0]!.startSec;
const signature = (it: Itinerary) => it.legs.map((l) => (l.kind === "transit" ? `${l.trip}@${l.boardPos}-${l.alightPos}` : `${l.mode}`)).join("|");

/** An itinerary's place in the order: its time along the search (`key`, increasing) and ties. */
function orderKey(it: Itinerary, d: Direction): [number, number, string] {
  return d === "dep" ? [startOf(it), endOf(it), signature(it)] : [-endOf(it), -startOf(it), signature(it)];
}
const compare = (a: [number, number, string], b: [number, number, string]) => a[0] - b[0] || a[1] - b[1] || (a[2] < b[2] ? -1 : a[2] > b[2] ? 1 : 0);

/** `t` of a position in key space (dep: time, arr: minus time) and back. */
const toKey = (d: Direction, t: number) => (d === "dep" ? t : -t);

/**
 * The search one page needs: the planner's requested time, arriveBy and window (the key range
 * [from, from + w] of the order, searched whole).
 */
export function searchOf(p: Position, backward: boolean): { timeSec: number; arriveBy: boolean; windowSec: number } {
  const from = toKey(p.d, p.t) - (backward ? p.w : 0);
  return { timeSec: p.d === "dep" ? from : -from, arriveBy: p.d === "arr", windowSec: p.w };
}

export interface Page {
  items: { it: Itinerary; cursor: string }[];
  startCursor: string | null;
  endCursor: string | null;
  /** the itineraries of the range searched after (before) the position, the page's and those it had no room for */
  matched: number;
}

/**
 * One page of the itineraries (with rides) a search found: `after` the position p (or from it),
 * or `before` it; at most n. `searchedSec`: how much of the window after p was searched.
 */
export function pageOf(found: Itinerary[], p: Position, backward: boolean, n: number, searchedSec = p.w): Page {
  const K = toKey(p.d, p.t);
  const lo = backward ? K - p.w : K, hi = backward ? K : K + Math.min(searchedSec, p.w);
  const keyed = found.map((it) => ({ it, key: orderKey(it, p.d) })).sort((a, b) => compare(a.key, b.key));
  // the itinerary's position after it: its key and how many share that key up to and including it
  const withPos = keyed.map((x, i) => {
    let j = 1;
    while (i - j >= 0 && keyed[i - j]!.key[0] === x.key[0]) j++;
    return { ...x, k: j };
  });
  const at = (key: number, k: number): Position => ({ d: p.d, t: p.d === "dep" ? key : -key, k, w: p.w });
  let range: typeof withPos;
  if (!backward) range = withPos.filter((x) => x.key[0] >= lo && x.key[0] < hi && !(x.key[0] === K && x.k <= p.k));
  else range = withPos.filter((x) => (x.key[0] >= lo && x.key[0] < hi) || (x.key[0] === K && x.k <= p.k));
  const cut = range.length > n;
  const kept = !backward ? range.slice(0, n) : range.slice(Math.max(0, range.length - n));
  const items = kept.map((x) => ({ it: x.it, cursor: encodeCursor(at(x.key[0], x.k)) }));
  const first = kept[0], last = kept[kept.length - 1];
  let startCursor: Position, endCursor: Position;
  if (!backward) {
    startCursor = first ? at(first.key[0], first.k - 1) : p;
    endCursor = !cut ? at(hi, 0) : last ? at(last.key[0], last.k) : p;
  } else {
    startCursor = !cut ? at(lo, 0) : first ? at(first.key[0], first.k - 1) : p;
    endCursor = last ? at(last.key[0], last.k) : p;
  }
  return { items, startCursor: encodeCursor(startCursor), endCursor: encodeCursor(endCursor), matched: range.length };
}
