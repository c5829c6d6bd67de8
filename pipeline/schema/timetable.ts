/**
 * The planner timetable file, `<data>/timetables/<hash>.arrow` (named by manifest.timetable): its
 * tables and columns, and the packed stop-time word. The pipeline writes it
 * (pipeline/timetable/assemble.ts builds the tables, arrow-io.ts encodes them); the server reads it
 * (server/planner/timetable/arrow-loader.ts). Both name tables and columns through the types below,
 * so a column one side writes and the other does not read, or reads as another type, does not compile.
 *
 * The file is one Arrow IPC stream per table, concatenated, each schema tagged with the metadata
 * `table=<name>`; tables and columns in the order given here. Index spaces: stop, route (a RAPTOR
 * route: trips with one stop sequence that never overtake each other), trip, service, timezone,
 * feed, agency, GTFS route, shape, transfer rule, rule trip (a GTFS trip some transfer rule
 * names). A "start" column is a CSR offset: item i owns [start[i], start[i + 1]), the last one
 * ending at the length of the table it points into.
 *
 * Part of the dataset contract (pipeline/schema/): imports nothing, so the planner core may use
 * the codec.
 */

/** Bump when the layout changes, so that files of an older layout are not reused (their name hashes it). */
/**
 * The walking speed footpaths are measured with on the streets (Valhalla's pedestrian default,
 * 5.1 km/h): footpaths.walk_m = the engine's time at this speed × this speed.
 */
export const FOOTPATH_REF_WALK_KMH = 5.1;
export const FOOTPATH_REF_WALK_MPS = FOOTPATH_REF_WALK_KMH / 3.6;

export const TIMETABLE_FORMAT = 6; // 3: stop times packed in one Int32 column (stop_time_words); 4: OTP1 leg fields (agencies.url, stops.zone_id / platform_code, trips.short_name), stops.station, route_stops.shape_idx -1 off the shape, fare_* tables, footpaths.source and meta.streets_sha1 (footpaths on the streets); 5: transfers.txt rows naming routes or trips (transfer_rules, trips.rule_trip); 6: footpaths.walk_m (a street footpath takes the engine's walking time, scaled to the requested speed)

/** Folder of the timetable files, relative to the data dir. */
export const TIMETABLES_DIR = "timetables";

/** Arrow type of a column, and the array the writer gives and the reader gets. */
export type ColumnKind = "utf8" | "int32" | "uint8" | "float64";
export type ColumnArray<K> = K extends "utf8" ? string[] : K extends "int32" ? Int32Array : K extends "uint8" ? Uint8Array : Float64Array;

/**
 * The fare tables (written by pipeline/timetable/fares.ts, read by server/planner/fares.ts): GTFS
 * Fares v1 (fare_attributes + fare_rules, as OpenTripPlanner 1 applies them) and v2, already in the
 * planner's index spaces and sorted for lookups, so the server derives nothing from them at load.
 * Further index spaces: fare attribute, zone (a stops.zone_id of one feed), product, leg rule,
 * transfer rule, network, area (each of one feed). A file without them (older layouts) has no fares.
 */
