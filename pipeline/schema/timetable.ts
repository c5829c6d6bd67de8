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
 * feed, agency, GTFS route, shape. A "start" column is a CSR offset: item i owns
 * [start[i], start[i + 1]), the last one ending at the length of the table it points into.
 *
 * Part of the dataset contract (pipeline/schema/): imports nothing, so the planner core may use
 * the codec.
 */

/** Bump when the layout changes, so that files of an older layout are not reused (their name hashes it). */
export const TIMETABLE_FORMAT = 3; // 3: stop times packed in one Int32 column (stop_time_words)

/** Folder of the timetable files, relative to the data dir. */
export const TIMETABLES_DIR = "timetables";

/** Arrow type of a column, and the array the writer gives and the reader gets. */
export type ColumnKind = "utf8" | "int32" | "uint8" | "float64";
export type ColumnArray<K> = K extends "utf8" ? string[] : K extends "int32" ? Int32Array : K extends "uint8" ? Uint8Array : Float64Array;

export const TIMETABLE_TABLES = {
  meta: {
    /** [0] → 1, the version of this table */
    format: "int32",
    /** [0] → the radius (m) within which stops were joined by straight-line footpaths */
    walk_radius_m: "float64",
  },
  feeds: {
    /** feed → its Onestop id */
    onestop_id: "utf8",
    /** feed → SHA-1 of the active version compiled */
    sha1: "utf8",
    /** feed → first and last day of its service window (days since 1970-01-01) */
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
  },
  footpaths: {
    /** footpath → from stop, to stop (sorted by from, then to) */
    from: "int32",
    to: "int32",
    /** footpath → straight-line metres */
    dist_m: "float64",
    /** footpath → minimum seconds (transfers.txt min_transfer_time), 0 when none */
    min_sec: "int32",
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
    /** route position → index of the nearest point of the route's shape (in the shape's points), -1 none */
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
} as const satisfies Record<string, Record<string, ColumnKind>>;

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
