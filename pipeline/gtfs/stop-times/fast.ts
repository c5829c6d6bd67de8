/**
 * The fast reader of stop_times.txt: one pass over the file's bytes in JavaScript (in a worker
 * thread, see worker.ts), for files in the plain form nearly every feed uses. It
 * accepts a file only when every row is one DuckDB's reader and the direct path of ../tables/stop-times.ts would
 * take as it is (nothing to trim, every value in its canonical form) and returns the typed columns;
 * anything else (a quote anywhere, a blank line, a malformed or padded value, a field count that
 * is not the header's, bytes that are not UTF-8, a GTFS-Flex value) makes it return the reason
 * instead, and the importer reads the file with DuckDB as before. So it never decides anything
 * DuckDB's reading would decide otherwise: it only skips work when there is nothing to decide.
 *
 * Accepted values: ids as their exact bytes (a dictionary code per distinct id, in first-seen
 * order; whether an id exists is for the caller), times `[0-9]{1,3}:[0-5][0-9]:[0-5][0-9]` (the
 * pattern gtfs_time checks), stop_sequence and the other integer columns as 1 to 9 digits,
 * shape_dist_traveled as digits with an optional fraction (15 digits at most, so the quotient
 * below is the correctly rounded value DuckDB's parser gives), stop_headsign as bytes with no
 * leading or trailing space or tab (a dictionary code per distinct value); empty values are NULL
 * (stop_sequence must not be empty, location_id and location_group_id must be).
 */
import { isUtf8 } from "node:buffer";
import { writeFileSync } from "node:fs";
import { Task } from "../../tasks.ts";
import { extractMember, type ZipMember } from "../../zip.ts";

/** NULL in the Int32 columns */
export const NULL_INT = -2147483648;

/** The columns st0 keeps that this reader parses; the others a file may have are skipped. */
export const FAST_INT_COLUMNS = ["pickup_type", "drop_off_type", "continuous_pickup", "continuous_drop_off", "timepoint"] as const;

export interface FastStopTimes {
  rows: number;
  /** the header's names (trimmed), in file order */
  header: string[];
  /** per row: dictionary codes into tripIds / stopIds */
  trip: Int32Array;
  stop: Int32Array;
  tripIds: string[];
  stopIds: string[];
  seq: Int32Array;
  /** seconds, NULL_INT when empty */
  arr: Int32Array;
  dep: Int32Array;
  /** FAST_INT_COLUMNS the file has, NULL_INT when empty */
  ints: Record<string, Int32Array>;
  /** when the file has shape_dist_traveled: NaN when empty */
  shapeDist?: Float64Array;
  /** when the file has stop_headsign: codes into headsigns, -1 when empty */
  headsign?: Int32Array;
  headsigns?: string[];
}

/** Why the fast reader declined a file (the importer reads it with DuckDB instead). */
export interface Declined {
  declined: string;
}

/** Byte strings to dense codes (open addressing on an FNV-1a hash), keeping each key's bytes. */
class ByteDict {
  keys = new Uint8Array(1 << 16);
  used = 0;
  off = new Int32Array(1024);
  len = new Int32Array(1024);
  slots = new Int32Array(2048).fill(-1);
  count = 0;

  code(b: Uint8Array, s: number, e: number, h: number): number {
    let mask = this.slots.length - 1;
    let slot = h & mask;
    for (;;) {
      const id = this.slots[slot]!;
      if (id < 0) break;
      if (this.len[id] === e - s && sameBytes(this.keys, this.off[id]!, b, s, e - s)) return id;
      slot = (slot + 1) & mask;
    }
    const id = this.count++;
    if (this.used + (e - s) > this.keys.length) this.keys = grow(this.keys, Math.max(this.keys.length * 2, this.used + (e - s)));
    if (id >= this.off.length) {
      this.off = grow(this.off, this.off.length * 2);
      this.len = grow(this.len, this.len.length * 2);
    }
    this.keys.set(b.subarray(s, e), this.used);
    this.off[id] = this.used;
    this.len[id] = e - s;
    this.used += e - s;
    this.slots[slot] = id;
    if (this.count * 2 > this.slots.length) {
      // rehash into twice the slots (the load factor stays under one half)
      this.slots = new Int32Array(this.slots.length * 2).fill(-1);
      mask = this.slots.length - 1;
      for (let k = 0; k < this.count; k++) {
        let hk = 0x811c9dc5 | 0;
        for (let i = this.off[k]!, end = i + this.len[k]!; i < end; i++) hk = Math.imul(hk ^ this.keys[i]!, 0x01000193);
        let sl = hk & mask;
        while (this.slots[sl]! >= 0) sl = (sl + 1) & mask;
        this.slots[sl] = k;
      }
    }
    return id;
  }

