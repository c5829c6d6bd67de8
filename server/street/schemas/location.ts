/**
 * Routing location (Valhalla location object). The spec leaves its fields "not shown"; these follow
 * the engine's documented location object (reference-facts C). Only lat/lon are required; fields the
 * engine defines but we do not list pass through untouched.
 */
import { z } from "zod";
import { bool, int, lat, lon, num, oneOf, str } from "./common.ts";

const ROAD_CLASSES = ["motorway", "trunk", "primary", "secondary", "tertiary", "unclassified", "residential", "service_other"] as const;

export const SearchFilter = z.looseObject({
  exclude_tunnel: bool().optional(),
  exclude_bridge: bool().optional(),
  exclude_toll: bool().optional(),
  exclude_ferry: bool().optional(),
  exclude_ramp: bool().default(false),
  /** default true in the engine; conflicts with costing option ignore_closures (code 143) */
  exclude_closures: bool().optional(),
  min_road_class: oneOf(ROAD_CLASSES).default("service_other"),
  max_road_class: oneOf(ROAD_CLASSES).default("motorway"),
  level: num().optional(),
});

export const Location = z.looseObject(
  {
    lat: lat(),
    lon: lon(),
    type: oneOf(["break", "through", "via", "break_through"]).default("break"),
    heading: num(0, 360, "degrees").optional(),
    heading_tolerance: num(0, 360, "degrees").default(60),
    minimum_reachability: num(0).default(50),
    radius: num(0, undefined, "m").default(0),
    rank_candidates: bool().optional(),
    preferred_side: oneOf(["same", "opposite", "either"]).optional(),
    display_lat: lat().optional(),
    display_lon: lon().optional(),
    search_cutoff: num(0, undefined, "m").default(35000),
    node_snap_tolerance: num(0, undefined, "m").default(5),
    street_side_tolerance: num(0, undefined, "m").default(5),
    street_side_max_distance: num(0, undefined, "m").default(1000),
    street_side_cutoff: str().optional(),
    search_filter: SearchFilter.optional(),
    preferred_layer: int(-1000, 1000).optional(),
    name: str().optional(),
    city: str().optional(),
    state: str().optional(),
    postal_code: str().optional(),
    country: str().optional(),
    phone: str().optional(),
    url: str().optional(),
    waiting: num(0, undefined, "s").optional(),
  },
  { error: "must be a location object with lat and lon" },
);
export type Location = z.infer<typeof Location>;

/** An array of routing locations with the spec's item bounds (max undefined = engine's limit). */
export function locations(min: number, max?: number) {
  const range = max === undefined ? `at least ${min}` : `${min} to ${max}`;
  let s = z.array(Location, { error: `must be an array of ${range} locations` }).min(min, { error: `must hold ${range} locations` });
  if (max !== undefined) s = s.max(max, { error: `must hold ${range} locations` });
  return s;
}
