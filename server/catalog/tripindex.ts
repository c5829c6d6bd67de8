/**
 * The trip side of a loaded dataset, held in JS: trips, calendars, frequencies, shapes and
 * stop_times in compact columnar structures, built once at load. Requests for trips never touch
 * DuckDB (the lat/lon filter asks the spatial index, spatial.ts, for the stop patterns near a point):
 * - trips: one typed-array column per integer field, strings interned; per route, its trips in id
 *   order, so "trips of a route on a date" is a filter over one small array;
 * - calendars: weekday mask, date range and exception sets as day numbers, plus the calendar
 *   object's JSON rendered by DuckDB at load;
 * - shapes: points in two Float64Arrays with per-shape offsets; LineString text rendered on first
 *   use and kept in a size-bounded cache;
 * - stop_times: CSR layout (per-trip [start, end) row ranges) over columns packed into the
 *   narrowest typed array their value range allows (~11 bytes a row on the MTA data);
 * - GTFS-Flex (FlexIndex): the zones (locations) and location groups of the versions, and the flex
 *   fields of the stop_times that have them (few rows: a map by row, not a column).
 */
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import type { DuckDBDataChunk } from "@duckdb/node-api";
import type { Database } from "./db.ts";
import { dayNumber } from "../../shared/time.ts";
import { activeOn, type ServiceCalendar } from "../../shared/service-calendar.ts";

export const NULL_I32 = -2147483648;

/** The GTFS service rule and day numbers are shared/service-calendar.ts's and shared/time.ts's (re-exported for the trip index's tests). */
export { activeOn, dayNumber };

/**
 * Integers of a known range stored as offsets from the minimum in the narrowest unsigned typed
 * array; the code just above the range stands for null.
 */
export class IntColumn {
  private readonly a: Uint8Array | Uint16Array | Uint32Array | Float64Array;
  private readonly base: number;
  private readonly nullCode: number;
  /** every row starts as null */
  constructor(n: number, min: number | null, max: number | null) {
    if (min === null || max === null || !(min <= max)) min = max = 0;
    this.base = min;
    this.nullCode = max - min + 1;
    const codes = this.nullCode + 1;
    this.a = codes <= 0x100 ? new Uint8Array(n) : codes <= 0x10000 ? new Uint16Array(n) : codes <= 0x100000000 ? new Uint32Array(n) : new Float64Array(n);
    this.a.fill(this.nullCode);
  }
  set(i: number, v: number | null): void {
    this.a[i] = v === null ? this.nullCode : v - this.base;
  }
  get(i: number): number | null {
    const c = this.a[i]!;
    return c === this.nullCode ? null : c + this.base;
  }
  /** a[pos[r]] = src[r] for r < n (NULL_I32 = null), skipping rows whose pos is negative */
  fill(pos: Int32Array, src: Int32Array | Float64Array, n: number): void {
    const a = this.a;
    const base = this.base;
    const nullCode = this.nullCode;
    for (let r = 0; r < n; r++) {
      const p = pos[r]!;
      if (p < 0) continue;
      const v = src[r]!;
      a[p] = v === NULL_I32 ? nullCode : v - base;
    }
  }
  get bytes(): number {
    return this.a.byteLength;
  }
  /** the column's array and coding, for the index cache (index-cache.ts) */
  parts(): { a: Uint8Array | Uint16Array | Uint32Array | Float64Array; base: number; nullCode: number } {
    return { a: this.a, base: this.base, nullCode: this.nullCode };
  }
  /** a column over an existing array (e.g. a view of the memory-mapped index cache) */
  static fromParts(p: { a: Uint8Array | Uint16Array | Uint32Array | Float64Array; base: number; nullCode: number }): IntColumn {
    const c = Object.create(IntColumn.prototype) as { a: unknown; base: number; nullCode: number };
    c.a = p.a;
    c.base = p.base;
    c.nullCode = p.nullCode;
    return c as unknown as IntColumn;
  }
}