  strings(): string[] {
    const dec = new TextDecoder("utf-8", { fatal: true });
    const out: string[] = new Array(this.count);
    for (let k = 0; k < this.count; k++) out[k] = dec.decode(this.keys.subarray(this.off[k]!, this.off[k]! + this.len[k]!));
    return out;
  }
}

function sameBytes(a: Uint8Array, ao: number, b: Uint8Array, bo: number, n: number): boolean {
  for (let k = 0; k < n; k++) if (a[ao + k] !== b[bo + k]) return false;
  return true;
}

function grow<T extends Int32Array | Uint8Array | Float64Array>(a: T, size: number): T {
  const g = new (a.constructor as new (n: number) => T)(size);
  g.set(a);
  return g;
}

// ---- the row parser, generated per header: one straight-line piece of code per column
// (JavaScriptCore optimises that far better than a loop over columns with a switch). The pieces
// are fixed text chosen by column kind; nothing from the file ends up in the code.

/** end of a field: comma, newline, carriage return, or the end of the data */
const AT_END = `(c === 44 || c === 10 || c === 13 || i >= end)`;
const FAIL = (why: string) => `{ st.why = ${JSON.stringify(why)}; return false; }`;

const PIECES: Record<string, (name: string) => string> = {
  // (rows of one trip usually follow each other: the previous row's trip_id is tried first, in one
  // pass that compares and finds the field's end)
  trip: () => `{ const s = i, l = st.tripEnd - st.tripStart;
      let c = b[s + l];
      if (l > 0 && s + l <= end && (s + l === end || c === 44 || c === 10 || c === 13) && sameBytes(b, s, b, st.tripStart, l)) i = s + l;
      else {
        c = b[i];
        while (!${AT_END}) c = b[++i];
        let h = -2128831035;
        for (let k = s; k < i; k++) h = Math.imul(h ^ b[k], 16777619);
        st.tripCode = trips.code(b, s, i, h); st.tripStart = s; st.tripEnd = i;
      }
      trip[n] = st.tripCode; }`,
  stop: () => `{ const s = i; let c = b[i], h = -2128831035;
      while (!${AT_END}) { h = Math.imul(h ^ c, 16777619); c = b[++i]; }
      stop[n] = stops.code(b, s, i, h); }`,
  time: (v) => `{ let c = b[i], x = 0, d = 0;
      while (c >= 48 && c <= 57) { x = x * 10 + c - 48; d++; c = b[++i]; }
      if (d === 0) ${v}[n] = ${NULL_INT};
      else if (d <= 3 && c === 58) {
        const m1 = b[i + 1] - 48, m2 = b[i + 2] - 48, s1 = b[i + 4] - 48, s2 = b[i + 5] - 48;
        if (!(m1 >= 0 && m1 <= 5 && m2 >= 0 && m2 <= 9 && b[i + 3] === 58 && s1 >= 0 && s1 <= 5 && s2 >= 0 && s2 <= 9)) ${FAIL("a time not in H:MM:SS form")}
        ${v}[n] = x * 3600 + (m1 * 10 + m2) * 60 + s1 * 10 + s2; i += 6;
      } else ${FAIL("a time not in H:MM:SS form")} }`,
  seq: () => `{ let c = b[i], x = 0, d = 0;
      while (c >= 48 && c <= 57) { x = x * 10 + c - 48; d++; c = b[++i]; }
      if (d === 0 || d > 9) ${FAIL("a stop_sequence that is not 1 to 9 digits")}
      seq[n] = x; }`,
  int: (v) => `{ let c = b[i], x = 0, d = 0;
      while (c >= 48 && c <= 57) { x = x * 10 + c - 48; d++; c = b[++i]; }
      if (d > 9) ${FAIL("an integer of more than 9 digits")}
      ${v}[n] = d === 0 ? ${NULL_INT} : x; }`,
  decimal: () => `{ let c = b[i], m = 0, d = 0, f = 0;
      while (c >= 48 && c <= 57) { m = m * 10 + c - 48; d++; c = b[++i]; }
      if (c === 46) {
        if (d === 0) ${FAIL("a shape_dist_traveled without integer digits")}
        c = b[++i];
        while (c >= 48 && c <= 57) { m = m * 10 + c - 48; d++; f++; c = b[++i]; }
        if (f === 0) ${FAIL("a shape_dist_traveled ending in a point")}
      }
      if (d > 15) ${FAIL("a shape_dist_traveled of more than 15 digits")}
      shapeDist[n] = d === 0 ? NaN : f === 0 ? m : m / POW10[f]; }`,
  text: () => `{ const s = i; let c = b[i], h = -2128831035;
      while (!${AT_END}) { h = Math.imul(h ^ c, 16777619); c = b[++i]; }
      if (i === s) headsign[n] = -1;
      else {
        const f = b[s], l = b[i - 1];
        if (f === 32 || f === 9 || l === 32 || l === 9) ${FAIL("a stop_headsign with leading or trailing spaces")}
        headsign[n] = headsigns.code(b, s, i, h);
      } }`,
  empty: () => `{ const c = b[i]; if (!${AT_END}) ${FAIL("a GTFS-Flex location_id or location_group_id")} }`,
  skip: () => `{ let c = b[i]; while (!${AT_END}) c = b[++i]; }`,
};