export const FARE_TIMETABLE_TABLES = {
  fare_feeds: {
    /** feed → its fare data: 0 none, 1 GTFS Fares v1, 2 GTFS Fares v2 (fare_leg_rules; preferred when a feed has both) */
    system: "uint8",
    /** feed → first of its fare attributes (CSR over fare_attributes, which are sorted by feed, then file order) */
    attr_start: "int32",
    /** feed → first of its attributes without route rules in fare_free_attributes (CSR) */
    free_start: "int32",
    /** feed → first of its rules in fare_leg_rules and fare_transfer_rules (CSR, file order) */
    leg_rule_start: "int32",
    transfer_rule_start: "int32",
    /** feed → 1 when its fare_leg_rules use rule_priority (empty fields then match anything) */
    has_priority: "uint8",
  },
  fare_attributes: {
    /** fare attribute → GTFS fare_id, price (as a 32-bit float, like OTP1), currency_type */
    fare_id: "utf8",
    price: "float64",
    currency: "utf8",
    /** fare attribute → transfers allowed (-1 unlimited), transfer_duration seconds (-1 none) */
    transfers: "int32",
    transfer_duration: "int32",
    /** fare attribute → first of its routes, (origin, destination) pairs and contains zones (CSR into the next three tables) */
    route_start: "int32",
    od_start: "int32",
    contains_start: "int32",
  },
  fare_attribute_routes: {
    /** → GTFS route of a fare_rules.route_id (sorted per attribute) */
    route: "int32",
  },
  fare_attribute_ods: {
    /** → a rule's origin and destination zones, -1 for an empty one (sorted per attribute by origin, then destination) */
    origin: "int32",
    destination: "int32",
  },
  fare_attribute_contains: {
    /** → a rule's contains_id zone (sorted per attribute) */
    zone: "int32",
  },
  fare_free_attributes: {
    /** → a fare attribute of the feed without route rules (any route may match it; ascending) */
    attr: "int32",
  },
  fare_zones: {
    /** zone → zone_id */
    zone_id: "utf8",
  },
  fare_stops: {
    /** stop → its zone_id's zone, -1 none */
    zone: "int32",
    /** stop → first of its areas in fare_stop_areas (CSR; a stop is in its own and its station's areas) */
    area_start: "int32",
  },
  fare_stop_areas: {
    /** → an area of the stop (ascending per stop) */
    area: "int32",
  },
  fare_routes: {
    /** GTFS route → first of the fare attributes with a route rule naming it in fare_route_attributes (CSR) */
    attr_start: "int32",
    /** GTFS route → its network (route_networks.txt, else routes.network_id), -1 none */
    network: "int32",
  },
  fare_route_attributes: {
    /** → a fare attribute whose route rules name the route (ascending) */
    attr: "int32",
  },
  fare_products: {
    /** product → fare_product_id, fare_product_name */
    product_id: "utf8",
    name: "utf8",
    /** product → price for the default rider category (its cheapest fare media), NaN when it has none; currency */
    amount: "float64",
    currency: "utf8",
  },
  fare_leg_rules: {
    /** leg rule → leg_group_id ("" when empty), network, from and to area (-1 empty), product, rule_priority (-1 empty) */
    leg_group: "utf8",
    network: "int32",
    from_area: "int32",
    to_area: "int32",
    product: "int32",
    priority: "int32",
    /** leg rule → 1 when it names a timeframe (such rules are not applied) */
    timeframe: "uint8",
  },
  fare_transfer_rules: {
    /** transfer rule → from_leg_group_id, to_leg_group_id ("" when empty) */
    from_leg_group: "utf8",
    to_leg_group: "utf8",
    /** transfer rule → transfer_count (-1 unlimited, 0 not given), duration_limit seconds (-1 none) and its type (0-3) */
    transfer_count: "int32",
    duration_limit: "int32",
    duration_limit_type: "int32",
    /** transfer rule → fare_transfer_type (0 A + AB, 1 A + AB + B, 2 AB), product of the transfer (-1 free) */
    transfer_type: "int32",
    product: "int32",
  },
  fare_networks: {
    /** network → network_id; 1 when some leg rule names it (an empty network_id then does not match its routes) */
    network_id: "utf8",
    named: "uint8",
  },
  fare_areas: {
    /** area → area_id; 1 when some leg rule names it as from_area_id / to_area_id */
    area_id: "utf8",
    from_named: "uint8",
    to_named: "uint8",
  },
} as const satisfies Record<string, Record<string, ColumnKind>>;