/** Several small nullable integers per row packed into one IntColumn by mixed radix. */
export class PackedColumns {
  private readonly col: IntColumn;
  private readonly radix: number[];
  private readonly base: number[];
  private readonly mult: number[];
  private readonly narrow: boolean;
  constructor(n: number, ranges: [number | null, number | null][]) {
    this.base = [];
    this.radix = [];
    this.mult = [];
    let m = 1;
    for (let [min, max] of ranges) {
      if (min === null || max === null || !(min <= max)) min = max = 0;
      this.base.push(min);
      this.radix.push(max - min + 2); // values plus null
      this.mult.push(m);
      m *= max - min + 2;
    }
    if (m > 2 ** 52) throw new Error("value ranges too wide to pack");
    this.narrow = m < 2 ** 31;
    this.col = new IntColumn(n, 0, m - 1);
  }
  /** null → the top code of each field */
  set(i: number, values: (number | null)[]): void {
    let code = 0;
    for (let k = 0; k < values.length; k++) {
      const v = values[k]!;
      code += (v === null ? this.radix[k]! - 1 : v - this.base[k]!) * this.mult[k]!;
    }
    this.col.set(i, code);
  }
  /** like IntColumn.fill, one source column per field */
  fill(pos: Int32Array, src: Int32Array[], n: number): void {
    // Int32Array whenever the codes fit: IntColumn.fill then sees one source type
    const codes = this.narrow ? new Int32Array(n) : new Float64Array(n);
    for (let k = 0; k < src.length; k++) {
      const col = src[k]!;
      const base = this.base[k]!;
      const top = this.radix[k]! - 1;
      const mult = this.mult[k]!;
      for (let r = 0; r < n; r++) {
        const v = col[r]!;
        codes[r]! += (v === NULL_I32 ? top : v - base) * mult;
      }
    }
    this.col.fill(pos, codes, n);
  }
  /** the packed column and the radix coding, for the index cache (index-cache.ts) */
  parts(): { col: IntColumn; radix: number[]; base: number[]; mult: number[]; narrow: boolean } {
    return { col: this.col, radix: this.radix, base: this.base, mult: this.mult, narrow: this.narrow };
  }
  static fromParts(p: { col: IntColumn; radix: number[]; base: number[]; mult: number[]; narrow: boolean }): PackedColumns {
    const c = Object.create(PackedColumns.prototype) as Record<string, unknown>;
    Object.assign(c, p);
    return c as unknown as PackedColumns;
  }
  get(i: number, k: number): number | null {
    const c = Math.floor(this.col.get(i)! / this.mult[k]!) % this.radix[k]!;
    return c === this.radix[k]! - 1 ? null : c + this.base[k]!;
  }
  get bytes(): number {
    return this.col.bytes;
  }
}

/**
 * Nullable strings of many rows without one JS string per row (fewer objects for the GC to trace):
 * low-cardinality columns as codes into a table of distinct values; unique ones (trip_id) packed
 * into one text with offsets. Build with add(), then finish().
 */
export class StringColumn {
  private codes: Int32Array;
  private table: string[] = [];
  private readonly code = new Map<string, number>();
  private text = "";
  private ends: Int32Array | null = null;
  private pieces: (string | null)[] = [];
  constructor(
    n: number,
    private readonly packed: boolean,
  ) {
    this.codes = new Int32Array(packed ? 0 : n);
    if (packed) this.ends = new Int32Array(n);
  }
  /** A dictionary-coded column: `codes[i]` is the position of row i's value in `table`, -1 for null. */
  static coded(table: string[], codes: Int32Array): StringColumn {
    const c = new StringColumn(0, false);
    c.table = table;
    c.codes = codes;
    return c;
  }

  /** A packed column of these values (in row order). */
  static packedFrom(values: (string | null)[]): StringColumn {
    const c = new StringColumn(values.length, true);
    c.pieces = values;
    c.finish();
    return c;
  }

  add(i: number, v: string | null): void {
    if (this.packed) {
      this.pieces[i] = v;
      return;
    }
    if (v === null) {
      this.codes[i] = -1;
      return;
    }
    let c = this.code.get(v);
    if (c === undefined) {
      c = this.table.length;
      this.table.push(v);
      this.code.set(v, c);
    }
    this.codes[i] = c;
  }
  finish(): void {
    this.code.clear();
    if (!this.packed) return;
    let end = 0;
    const ends = this.ends!;
    this.pieces.forEach((v, i) => {
      end += v === null ? 0 : v.length;
      ends[i] = v === null ? -end - 1 : end; // negative: null
    });
    this.text = this.pieces.map((v) => v ?? "").join("");
    this.pieces = [];
  }
  get(i: number): string | null {
    if (!this.packed) {
      const c = this.codes[i]!;
      return c < 0 ? null : this.table[c]!;
    }
    const e = this.ends![i]!;
    if (e < 0) return null;
    const prev = i === 0 ? 0 : this.ends![i - 1]!;
    return this.text.slice(prev < 0 ? -prev - 1 : prev, e);
  }
}

/** A service of the trip index: the GTFS rule's fields (shared/service-calendar.ts activeOn) and its JSON. */
export interface CalendarInfo extends ServiceCalendar {
  id: number;
  fv: number;
  /** the calendar object (JSON), rendered by DuckDB at load */
  json: string;
  added: Set<number>;
  removed: Set<number>;
}

/**
 * A chunk's integer column as an Int32Array. The SQL must make the column non-null (coalesce to a
 * sentinel): the fast path hands out the vector's own data buffer, which has no null marks. The
 * slow path (should @duckdb/node-api stop keeping that buffer on the vector) copies via getItem.
 */
function int32Column(chunk: DuckDBDataChunk, column: number): Int32Array {
  const v = chunk.getColumnVector(column);
  const n = chunk.rowCount;
  const items = (v as unknown as { items?: unknown }).items;
  if (items instanceof Int32Array && items.length >= n) return items;
  const out = new Int32Array(n);
  for (let r = 0; r < n; r++) out[r] = Number(v.getItem(r) ?? NULL_I32);
  return out;
}