function kindOf(name: string): [kind: string, target: string] {
  switch (name) {
    case "trip_id": return ["trip", ""];
    case "stop_id": return ["stop", ""];
    case "arrival_time": return ["time", "arr"];
    case "departure_time": return ["time", "dep"];
    case "stop_sequence": return ["seq", ""];
    case "shape_dist_traveled": return ["decimal", ""];
    case "stop_headsign": return ["text", ""];
    case "location_id": case "location_group_id": return ["empty", ""];
    default: {
      const k = (FAST_INT_COLUMNS as readonly string[]).indexOf(name);
      return k >= 0 ? ["int", `ints${k}`] : ["skip", ""];
    }
  }
}

type RowsFn = (b: Uint8Array, end: number, out: Record<string, unknown>, st: ParseState, cap: number) => boolean;

interface ParseState {
  p: number;
  n: number;
  why: string;
  tripStart: number;
  tripEnd: number;
  tripCode: number;
}

/** The generated parser of rows [st.p, end) into `out`'s arrays from row st.n, until cap rows; false on a declined row. */
function rowsParser(kinds: [string, string][]): RowsFn {
  const body = kinds.map(([kind, target], k) => PIECES[kind]!(target) + (k < kinds.length - 1
    ? `\n if (b[i] !== 44) ${FAIL("a row whose field count is not the header's")} i++;`
    : `\n if (b[i] === 13) i++;\n if (i < end) { if (b[i] !== 10) ${FAIL("a row whose field count is not the header's")} i++; }`)).join("\n");
  const locals = ["trip", "stop", "seq", "arr", "dep", "shapeDist", "headsign", ...FAST_INT_COLUMNS.map((_, k) => `ints${k}`)];
  const src = `return function rows(b, end, out, st, cap) {
    const ${locals.map((l) => `${l} = out.${l}`).join(", ")};
    const trips = out.trips, stops = out.stops, headsigns = out.headsigns;
    let i = st.p, n = st.n;
    while (i < end && n < cap) {
      if (b[i] === 10 || b[i] === 13) ${FAIL("a blank line")}
      ${body}
      n++; st.p = i; st.n = n;
    }
    return true;
  };`;
  return new Function("sameBytes", "POW10", src)(sameBytes, POW10) as RowsFn;
}