export const TIMETABLE_TABLES = {
  meta: {
    /** [0] → 1, the version of this table */
    format: "int32",
    /** [0] → the radius (m) within which stops were joined by straight-line footpaths */
    walk_radius_m: "float64",
    /** [0] → SHA-1 of the street dataset the footpaths were measured on ("" none: straight lines) */
    streets_sha1: "utf8",
  },
  feeds: {
    /** feed → its Onestop id */
    onestop_id: "utf8",
    /** feed → SHA-1 of the active version compiled */
    sha1: "utf8",
    /** feed → first and last day with service in its calendars (days since 1970-01-01; not feed_info's dates) */
    start_day: "int32",
    end_day: "int32",
  },
  timezones: {
    /** timezone → IANA name */
    name: "utf8",
  },
  agencies: {
    /** agency → GTFS agency_id, agency_name */
    agency_id: "utf8",
    name: "utf8",
    /** agency → timezone */
    tz: "int32",
    /** agency → feed */
    feed: "int32",
    /** agency → agency_url ("" when none); format 4 */
    url: "utf8",
  },
  gtfs_routes: {
    /** GTFS route → route_id, route_short_name, route_long_name */
    route_id: "utf8",
    short_name: "utf8",
    long_name: "utf8",
    /** GTFS route → route_type */
    type: "int32",
    /** GTFS route → route_color, route_text_color (hex, upper case) */
    color: "utf8",
    text_color: "utf8",
    /** GTFS route → its Onestop id */
    onestop_id: "utf8",
    /** GTFS route → agency */
    agency: "int32",
  },
  stops: {
    /** stop → GTFS stop_id, stop_name, stop_code, its Onestop id (only stops some trip serves) */
    stop_id: "utf8",
    name: "utf8",
    code: "utf8",
    onestop_id: "utf8",
    /** stop → feed */
    feed: "int32",
    /** stop → WGS84 position */
    lat: "float64",
    lon: "float64",
    /** stop → wheelchair_boarding (0 unknown, 1 yes, 2 no) */
    wheelchair: "uint8",
    /** stop → minimum seconds between alighting and boarding again there (transfers.txt from = to) */
    slack_sec: "int32",
    /** stop → zone_id, platform_code ("" when none); format 4 */
    zone_id: "utf8",
    platform_code: "utf8",
    /** stop → internal id of its parent_station (stops sharing one are one station), -1 when none; format 4 */
    station: "int32",
  },
  footpaths: {
    /** footpath → from stop, to stop (sorted by from, then to) */
    from: "int32",
    to: "int32",
    /** footpath → metres: on the streets where `source` is 1, else straight line */
    dist_m: "float64",
    /**
     * footpath → the walk in "reference metres": the engine's walking time on the streets × the
     * reference speed FOOTPATH_REF_WALK_MPS where `source` says the streets measured it, else
     * `dist_m`. A walk at speed v takes walk_m / v seconds (the engine's time scaled to v); format 6
     */
    walk_m: "float64",
    /** footpath → minimum seconds (transfers.txt min_transfer_time), 0 when none */
    min_sec: "int32",
    /**
     * footpath → how `dist_m` was measured: 0 straight line (no street dataset, or a stop off the
     * streets), 1 on the street dataset's pedestrian network, 2 named by transfers.txt (on the
     * streets when both stops are on them)
     */
    source: "uint8",
  },
  routes: {
    /** route → first index of its stops in route_stops (CSR) */
    stop_start: "int32",
    /** route → first of its trips (CSR over trips; a route's trips are ordered by departure) */
    trip_start: "int32",
    /** route → first stop time of its first trip: trip k (0-based in the route), position j is stop time time0 + k * stops + j */
    time0: "int32",
    /** route → timezone of its agency */
    tz: "int32",
    /** route → smallest departure and largest arrival of its trips (service-day seconds) */
    min_dep: "int32",
    max_arr: "int32",
    /** route → GTFS route, route_type, shape (-1 none) */
    gtfs_route: "int32",
    type: "int32",
    shape: "int32",
  },
  route_stops: {
    /** route position → stop */
    stop: "int32",
    /** route position → GTFS stop_sequence */
    stop_sequence: "int32",
    /**
     * route position → index of the nearest point of the route's shape (in the shape's points); -1
     * when the route has no shape, or (format 4) when the stop is farther than SHAPE_STOP_TOLERANCE_M
     * from the shape: the shape does not cover it, and a leg's geometry goes straight to the stop there
     */
    shape_idx: "int32",
  },
  stop_time_words: {
    /** 2 × stop time → arrival word, 2 × stop time + 1 → departure word (see the codec below) */
    word: "int32",
  },
  trips: {
    /** trip → GTFS trip_id, trip_headsign, block_id */
    trip_id: "utf8",
    headsign: "utf8",
    block_id: "utf8",
    /** trip → service */
    service: "int32",
    /** trip → wheelchair_accessible (0 unknown, 1 yes, 2 no) */
    wheelchair: "uint8",
    /** trip → GTFS route */
    gtfs_route: "int32",
    /** trip → trip_short_name ("" when none); format 4 */
    short_name: "utf8",
    /**
     * trip → its GTFS trip as transfer_rules name it (a rule trip: 0 .. n-1 over the GTFS trips some
     * rule names), -1 when no rule names it; the trips a frequency expands share theirs. Format 5
     */
    rule_trip: "int32",
  },
  services: {
    /** service → its first day (days since 1970-01-01), day 0 of its bytes in service_days */
    day0: "int32",
    /** service → first of its bytes in service_days (CSR) */
    start: "int32",
  },
  service_days: {
    /** service_days.start[s] + day - day0[s] → 1 when service s runs that day, else 0 */
    active: "uint8",
  },
  shapes: {
    /** shape → first of its points in shape_points (CSR) */
    start: "int32",
  },
  shape_points: {
    /** shape point → WGS84 position */
    lat: "float64",
    lon: "float64",
  },
  /**
   * transfers.txt rows that name routes or trips (format 5; stop-to-stop rows are footpaths and
   * stops.slack_sec), one rule per (from stop, to stop) pair a row names (a station: each of its
   * stops), sorted by to stop, from stop, then most specific first. The planner applies, to a
   * transfer from a ride on the from trip to a boarding of the to trip, the most specific rule that
   * matches (GTFS: both trips, then a trip and a route, one trip, both routes, one route; then the
   * stop-to-stop rules); see server/planner/README.md.
   */
  transfer_rules: {
    /** rule → the stop the transfer leaves from (alighting the arriving trip), the stop it ends at (boarding the departing trip) */
    from_stop: "int32",
    to_stop: "int32",
    /** rule → GTFS route of the arriving / departing trip, -1 any (a rule naming a trip: that trip's route) */
    from_route: "int32",
    to_route: "int32",
    /** rule → rule trip (trips.rule_trip) of the arriving / departing trip, -1 any */
    from_trip: "int32",
    to_trip: "int32",
    /**
     * rule → GTFS transfer_type: 0 recommended, 1 timed, 2 minimum time, 3 not possible, 4 in-seat
     * (from the arriving trip's last stop to the departing trip's first, staying on), 5 in-seat not allowed
     */
    type: "uint8",
    /** rule → min_transfer_time seconds (type 2), else 0 */
    min_sec: "int32",
    /**
     * rule → its GTFS specificity: 6 both trips, 5 a trip and the other side's route, 4 one trip,
     * 3 both routes, 2 one route; times 4, plus 1 for each of its stops named itself (not through
     * its station). Higher wins
     */
    specificity: "uint8",
    /** rule → metres between its two stops, straight line (0 for one stop); a footpath between them measured on the streets has its own */
    dist_m: "float64",
  },
  ...FARE_TIMETABLE_TABLES,
} as const satisfies Record<string, Record<string, ColumnKind>>;

