/**
 * Realtime alerts in catalog documents. The catalog owns this interface; server/realtime
 * implements it (main.ts hands it over), so the catalog imports nothing of the realtime side.
 * Documents are rendered at load with `"alerts":[]` for routes, agencies and stops (stop documents
 * and the stop objects inside stop_times end with it); with `include_alerts=true` these places get
 * the entity's alerts by the reference rules (README "Alerts"), keyed by the feed's Onestop ID and
 * the GTFS ids.
 */
import type { Item } from "./listing.ts";
import type { CatalogData } from "./data.ts";

/** The alerts of one request (one clock reading, one active filter): JSON array texts. */
export interface AlertLookup {
  trip(feed: string, tripId: string): string;
  route(feed: string, routeId: string): string;
  agency(feed: string, agencyId: string): string;
  stop(feed: string, stopId: string): string;
}

export interface AlertSource {
  /** alerts as served at `nowMs`; `activeOnly`: only those with an active period containing it */
  lookup(nowMs: number, activeOnly: boolean): AlertLookup;
}

const EMPTY = "[]";
export const NO_ALERTS: AlertSource = { lookup: () => ({ trip: () => EMPTY, route: () => EMPTY, agency: () => EMPTY, stop: () => EMPTY }) };

const MARK = `"alerts":[]`;

/** A route object (route_json: the route's `"alerts":[]` first, its agency's last) with both filled. */
export function routeWithAlerts(routeJson: string, a: AlertLookup, feed: string, routeId: string, agencyId: string | null): string {
  const first = routeJson.indexOf(MARK);
  const last = routeJson.lastIndexOf(MARK);
  if (first < 0 || last === first) return routeJson;
  const route = a.route(feed, routeId);
  const agency = agencyId === null ? EMPTY : a.agency(feed, agencyId);
  if (route === EMPTY && agency === EMPTY) return routeJson;
  return `${routeJson.slice(0, first)}"alerts":${route}${routeJson.slice(first + MARK.length, last)}"alerts":${agency}${routeJson.slice(last + MARK.length)}`;
}

/** A text ending in `"alerts":[]` (plus `tail`) with the stop's alerts instead. */
function endingWithAlerts(text: string, tail: string, alerts: string): string {
  if (alerts === EMPTY || !text.endsWith(MARK + tail)) return text;
  return `${text.slice(0, text.length - MARK.length - tail.length)}"alerts":${alerts}${tail}`;
}

/** The stop object inside a StopTime (StopDoc.ref) with the stop's alerts. */
export const stopRefWithAlerts = (ref: string, a: AlertLookup, feed: string, stopId: string) => endingWithAlerts(ref, "}", a.stop(feed, stopId));

/**
 * A stop list item with the stop's alerts. Stop documents open with their integer id
 * (store.ts: `{"id":<id>,`), which names the document.
 */
export function stopItemWithAlerts(it: Item, data: CatalogData, a: AlertLookup): Item {
  const m = /^\{"id":(\d+),/.exec(it.props);
  const doc = m ? data.stops.get(Number(m[1])) : undefined;
  const v = doc ? data.versions.get(doc.fv) : undefined;
  if (!doc || !v) return it;
  const props = endingWithAlerts(it.props, "", a.stop(v.feedOnestopId, doc.stopId));
  return props === it.props ? it : { ...it, props };
}