const POW10 = Array.from({ length: 16 }, (_, k) => 10 ** k);

/**
 * The fast reader, over a buffer that holds the whole file once filled: `advance(filled)` reads the
 * complete lines of buffer[0, filled) (so a buffer can be read while it fills); or over the file's
 * bytes a piece at a time: `push(piece)` keeps only the lines not read yet, so the file is never
 * in memory whole (`sizeHint`, the file's size, sizes the columns). `finish()` reads the rest and
 * returns the columns, or why the file is left to DuckDB.
 */
export class StopTimesReader {
  private declined: string | null = null;
  private header: string[] | null = null;
  private has = (_kind: string) => false;
  private rows: RowsFn | null = null;
  private out: Record<string, unknown> = {};
  private cap = 0;
  /** bytes checked for quotes and UTF-8 so far */
  private checked = 0;
  private readonly st: ParseState = { p: 0, n: 0, why: "", tripStart: 0, tripEnd: -1, tripCode: -1 };

  private bytes: Uint8Array;
  /** bytes of `bytes` in use, when read piece by piece (push); -1 when `bytes` is the whole file */
  private filled = -1;

  constructor(bytes: Uint8Array, private readonly sizeHint = bytes.length) {
    this.bytes = bytes;
  }

  /**
   * The next piece of the file (read piece by piece: `bytes` given to the constructor is then only
   * the first buffer, its contents ignored). The lines read so far are dropped from the buffer first.
   */
  push(piece: Uint8Array): void {
    if (this.declined !== null) return;
    if (this.filled < 0) this.filled = 0;
    if (this.filled + piece.length > this.bytes.length) {
      // the lines read so far (all of them once the header is read) make room
      const drop = this.header ? this.st.p : 0;
      const keep = this.filled - drop;
      const b = keep + piece.length > this.bytes.length ? new Uint8Array(Math.max(keep + piece.length, this.bytes.length * 2)) : this.bytes;
      if (b === this.bytes) b.copyWithin(0, drop, this.filled);
      else b.set(this.bytes.subarray(drop, this.filled));
      this.bytes = b;
      this.filled = keep;
      this.checked -= drop;
      this.st.p -= drop;
      // the previous row's trip_id, when it is still in the buffer (else the next row looks its id up)
      if (this.st.tripStart >= drop) {
        this.st.tripStart -= drop;
        this.st.tripEnd -= drop;
      } else [this.st.tripStart, this.st.tripEnd] = [0, -1];
    }
    this.bytes.set(piece, this.filled);
    this.filled += piece.length;
    this.advance(this.filled);
  }

  advance(filled: number, final = false): void {
    if (this.declined !== null) return;
    try {
      this.read(filled, final);
    } catch (e) {
      this.decline(`the fast reader failed: ${(e as Error).message}`);
    }
  }

  private read(filled: number, final: boolean): void {
    const b = this.bytes;
    // complete lines only (a UTF-8 sequence never spans a newline), all of it at the end
    const upTo = final ? filled : b.lastIndexOf(0x0a, filled - 1) + 1;
    if (upTo <= this.checked) return;
    const fresh = b.subarray(this.checked, upTo);
    if (fresh.indexOf(0x22) >= 0) return this.decline("a quote");
    if (!isUtf8(fresh)) return this.decline("bytes that are not UTF-8");
    this.checked = upTo;
    if (!this.header && !this.readHeader(upTo, final)) return;
    for (;;) {
      if (!this.rows!(b, upTo, this.out, this.st, this.cap)) return this.decline(`${this.st.why} (line ${this.st.n + 2})`);
      if (this.st.p >= upTo) return;
      this.cap = Math.ceil(this.cap * 1.5);
      for (const [k, v] of Object.entries(this.out)) if ((v instanceof Int32Array || v instanceof Float64Array) && v.length) this.out[k] = grow(v, this.cap);
    }
  }