/**
 * A route stop farther than this (metres, from the nearest point of the shape or its segments next to
 * that point) is not covered by its trip's shape (route_stops.shape_idx = -1): e.g. a shape that ends a
 * few stations before the trips do. The importer warns about shapes whose first or last stop is
 * beyond it (`shape_does_not_reach_stops`).
 */
export const SHAPE_STOP_TOLERANCE_M = 150;

/**
 * Tables of older layouts the reader still takes. Format 2 held the stop times as three columns
 * instead of stop_time_words (the reader packs them).
 */
export const LEGACY_TIMETABLE_TABLES = {
  stop_times: {
    /** stop time → arrival, departure (service-day seconds) */
    arr: "int32",
    dep: "int32",
    /** stop time → NO_PICKUP | NO_DROP_OFF */
    flags: "uint8",
  },
} as const satisfies Record<string, Record<string, ColumnKind>>;

type Layout = typeof TIMETABLE_TABLES & typeof LEGACY_TIMETABLE_TABLES;
export type TimetableTableName = keyof typeof TIMETABLE_TABLES;
export type AnyTimetableTableName = keyof Layout;
/** The columns of `T` that are of kind `K`. */
export type ColumnOf<T extends AnyTimetableTableName, K extends ColumnKind = ColumnKind> = { [C in keyof Layout[T]]: Layout[T][C] extends K ? C : never }[keyof Layout[T]] & string;

