/**
 * The table modules of the build (../build.ts), in the order they run: each module's dependencies
 * come before it (startBuild checks). A new GTFS file or derived table is one module here.
 *
 *   module           reads               makes                                   needs
 *   agency           agency.txt          agencies
 *   stops            stops.txt           stops
 *   (GTFS-Flex, flex.ts) locations (locations.geojson, read by the module itself; stops), location_groups,
 *   location_group_stops (stops, location_groups), booking_rules
 *   routes           routes.txt          routes                                  agency
 *   calendar         calendar.txt        c0
 *   calendar_dates   calendar_dates.txt  cd0
 *   calendars        -                   calendars                               calendar, calendar_dates
 *   trips            trips.txt           t1 (candidate trips)                    routes, calendars
 *   stop_times       stop_times.txt      st0, or (the fast reader's rows, which  trips, stops
 *                                        no check changes) the stop_times relation
 *   shapes           shapes.txt (lane)   sh0, shape_ids; t1's unknown shapes     trips
 *   trip_check       -                   trip_check; the stop_times relation     stop_times, shapes, locations, location_groups
 *                                        (the stop-times contract, ../stop-times/columns.ts)
 *   patterns         -                   stop_patterns, shapes, trips            trip_check, shapes, stops, routes, calendars
 *   frequencies      frequencies.txt     frequencies                             patterns
 *   transfers        transfers.txt       transfers                               stops
 *   feed_info        feed_info.txt       feed_info                               calendars, patterns
 *   links            -                   route_stops, agency_stops               patterns, routes
 *   fare_attributes  fare_attributes.txt fare_attributes                         agency
 *   fare_rules       fare_rules.txt      fare_rules                              fare_attributes, routes
 *   places           -                   stops.adm0_*, adm1_* (Natural Earth)    stops
 *   (GTFS Fares v2, fares-v2.ts: one module per file, the table named like the file)
 *   fare_media, rider_categories, fare_products (fare_media, rider_categories), areas, stop_areas (areas, stops),
 *   networks, route_networks (networks, routes), timeframes (calendars), fare_leg_rules (fare_products, areas,
 *   networks, routes, timeframes), fare_transfer_rules (fare_products)
 * places runs last so that the boundary data set stops.ts starts reading is ready by then.
 */
import type { TableModule } from "../build.ts";
import type { GtfsFileSpec } from "../load.ts";
import { agency } from "./agency.ts";
import { calendarDates } from "./calendar-dates.ts";
import { fareAttributes } from "./fare-attributes.ts";
import { fareRules } from "./fare-rules.ts";
import { areas, fareLegRules, fareMedia, fareProducts, fareTransferRules, networks, riderCategories, routeNetworks, stopAreas, timeframes } from "./fares-v2.ts";
import { calendar } from "./calendar.ts";
import { calendars } from "./calendars.ts";
import { feedInfo } from "./feed-info.ts";
import { bookingRules, locationGroups, locationGroupStops, locations } from "./flex.ts";
import { frequencies } from "./frequencies.ts";
import { links } from "./links.ts";
import { patterns } from "./patterns.ts";
import { places } from "./places.ts";
import { routes } from "./routes.ts";
import { shapes } from "./shapes.ts";
import { stopTimes } from "./stop-times.ts";
import { stops } from "./stops.ts";
import { tripCheck } from "./trip-check.ts";
import { transfers } from "./transfers.ts";
import { trips } from "./trips.ts";

export const TABLE_MODULES: readonly TableModule[] = [
  agency, stops, locations, locationGroups, locationGroupStops, bookingRules, routes, calendar, calendarDates, calendars, trips, stopTimes, shapes, tripCheck, patterns, frequencies, transfers, feedInfo, links,
  fareAttributes, fareRules, fareMedia, riderCategories, fareProducts, areas, stopAreas, networks, routeNetworks, timeframes, fareLegRules, fareTransferRules,
  places,
];

/**
 * The order the GTFS files are read in (load.ts): it decides which file's error a feed with
 * several broken files is rejected with, and the order of reading warnings in the report.
 */
const READ_ORDER = ["agency.txt", "stops.txt", "routes.txt", "trips.txt", "stop_times.txt", "calendar.txt", "calendar_dates.txt", "shapes.txt", "frequencies.txt", "transfers.txt", "feed_info.txt",
  "fare_attributes.txt", "fare_rules.txt", "fare_media.txt", "rider_categories.txt", "fare_products.txt", "areas.txt", "stop_areas.txt", "networks.txt",
  "route_networks.txt", "timeframes.txt", "fare_leg_rules.txt", "fare_transfer_rules.txt", "location_groups.txt", "location_group_stops.txt", "booking_rules.txt"];

/** The GTFS files the import reads, with the columns it keeps: the modules' (https://gtfs.org/documentation/schedule/reference/). */
export const GTFS_FILES: readonly GtfsFileSpec[] = READ_ORDER.map((name) => {
  const m = TABLE_MODULES.find((t) => t.file?.name === name);
  if (!m?.file) throw new Error(`no table module reads ${name}`);
  return { file: name, required: m.file.required, required_columns: m.columns.required, optional_columns: m.columns.optional };
});

/** A GTFS file's spec (GTFS_FILES). */
export const gtfsFile = (name: string): GtfsFileSpec => GTFS_FILES.find((f) => f.file === name)!;