  finish(): FastStopTimes | Declined {
    if (this.filled >= 0) {
      // (the last line is read up to the end of the data: nothing past it may look like its bytes)
      this.bytes = this.bytes.subarray(0, this.filled);
      this.advance(this.filled, true);
      this.bytes = new Uint8Array(0); // (the buffer's memory is not needed any more)
    } else this.advance(this.bytes.length, true);
    if (this.declined === null && !this.header) this.decline("no header line");
    if (this.declined !== null) return { declined: this.declined };
    const n = this.st.n;
    if (n === 0) return { declined: "no rows" };
    const out = this.out, header = this.header!;
    const col = <T extends Int32Array | Float64Array>(k: string) => (out[k] as T).subarray(0, n) as T;
    return {
      rows: n,
      header,
      trip: col("trip"),
      stop: col("stop"),
      tripIds: (out.trips as ByteDict).strings(),
      stopIds: (out.stops as ByteDict).strings(),
      seq: col("seq"),
      arr: col("arr"),
      dep: col("dep"),
      ints: Object.fromEntries(FAST_INT_COLUMNS.flatMap((c, k) => (header.includes(c) ? [[c, col<Int32Array>(`ints${k}`)]] : []))),
      ...(this.has("decimal") ? { shapeDist: col<Float64Array>("shapeDist") } : {}),
      ...(this.has("text") ? { headsign: col<Int32Array>("headsign"), headsigns: (out.headsigns as ByteDict).strings() } : {}),
    };
  }

  private decline(why: string): void {
    this.declined = why;
    this.out = {}; // its memory is not needed any more
    if (this.filled >= 0) this.bytes = new Uint8Array(0);
  }

  /** The header line (once it is complete), the parser for its columns and the columns' arrays. */
  private readHeader(upTo: number, final: boolean): boolean {
    const b = this.bytes;
    const start = b.length >= 3 && b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf ? 3 : 0;
    const nl = b.indexOf(0x0a, start);
    const complete = nl >= 0 && nl < upTo;
    if (!complete && !final) return false; // not all in yet
    const headerEnd = complete ? nl : upTo;
    const header = new TextDecoder().decode(b.subarray(start, headerEnd)).replace(/\r$/, "").split(",").map((h) => h.trim());
    if (header.some((h) => h === "") || new Set(header).size !== header.length) {
      this.decline("an empty or repeated column name");
      return false;
    }
    for (const req of ["trip_id", "stop_id", "arrival_time", "departure_time", "stop_sequence"]) {
      if (!header.includes(req)) {
        this.decline(`no ${req} column`);
        return false;
      }
    }
    const kinds = header.map(kindOf);
    this.has = (kind) => kinds.some(([k]) => k === kind);
    // rows: about one per 40 bytes or more in real feeds; the columns grow when that is not enough
    this.cap = Math.max(1024, Math.ceil((this.sizeHint - headerEnd) / 40));
    const cap = this.cap;
    this.out = {
      trip: new Int32Array(cap), stop: new Int32Array(cap), seq: new Int32Array(cap), arr: new Int32Array(cap), dep: new Int32Array(cap),
      shapeDist: new Float64Array(this.has("decimal") ? cap : 0), headsign: new Int32Array(this.has("text") ? cap : 0),
      trips: new ByteDict(), stops: new ByteDict(), headsigns: new ByteDict(),
    };
    FAST_INT_COLUMNS.forEach((c, k) => (this.out[`ints${k}`] = new Int32Array(header.includes(c) ? cap : 0)));
    this.header = header;
    this.rows = rowsParser(kinds);
    this.st.p = complete ? nl + 1 : upTo;
    return true;
  }
}

/** Read a whole stop_times.txt (its bytes), or say why it is left to DuckDB. */
export function parseStopTimes(bytes: Uint8Array): FastStopTimes | Declined {
  return new StopTimesReader(bytes).finish();
}

/**
 * stop_times.txt files up to this size (bytes, unpacked) are unpacked (or read) whole into memory
 * and read there: one inflate call, the fastest way; larger ones a piece at a time
 * (StopTimesReader.push), so that the import's memory does not grow with the file (a country's
 * feed: 1.3 GB for 20 M stop_times).
 */
export const WHOLE_FILE_LIMIT = 256 * 1024 * 1024;

/**
 * What the worker is asked (worker.ts): a zip member to unpack and read, or a file to read;
 * `wholeLimit` overrides WHOLE_FILE_LIMIT (tests read small files piece by piece with it).
 */