/** A chunk's DOUBLE column as a Float64Array (non-null by the SQL, as for int32Column). */
function float64Column(chunk: DuckDBDataChunk, column: number): Float64Array {
  const v = chunk.getColumnVector(column);
  const n = chunk.rowCount;
  const items = (v as unknown as { items?: unknown }).items;
  if (items instanceof Float64Array && items.length >= n) return items;
  const out = new Float64Array(n);
  for (let r = 0; r < n; r++) out[r] = Number(v.getItem(r) ?? NaN);
  return out;
}

/** Read a query chunk by chunk (column vectors, no per-row JS arrays). */
async function forEachChunk(db: Database, sql: string, fn: (chunk: DuckDBDataChunk) => void): Promise<void> {
  for await (const chunk of db.chunks({ sql, values: [] })) fn(chunk);
}

const num = (v: unknown): number | null => (v == null ? null : Number(v));
export const fromI32 = (v: number): number | null => (v === NULL_I32 ? null : v);

/** Shape points and their LineString text (rendered lazily, cached up to a byte budget). */
export class ShapeIndex {
  readonly byKey = new Map<string, number>();
  generated: Uint8Array = new Uint8Array(0);
  offsets: Int32Array = new Int32Array(1);
  lat: Float64Array = new Float64Array(0);
  lon: Float64Array = new Float64Array(0);
  private readonly cache = new Map<number, string>();
  private cached = 0;
  constructor(private readonly budgetChars = 32_000_000) {}

  static key(fv: number, shapeId: string): string {
    return `${fv}\u0000${shapeId}`;
  }

  /** GeoJSON LineString of shape `s` */
  geometry(s: number): string {
    let g = this.cache.get(s);
    if (g !== undefined) {
      this.cache.delete(s);
      this.cache.set(s, g);
      return g;
    }
    const parts: string[] = [];
    for (let i = this.offsets[s]!, end = this.offsets[s + 1]!; i < end; i++) {
      const lon = this.lon[i]!;
      const lat = this.lat[i]!;
      if (lon === lon && lat === lat) parts.push(`[${lon},${lat}]`); // points without coordinates (NaN) are left out
    }
    g = `{"type":"LineString","coordinates":[${parts.join(",")}]}`;
    if (g.length <= this.budgetChars / 8) {
      this.cache.set(s, g);
      this.cached += g.length;
      while (this.cached > this.budgetChars) {
        const [k, old] = this.cache.entries().next().value as [number, string];
        this.cache.delete(k);
        this.cached -= old.length;
      }
    }
    return g;
  }

  get bytes(): number {
    return this.lat.byteLength * 2 + this.offsets.byteLength + this.generated.byteLength;
  }
}

/** stop_times of every trip: rows of trip index t are [offsets[t], offsets[t + 1]). */
export class StopTimesIndex {
  constructor(
    readonly offsets: Int32Array,
    readonly seq: IntColumn,
    readonly stop: IntColumn,
    readonly arrival: IntColumn,
    /** departure_time − coalesce(arrival_time, 0) */
    readonly dwell: IntColumn,
    readonly headsign: IntColumn,
    readonly headsigns: string[],
    /** pickup_type, drop_off_type, timepoint, interpolated */
    readonly flags: PackedColumns,
  ) {}
  departure(i: number): number | null {
    const d = this.dwell.get(i);
    return d === null ? null : d + (this.arrival.get(i) ?? 0);
  }
  get bytes(): number {
    return this.offsets.byteLength + this.seq.bytes + this.stop.bytes + this.arrival.bytes + this.dwell.bytes + this.headsign.bytes + this.flags.bytes;
  }
}

/** The GTFS-Flex fields of a stop_time (pipeline/schema/catalog.ts stop_times). */
export interface FlexStopTime {
  locationId: string | null;
  groupId: string | null;
  /** start_pickup_drop_off_window, end_pickup_drop_off_window: seconds since service-day start */
  start: number | null;
  end: number | null;
  pickupRule: string | null;
  dropOffRule: string | null;
}

/** GTFS-Flex: zones and location groups per version, and the flex fields of stop_times rows. */
export class FlexIndex {
  /** in-memory stop_times row (StopTimesIndex position) → its flex fields */
  readonly rows = new Map<number, FlexStopTime>();
  /** key(fv, location_id) → the zone as a JSON object: {"type":"location","id","name","geometry"} */
  readonly zones = new Map<string, string>();
  /** key(fv, location_group_id) → the group's name and stops (stops.id, in file order) */
  readonly groups = new Map<string, { name: string | null; stops: number[] }>();
  static key(fv: number, id: string): string {
    return `${fv}\u0000${id}`;
  }
}

/** The flex columns of stop_times (older versions' files lack them). */
export const FLEX_ST_COLUMNS = ["location_id", "location_group_id", "start_pickup_drop_off_window", "end_pickup_drop_off_window", "pickup_booking_rule_id", "drop_off_booking_rule_id"] as const;

