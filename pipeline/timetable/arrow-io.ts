/**
 * Serialises assembled timetable tables as Arrow IPC: one IPC stream per table, concatenated in one
 * file, each schema tagged with metadata `table=<name>`. Readers: server/planner/timetable/arrow-loader.ts.
 */
import { AsyncByteQueue, Float32, Float64, Int32, RecordBatchStreamWriter, Schema, Table, Uint8, Utf8, makeData, type Data, Vector } from "apache-arrow";
import type { Column, Tables } from "./assemble.ts";

/** The IPC file as one buffer (tests, small timetables). */
export function tablesToIpc(tables: Tables): Uint8Array {
  const parts = tablesToIpcChunks(tables);
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Keeps what the IPC writer emits as it is: its body chunks are views of the column arrays (no copy). */
class ChunkSink extends AsyncByteQueue {
  readonly chunks: Uint8Array[] = [];
  override write(value: Uint8Array): void {
    if (value.byteLength > 0) this.chunks.push(value);
  }
}

/**
 * The IPC file as the writer's chunks, in order (their concatenation is the file): written to disk
 * one after the other, a large timetable is never copied into one buffer.
 */
export function tablesToIpcChunks(tables: Tables): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (const [name, cols] of Object.entries(tables)) out.push(...tableIpcChunks(name, cols));
  return out;
}

/**
 * The IPC file passed to `write` table by table as each is encoded (the bytes of tablesToIpcChunks),
 * each table taken out of `tables` once written: what nothing else holds of it (its encoded strings,
 * the columns the assembly made) can be collected while the next is encoded.
 */
export function writeTablesIpc(tables: Tables, write: (chunk: Uint8Array) => void): number {
  let bytes = 0;
  for (const name of Object.keys(tables)) {
    for (const c of tableIpcChunks(name, tables[name]!)) {
      write(c);
      bytes += c.length;
    }
    delete tables[name];
  }
  return bytes;
}

/** One table's IPC stream: what tableToIPC(table, "stream") writes, its schema tagged `table=<name>`. */
function tableIpcChunks(name: string, cols: Record<string, Column>): Uint8Array[] {
  const data: Record<string, Vector> = {};
  for (const [col, values] of Object.entries(cols)) data[col] = toVector(values);
  const table = new Table(data);
  const withMeta = new Table(new Schema(table.schema.fields, new Map([["table", name]])), table.batches);
  // schema, batches, end-of-stream marker (write(Table) finishes)
  const sink = new ChunkSink();
  const writer = new RecordBatchStreamWriter();
  writer.reset(sink);
  writer.write(withMeta);
  return sink.chunks;
}

function toVector(values: Column): Vector {
  if (Array.isArray(values)) return utf8Vector(values);
  let type;
  if (values instanceof Int32Array) type = new Int32();
  else if (values instanceof Uint8Array) type = new Uint8();
  else if (values instanceof Float32Array) type = new Float32();
  else type = new Float64();
  const d: Data = makeData({ type, length: values.length, data: values } as never);
  return new Vector([d]);
}

/**
 * A string column as Arrow Utf8 (what vectorFromArray(values, new Utf8()) makes of strings without
 * nulls: offsets and UTF-8 bytes, no validity buffer), encoded into one buffer of its exact size:
 * the builder encoded each value into an array of its own (a million trips: a million garbage
 * arrays while the timetable is written).
 */
function utf8Vector(values: string[]): Vector {
  const offsets = new Int32Array(values.length + 1);
  let n = 0;
  for (let i = 0; i < values.length; i++) offsets[i + 1] = n += Buffer.byteLength(values[i]!, "utf8");
  const bytes = new Uint8Array(n);
  const enc = new TextEncoder();
  for (let i = 0; i < values.length; i++) enc.encodeInto(values[i]!, bytes.subarray(offsets[i]!, offsets[i + 1]!));
  return new Vector([makeData({ type: new Utf8(), length: values.length, nullCount: 0, valueOffsets: offsets, data: bytes })]);
}