export type StopTimesJob = ({ member: ZipMember } | { file: string }) & { wholeLimit?: number };

export type WorkerReply = { kind: "unpacked"; error?: string } | { kind: "parsed"; parsed: FastStopTimes | Declined; bytes?: Uint8Array };

/** stop_times.txt being unpacked and read by the fast reader in a worker thread. */
export interface StopTimesOffThread {
  /** done once the file is unpacked (fails, with the worker's message, when the member is corrupt) */
  unpacked: Task<void>;
  /**
   * The fast reader's columns, or why it declined: handed over once (a second call answers
   * "declined"), so that nothing here keeps the columns alive after their reader is done with them.
   */
  take(): Promise<FastStopTimes | Declined>;
  /**
   * Puts the file on disk, for DuckDB to read when the fast reader's columns are not used (a zip
   * member is unpacked to memory only: with the fast reader's columns nothing reads the file).
   */
  ensureFile(): Promise<void>;
  /** stops the worker (when the import ends without waiting for it) */
  cancel(): void;
}

/**
 * Unpacks (a zip member, into memory) or opens (a file) stop_times.txt and runs the fast reader
 * over it in a worker thread, off the thread that drives DuckDB meanwhile. The member's compressed
 * bytes are copied to the worker; its unpacked bytes come back only when the reader declined the
 * file (DuckDB reads it then): with the columns, nothing needs them, and keeping them would hold
 * the file's size in memory for the whole import (ensureFile unpacks the member again in the rare
 * case the columns are refused later).
 */
export function readStopTimesOffThread(src: ({ member: ZipMember; path: string } | { file: string }) & { wholeLimit?: number }): StopTimesOffThread {
  const worker = new Worker(new URL("./worker.ts", import.meta.url).href);
  let onUnpacked!: (error?: string) => void;
  let onParsed!: (p: FastStopTimes | Declined) => void;
  const unpacked = new Task("unpack stop_times.txt", () => new Promise<void>((resolve, reject) => (onUnpacked = (error) => (error === undefined ? resolve() : reject(new Error(error))))));
  let parsed: Promise<FastStopTimes | Declined> | null = new Promise<FastStopTimes | Declined>((resolve) => (onParsed = resolve));
  // settles with `parsed`, holding nothing of its value
  const settled = parsed.then(() => undefined);
  // (settling a settled promise does nothing: the first word stands)
  const stop = (why: string) => {
    onUnpacked(why);
    onParsed({ declined: why });
    worker.terminate();
  };
  let bytes: Uint8Array | undefined;
  worker.onmessage = (ev: MessageEvent<WorkerReply>) => {
    const msg = ev.data;
    if (msg.kind === "unpacked") {
      onUnpacked(msg.error);
      if (msg.error !== undefined) stop(msg.error);
      return;
    }
    bytes = msg.bytes;
    onUnpacked();
    onParsed(msg.parsed);
    worker.terminate();
  };
  worker.onerror = (ev) => stop(`the stop_times.txt reader failed (${ev.message})`);
  let ensureFile = () => Promise.resolve();
  if ("member" in src) {
    const data = src.member.data.slice();
    worker.postMessage({ member: { ...src.member, data }, wholeLimit: src.wholeLimit } satisfies StopTimesJob, [data.buffer]);
    // the worker's bytes, or (when it failed after unpacking) the member unpacked again here
    let file: Promise<void> | null = null;
    ensureFile = () => (file ??= unpacked.result().then(() => settled).then(() => {
      const b = bytes;
      bytes = undefined;
      return b ? writeFileSync(src.path, b) : extractMember(src.member, src.path);
    }));
  } else {
    onUnpacked();
    worker.postMessage({ file: src.file, wholeLimit: src.wholeLimit } satisfies StopTimesJob);
  }
  const take = () => {
    const p = parsed ?? Promise.resolve({ declined: "the fast reader's columns were taken already" });
    parsed = null;
    return p;
  };
  return { unpacked, take, ensureFile: () => ensureFile(), cancel: () => stop("cancelled") };
}