/** A flex stop_time's fields from its FLEX_ST_COLUMNS values, or null when it has none. */
export function flexStopTime(v: unknown[]): FlexStopTime | null {
  if (v.every((x) => x == null)) return null;
  const s = (x: unknown) => (x == null ? null : String(x));
  const n = (x: unknown) => (x == null ? null : Number(x));
  return { locationId: s(v[0]), groupId: s(v[1]), start: n(v[2]), end: n(v[3]), pickupRule: s(v[4]), dropOffRule: s(v[5]) };
}

/** Whether every column of `cols` is in the relation `src`. */
export async function hasColumns(db: Database, src: string, cols: readonly string[]): Promise<boolean> {
  const names = new Set((await db.rows({ sql: `SELECT column_name FROM (DESCRIBE SELECT * FROM ${src})`, values: [] })).map((r) => String(r[0])));
  return cols.every((c) => names.has(c));
}

export class TripIndex {
  n = 0;
  ids = new Int32Array(0);
  fv = new Int32Array(0);
  route = new Int32Array(0);
  calendar = new Int32Array(0);
  pattern = new Int32Array(0);
  direction = new Int32Array(0);
  wheelchair = new Int32Array(0);
  bikes = new Int32Array(0);
  cars = new Int32Array(0);
  /** shape index, or -1 when the trip has no shape_id or the shape is missing */
  shape = new Int32Array(0);
  tripId = new StringColumn(0, true);
  headsign = new StringColumn(0, false);
  shortName = new StringColumn(0, false);
  blockId = new StringColumn(0, false);
  shapeId = new StringColumn(0, false);
  /** route id → trip indexes in id order */
  readonly byRoute = new Map<number, Int32Array>();
  /** trip index → frequencies JSON array */
  readonly frequencies = new Map<number, string>();
  readonly calendars = new Map<number, CalendarInfo>();
  readonly calendarsByVersion = new Map<number, CalendarInfo[]>();
  readonly routeJson = new Map<number, string>();
  readonly versionJson = new Map<number, string>();
  readonly shapes = new ShapeIndex();
  /** null when stop_times are read from Parquet per request (very large datasets) */
  stopTimes: StopTimesIndex | null = null;
  readonly flex = new FlexIndex();