/** What the writer gives: every table and column of the layout, each as its array. */
export type TimetableTables = { [T in TimetableTableName]: { -readonly [C in keyof (typeof TIMETABLE_TABLES)[T]]: ColumnArray<(typeof TIMETABLE_TABLES)[T][C]> } };
/** The fare tables as the writer gives them and the planner reads them (TimetableMeta.fares). */
export type FareTimetableTables = Pick<TimetableTables, keyof typeof FARE_TIMETABLE_TABLES>;

// ---- the packed stop-time word
// A stop time is two Int32 words, side by side: [2i] arrival, [2i + 1] departure, each
// seconds since the service day's start * 4 + flags (the same flags in both words), so a scan reads
// one array and a trip's times and flags share cache lines. Times may be negative (the planner's
// mirrored timetable negates them).

/** A stop time's flags: no pickup there, no drop-off there. */
export const NO_PICKUP = 1;
export const NO_DROP_OFF = 2;

/** Seconds a packed word can hold: seconds * 4 + flags must fit an Int32. */
export const MAX_STOP_TIME_SEC = 2 ** 29 - 1;

/** The flags of a stop time from its GTFS pickup_type and drop_off_type (1: none). */
export const stopTimeFlags = (pickupType: number, dropOffType: number): number => (pickupType === 1 ? NO_PICKUP : 0) | (dropOffType === 1 ? NO_DROP_OFF : 0);

/** Writes stop time `i` into `words`; a time the word cannot hold is refused (RangeError), never wrapped. */
export function packStopTime(words: Int32Array, i: number, arrSec: number, depSec: number, flags: number): void {
  if (arrSec > MAX_STOP_TIME_SEC || arrSec < -MAX_STOP_TIME_SEC || depSec > MAX_STOP_TIME_SEC || depSec < -MAX_STOP_TIME_SEC) beyondPacked(i, arrSec, depSec);
  words[2 * i] = arrSec * 4 + flags;
  words[2 * i + 1] = depSec * 4 + flags;
}

/** The words of stop times given as arrival and departure seconds and flags per stop time. */
export function packStopTimes(arr: ArrayLike<number>, dep: ArrayLike<number>, flags: ArrayLike<number>): Int32Array {
  const out = new Int32Array(2 * arr.length);
  for (let i = 0; i < arr.length; i++) packStopTime(out, i, arr[i]!, dep[i]!, flags[i]! & 3);
  return out;
}

/** Arrival, departure (service-day seconds) and flags of stop time i. */
export const arrAt = (words: Int32Array, i: number): number => words[2 * i]! >> 2;
export const depAt = (words: Int32Array, i: number): number => words[2 * i + 1]! >> 2;
export const flagsAt = (words: Int32Array, i: number): number => words[2 * i]! & 3;

/** (out of packStopTime: its loop stays small) */
function beyondPacked(i: number, a: number, d: number): never {
  throw new RangeError(`stop time ${i}: ${Math.abs(a) > MAX_STOP_TIME_SEC ? a : d} s is beyond ±${MAX_STOP_TIME_SEC} s`);
}

/** transfers.txt transfer_type values (transfer_rules.type). */
export const TRANSFER_TYPE = { recommended: 0, timed: 1, minTime: 2, notPossible: 3, inSeat: 4, inSeatNotAllowed: 5 } as const;

/** The footpaths table's `source` values: how a footpath's metres were measured. */
export const FOOT_SOURCE = { straightLine: 0, streets: 1, transfersTxt: 2 } as const;
