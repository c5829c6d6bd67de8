/**
 * Serialises assembled timetable tables as Arrow IPC: one IPC stream per table, concatenated in one
 * file, each schema tagged with metadata `table=<name>`. Readers: server/planner/timetable/arrow-loader.ts.
 */
import { Float32, Float64, Int32, Schema, Table, Uint8, Utf8, makeData, tableToIPC, vectorFromArray, type Data, Vector } from "apache-arrow";
import type { Column, Tables } from "./assemble.ts";

export function tablesToIpc(tables: Tables): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const [name, cols] of Object.entries(tables)) {
    const data: Record<string, Vector> = {};
    for (const [col, values] of Object.entries(cols)) {
      const v = toVector(values);
      data[col] = v;
    }
    const table = new Table(data);
    const withMeta = new Table(new Schema(table.schema.fields, new Map([["table", name]])), table.batches);
    parts.push(tableToIPC(withMeta, "stream"));
  }
  const total = parts.reduce((n, p) => n + p.length, 0);
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function toVector(values: Column): Vector {
  if (Array.isArray(values)) return vectorFromArray(values, new Utf8());
  let type;
  if (values instanceof Int32Array) type = new Int32();
  else if (values instanceof Uint8Array) type = new Uint8();
  else if (values instanceof Float32Array) type = new Float32();
  else type = new Float64();
  const d: Data = makeData({ type, length: values.length, data: values } as never);
  return new Vector([d]);
}