  /** index of trip `id`, or -1 */
  indexOf(id: number): number {
    const a = this.ids;
    let lo = 0;
    let hi = a.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const v = a[mid]!;
      if (v === id) return mid;
      if (v < id) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  /** first position in `list` (trip indexes in id order) whose trip id is > `after` */
  firstAfter(list: Int32Array, after: number): number {
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.ids[list[mid]!]! <= after) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

const parquetList = (files: string[], quote: (s: string) => string) => `read_parquet([${files.map(quote).join(", ")}], union_by_name = true)`;

/**
 * Build the trip index. Expects the DuckDB tables calendars, calendar_json, trip_freq, route_json and
 * fv_json (see sql.ts); reads trips, shapes and (when `stopTimesFiles` is given) stop_times straight
 * from Parquet. Shapes come before trips (a trip keeps its shape's index), trips before everything
 * indexed by trip.
 */
export async function loadTripIndex(
  db: Database,
  files: { trips: string[]; shapes: string[]; stopTimes: string[] | null },
  quote: (s: string) => string,
  /** the stop_times from the index cache (index-cache.ts) for these trips, or null to read them from Parquet */
  cachedStopTimes: (ix: TripIndex) => StopTimesIndex | null = () => null,
  /** the shapes from the index cache into the index's ShapeIndex: false to read them from Parquet */
  cachedShapes: (shapes: ShapeIndex) => boolean = () => false,
): Promise<TripIndex> {
  const ix = new TripIndex();
  for (const [id, json] of await db.rows({ sql: `SELECT id, json::VARCHAR FROM route_json`, values: [] })) ix.routeJson.set(Number(id), String(json));
  for (const [id, json] of await db.rows({ sql: `SELECT feed_version_id, json::VARCHAR FROM fv_json`, values: [] })) ix.versionJson.set(Number(id), String(json));
  await loadCalendars(db, ix);
  if (files.shapes.length && !cachedShapes(ix.shapes)) await loadShapes(db, ix, parquetList(files.shapes, quote));
  if (files.trips.length) await loadTrips(db, ix, parquetList(files.trips, quote));
  indexTripsByRoute(ix);
  for (const [tripRef, json] of await db.rows({ sql: `SELECT trip_ref, json::VARCHAR FROM trip_freq`, values: [] })) {
    const t = ix.indexOf(Number(tripRef));
    if (t >= 0) ix.frequencies.set(t, String(json));
  }
  await loadFlexZones(db, ix, files.trips, quote);
  if (files.stopTimes) ix.stopTimes = cachedStopTimes(ix) ?? (await loadStopTimes(db, ix, files.stopTimes.length ? parquetList(files.stopTimes, quote) : null));
  if (ix.stopTimes && files.stopTimes?.length) await loadFlexStopTimes(db, ix, ix.stopTimes, parquetList(files.stopTimes, quote));
  return ix;
}

/** The calendars (weekday mask, date range, exception days, rendered JSON), by id and by version. */
async function loadCalendars(db: Database, ix: TripIndex): Promise<void> {
  const calRows = await db.rows({
    sql: `SELECT c.id, c.feed_version_id, cj.json::VARCHAR, c.start_date::VARCHAR, c.end_date::VARCHAR,
            c.monday, c.tuesday, c.wednesday, c.thursday, c.friday, c.saturday, c.sunday,
            array_to_string(coalesce(c.added_dates, []::DATE[]), ','), array_to_string(coalesce(c.removed_dates, []::DATE[]), ',')
          FROM calendars c JOIN calendar_json cj ON cj.id = c.id`,
    values: [],
  });
  const days = (s: unknown) => new Set(String(s ?? "").split(",").filter((x) => x !== "").map(dayNumber));
  for (const r of calRows) {
    let weekdays = 0;
    for (let k = 0; k < 7; k++) if (Number(r[5 + k]) === 1) weekdays |= 1 << k;
    const c: CalendarInfo = {
      id: Number(r[0]),
      fv: Number(r[1]),
      json: String(r[2]),
      start: r[3] == null ? null : dayNumber(String(r[3])),
      end: r[4] == null ? null : dayNumber(String(r[4])),
      weekdays,
      added: days(r[12]),
      removed: days(r[13]),
    };
    ix.calendars.set(c.id, c);
    const list = ix.calendarsByVersion.get(c.fv);
    if (list) list.push(c);
    else ix.calendarsByVersion.set(c.fv, [c]);
  }
}

/** The shapes of `src`: one row per shape (point counts), then the points, both in (version, shape_id) order. */
async function loadShapes(db: Database, ix: TripIndex, src: string): Promise<void> {
  const keys = await db.rows({
    sql: `SELECT feed_version_id, shape_id, count(*), bool_or(coalesce(generated, false)) FROM ${src} GROUP BY ALL ORDER BY feed_version_id, shape_id`,
    values: [],
  });
  const sh = ix.shapes;
  sh.offsets = new Int32Array(keys.length + 1);
  sh.generated = new Uint8Array(keys.length);
  keys.forEach(([fv, id, count, generated], s) => {
    sh.offsets[s + 1] = sh.offsets[s]! + Number(count);
    sh.generated[s] = generated ? 1 : 0;
    sh.byKey.set(ShapeIndex.key(Number(fv), String(id)), s);
  });
  const total = sh.offsets[keys.length]!;
  sh.lat = new Float64Array(total);
  sh.lon = new Float64Array(total);
  let i = 0;
  await forEachChunk(
    db,
    `SELECT coalesce(shape_pt_lat, 'NaN'::DOUBLE), coalesce(shape_pt_lon, 'NaN'::DOUBLE) FROM ${src} ORDER BY feed_version_id, shape_id, shape_pt_sequence`,
    (ch) => {
      const n = Math.min(ch.rowCount, total - i);
      sh.lat.set(float64Column(ch, 0).subarray(0, n), i);
      sh.lon.set(float64Column(ch, 1).subarray(0, n), i);
      i += n;
    },
  );
}

/** The dictionary-coded string columns of trips (an empty string reads as null), and the TripIndex column each fills. */
const TRIP_DICT_COLUMNS = [
  ["trip_headsign", "headsign"],
  ["trip_short_name", "shortName"],
  ["block_id", "blockId"],
  ["shape_id", "shapeId"],
] as const;

/** Trip ids joined per query row (by id // this; the texts come from DuckDB in a few long strings, not one value per trip). */
const TRIP_ID_GROUP = 65_536;

/**
 * The trips of `source` in id order: integer columns, and the string columns as DuckDB hands them
 * over cheaply: headsign, short name, block and shape ids as codes into their distinct values
 * (each value crosses into JavaScript once), the trip ids as a few long joined texts. Each trip's
 * shape index from its version and shape id.
 */
async function loadTrips(db: Database, ix: TripIndex, source: string): Promise<void> {
  const [[count]] = (await db.rows({ sql: `SELECT count(*) FROM ${source}`, values: [] })) as [[bigint]];
  const n = Number(count);
  ix.n = n;
  for (const k of ["ids", "fv", "route", "calendar", "pattern", "direction", "wheelchair", "bikes", "cars", "shape"] as const) ix[k] = new Int32Array(n);
  // each dictionary, made once: its distinct values in order; a value's code is its position
  for (const [column] of TRIP_DICT_COLUMNS) {
    await db.exec(`CREATE OR REPLACE TABLE trip_dict_${column} AS SELECT v, (row_number() OVER (ORDER BY v) - 1)::INTEGER AS c
      FROM (SELECT DISTINCT nullif(${column}, '') AS v FROM ${source}) WHERE v IS NOT NULL`);
  }
  try {
    const tables: string[][] = [];
    for (const [column] of TRIP_DICT_COLUMNS) tables.push((await db.rows({ sql: `SELECT v FROM trip_dict_${column} ORDER BY c`, values: [] })).map((r) => String(r[0])));
    const codes = TRIP_DICT_COLUMNS.map(() => new Int32Array(n));
    let i = 0;
    await forEachChunk(
      db,
      `SELECT ${["id", "feed_version_id", "route_ref", "calendar_ref", "direction_id", "wheelchair_accessible", "bikes_allowed", "cars_allowed", "stop_pattern_id"].map((c) => `coalesce(t.${c}, ${NULL_I32})`).join(", ")},
              ${TRIP_DICT_COLUMNS.map(([column]) => `coalesce(trip_dict_${column}.c, -1)`).join(", ")}
       FROM ${source} t ${TRIP_DICT_COLUMNS.map(([column]) => `LEFT JOIN trip_dict_${column} ON trip_dict_${column}.v = nullif(t.${column}, '')`).join(" ")}
       ORDER BY t.id`,
      (ch) => {
        const m = Math.min(ch.rowCount, n - i);
        const dest = [ix.ids, ix.fv, ix.route, ix.calendar, ix.direction, ix.wheelchair, ix.bikes, ix.cars, ix.pattern, ...codes];
        for (let k = 0; k < dest.length; k++) dest[k]!.set(int32Column(ch, k).subarray(0, m), i);
        i += m;
      },
    );
    TRIP_DICT_COLUMNS.forEach(([, target], k) => (ix[target] = StringColumn.coded(tables[k]!, codes[k]!)));
    shapeIndexes(ix, tables[3]!, codes[3]!);
  } finally {
    for (const [column] of TRIP_DICT_COLUMNS) await db.exec(`DROP TABLE IF EXISTS trip_dict_${column}`);
  }
  ix.tripId = StringColumn.packedFrom(await tripIds(db, source, n));
}

/** Each trip's shape index from its version and shape id code, looked up once per distinct pair. */
function shapeIndexes(ix: TripIndex, shapeIds: string[], shapeCodes: Int32Array): void {
  const nShapeIds = shapeIds.length;
  const shapeOf = new Map<number, number>();
  for (let t = 0; t < ix.n; t++) {
    const c = shapeCodes[t]!;
    if (c < 0) {
      ix.shape[t] = -1;
      continue;
    }
    const key = ix.fv[t]! * nShapeIds + c;
    let s = shapeOf.get(key);
    if (s === undefined) {
      s = ix.shapes.byKey.get(ShapeIndex.key(ix.fv[t]!, shapeIds[c]!)) ?? -1;
      shapeOf.set(key, s);
    }
    ix.shape[t] = s;
  }
}

/** The trip ids of `source` in id order: DuckDB joins them with NUL per group of rows, split here; read one by one if a trip id holds a NUL. */
async function tripIds(db: Database, source: string, n: number): Promise<string[]> {
  const out: string[] = [];
  const groups = await db.rows({
    // groups of ids (id // TRIP_ID_GROUP): in id order, group after group, as the trips are
    sql: `SELECT count(*), string_agg(coalesce(trip_id, 'null'), chr(0) ORDER BY id) FROM ${source} GROUP BY id // ${TRIP_ID_GROUP} ORDER BY id // ${TRIP_ID_GROUP}`,
    values: [],
  });
  for (const [count, text] of groups) {
    const parts = String(text).split("\0");
    if (parts.length !== Number(count)) return (await db.rows({ sql: `SELECT coalesce(trip_id, 'null') FROM ${source} ORDER BY id`, values: [] })).map((r) => String(r[0]));
    for (const p of parts) out.push(p);
  }
  if (out.length !== n) throw new Error(`trip index: ${out.length} trip ids for ${n} trips`);
  return out;
}

/** Per route, its trip indexes in id order (counting sort). */
function indexTripsByRoute(ix: TripIndex): void {
  const perRoute = new Map<number, number>();
  for (let i = 0; i < ix.n; i++) perRoute.set(ix.route[i]!, (perRoute.get(ix.route[i]!) ?? 0) + 1);
  const fill = new Map<number, number>();
  for (const [r, c] of perRoute) {
    ix.byRoute.set(r, new Int32Array(c));
    fill.set(r, 0);
  }
  for (let i = 0; i < ix.n; i++) {
    const r = ix.route[i]!;
    const k = fill.get(r)!;
    ix.byRoute.get(r)![k] = i;
    fill.set(r, k + 1);
  }
}

/**
 * The GTFS-Flex zones and location groups of the versions: their Parquet tables beside each
 * version's trips.parquet (versions imported before GTFS-Flex have none).
 */
async function loadFlexZones(db: Database, ix: TripIndex, tripFiles: string[], quote: (s: string) => string): Promise<void> {
  const beside = (table: string) => tripFiles.map((f) => join(dirname(f), `${table}.parquet`)).filter((f) => existsSync(f));
  const [locs, groups, members] = [beside("locations"), beside("location_groups"), beside("location_group_stops")];
  if (locs.length) {
    const sql = `SELECT feed_version_id, location_id, stop_name, geometry FROM ${parquetList(locs, quote)}`;
    for (const [fv, id, name, geometry] of await db.rows({ sql, values: [] })) {
      const json = `{"type":"location","id":${JSON.stringify(String(id))},"name":${name == null ? "null" : JSON.stringify(String(name))},"geometry":${geometry ?? "null"}}`;
      ix.flex.zones.set(FlexIndex.key(Number(fv), String(id)), json);
    }
  }
  if (groups.length) {
    for (const [fv, id, name] of await db.rows({ sql: `SELECT feed_version_id, location_group_id, location_group_name FROM ${parquetList(groups, quote)}`, values: [] })) {
      ix.flex.groups.set(FlexIndex.key(Number(fv), String(id)), { name: name == null ? null : String(name), stops: [] });
    }
  }
  if (members.length) {
    for (const [fv, id, ref] of await db.rows({ sql: `SELECT feed_version_id, location_group_id, stop_ref FROM ${parquetList(members, quote)} WHERE stop_ref IS NOT NULL`, values: [] })) {
      ix.flex.groups.get(FlexIndex.key(Number(fv), String(id)))?.stops.push(Number(ref));
    }
  }
}

/** The flex fields of the in-memory stop_times rows that have them, by row (after the rows are in place). */
async function loadFlexStopTimes(db: Database, ix: TripIndex, st: StopTimesIndex, source: string): Promise<void> {
  if (!(await hasColumns(db, source, FLEX_ST_COLUMNS))) return;
  const sql = `SELECT trip_ref, stop_sequence, ${FLEX_ST_COLUMNS.join(", ")} FROM ${source}
    WHERE ${FLEX_ST_COLUMNS.map((c) => `${c} IS NOT NULL`).join(" OR ")}`;
  for (const [tripRef, seq, ...v] of await db.rows({ sql, values: [] })) {
    const t = ix.indexOf(Number(tripRef));
    const f = flexStopTime(v);
    if (t < 0 || !f) continue;
    for (let i = st.offsets[t]!, end = st.offsets[t + 1]!; i < end; i++) {
      if (st.seq.get(i) === Number(seq)) {
        ix.flex.rows.set(i, f);
        break;
      }
    }
  }
}

/**
 * stop_times into the CSR layout: per-trip counts first (so each trip's rows have their slot), then
 * one pass over the Parquet files in file order (sorted by trip_ref, stop_sequence); trips whose rows
 * arrive out of stop_sequence order are sorted afterwards.
 */
async function loadStopTimes(db: Database, ix: TripIndex, source: string | null): Promise<StopTimesIndex> {
  const offsets = new Int32Array(ix.n + 1);
  const stat: (number | null)[] = new Array(17).fill(null);
  if (source) await stopTimesStats(db, ix, source, offsets, stat);
  for (let t = 0; t < ix.n; t++) offsets[t + 1]! += offsets[t]!;
  const st = emptyStopTimes(offsets, stat, offsets[ix.n]!);
  if (!source) return st;
  const unsorted = await fillStopTimes(db, ix, st, source, (stat[16] ?? 0) > 0);
  for (const trip of unsorted) sortTrip(st, offsets[trip]!, offsets[trip + 1]!);
  return st;
}

/**
 * The rows per trip (into offsets[t + 1]) and the ranges the columns are packed in (`stat`: min
 * and max of stop_sequence, stop_ref, arrival, dwell, the four flags, then the headsign count).
 */
async function stopTimesStats(db: Database, ix: TripIndex, source: string, offsets: Int32Array, stat: (number | null)[]): Promise<void> {
  for (const [tripRef, c] of await db.rows({ sql: `SELECT trip_ref, count(*) FROM ${source} GROUP BY trip_ref`, values: [] })) {
    const t = ix.indexOf(Number(tripRef));
    if (t >= 0) offsets[t + 1] = Number(c);
  }
  const [row] = await db.rows({
    sql: `SELECT min(stop_sequence), max(stop_sequence), min(stop_ref), max(stop_ref), min(arrival_time), max(arrival_time),
            min(departure_time - coalesce(arrival_time, 0)), max(departure_time - coalesce(arrival_time, 0)),
            min(pickup_type), max(pickup_type), min(drop_off_type), max(drop_off_type), min(timepoint), max(timepoint),
            min(interpolated), max(interpolated), count(DISTINCT nullif(stop_headsign, ''))
          FROM ${source}`,
    values: [],
  });
  row!.forEach((v, k) => (stat[k] = num(v)));
}

/** A stop_times index of n rows, all null, its columns sized by `stat` (stopTimesStats). */
function emptyStopTimes(offsets: Int32Array, stat: (number | null)[], n: number): StopTimesIndex {
  return new StopTimesIndex(
    offsets,
    new IntColumn(n, stat[0]!, stat[1]!),
    new IntColumn(n, stat[2]!, stat[3]!),
    new IntColumn(n, stat[4]!, stat[5]!),
    new IntColumn(n, stat[6]!, stat[7]!),
    new IntColumn(n, 0, Math.max(0, (stat[16] ?? 0) - 1)),
    [],
    new PackedColumns(n, [
      [stat[8]!, stat[9]!],
      [stat[10]!, stat[11]!],
      [stat[12]!, stat[13]!],
      [stat[14]!, stat[15]!],
    ]),
  );
}

/**
 * One pass over `source` in file order: each row into the next slot of its trip's range (rows of
 * unknown trips skipped). Returns the trips whose rows came out of stop_sequence order.
 */
async function fillStopTimes(db: Database, ix: TripIndex, st: StopTimesIndex, source: string, withHeadsigns: boolean): Promise<Set<number>> {
  const offsets = st.offsets;
  const headsignCode = new Map<string, number>();
  const cursor = offsets.slice(0, ix.n);
  const unsorted = new Set<number>();
  const NULL = String(NULL_I32);
  let lastRef = NaN;
  let t = -1;
  let prevSeq = NULL_I32;
  const pos = new Int32Array(2048);
  await forEachChunk(
    db,
    `SELECT coalesce(trip_ref, ${NULL}), coalesce(stop_sequence, ${NULL}), coalesce(stop_ref, ${NULL}), coalesce(arrival_time, ${NULL}),
            coalesce(departure_time - coalesce(arrival_time, 0), ${NULL}),
            coalesce(pickup_type, ${NULL}), coalesce(drop_off_type, ${NULL}), coalesce(timepoint, ${NULL}), coalesce(interpolated, ${NULL})
            ${withHeadsigns ? ", nullif(stop_headsign, '')" : ""}
     FROM ${source}`,
    (ch) => {
      const n = ch.rowCount;
      const [ref, seq, stop, arr, dwell, ...flags] = [0, 1, 2, 3, 4, 5, 6, 7, 8].map((c) => int32Column(ch, c)) as Int32Array[];
      const p = n <= pos.length ? pos : new Int32Array(n);
      // row → its slot in its trip's range (-1: trip unknown)
      for (let r = 0; r < n; r++) {
        const tr = ref![r]!;
        const sq = seq![r]!;
        if (tr !== lastRef) {
          lastRef = tr;
          t = tr === NULL_I32 ? -1 : ix.indexOf(tr);
          // a trip seen before, in another run of rows: sort it afterwards
          if (t >= 0 && cursor[t]! > offsets[t]!) unsorted.add(t);
        } else if (t >= 0 && sq < prevSeq) unsorted.add(t);
        prevSeq = sq;
        p[r] = t < 0 ? -1 : cursor[t]!++;
      }
      st.seq.fill(p, seq!, n);
      st.stop.fill(p, stop!, n);
      st.arrival.fill(p, arr!, n);
      st.dwell.fill(p, dwell!, n);
      st.flags.fill(p, flags, n);
      if (withHeadsigns) fillHeadsigns(st, headsignCode, ch, p, n);
    },
  );
  return unsorted;
}

/** The chunk's stop headsigns (column 9) into their rows' slots `p`, each distinct headsign coded once. */
function fillHeadsigns(st: StopTimesIndex, headsignCode: Map<string, number>, ch: DuckDBDataChunk, p: Int32Array, n: number): void {
  const headsign = ch.getColumnVector(9);
  for (let r = 0; r < n; r++) {
    if (p[r]! < 0) continue;
    const h = headsign.getItem(r) as string | null;
    if (h === null) continue;
    let code = headsignCode.get(h);
    if (code === undefined) {
      code = st.headsigns.length;
      st.headsigns.push(h);
      headsignCode.set(h, code);
    }
    st.headsign.set(p[r]!, code);
  }
}

/** Reorder the rows [start, end) by stop_sequence. */
function sortTrip(st: StopTimesIndex, start: number, end: number): void {
  const rows = [];
  for (let i = start; i < end; i++) {
    rows.push({
      seq: st.seq.get(i),
      stop: st.stop.get(i),
      arrival: st.arrival.get(i),
      dwell: st.dwell.get(i),
      headsign: st.headsign.get(i),
      flags: [0, 1, 2, 3].map((k) => st.flags.get(i, k)),
    });
  }
  rows.sort((a, b) => (a.seq ?? NULL_I32) - (b.seq ?? NULL_I32));
  rows.forEach((r, k) => {
    const i = start + k;
    st.seq.set(i, r.seq);
    st.stop.set(i, r.stop);
    st.arrival.set(i, r.arrival);
    st.dwell.set(i, r.dwell);
    st.headsign.set(i, r.headsign);
    st.flags.set(i, r.flags);
  });
}
