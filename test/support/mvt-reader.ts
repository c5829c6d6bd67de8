/**
 * An independent Mapbox Vector Tile (MVT 2) reader for tests, over `pbf` (the protobuf reader
 * @mapbox/vector-tile builds on): layers, features with their properties and raw geometry commands,
 * and the commands decoded into lines or polygon rings.
 */
import { PbfReader as Pbf } from "pbf";

export interface Feature { id: number; type: number; geometry: number[]; props: Record<string, unknown> }
export interface Layer { name: string; extent: number; version: number; features: Feature[] }

/** A minimal MVT 2 reader over pbf (the layout @mapbox/vector-tile reads). */
export function decode(buf: Uint8Array): Layer[] {
  const pbf = new Pbf(buf);
  const layers: Layer[] = [];
  pbf.readFields((tag: number, _: unknown, p: Pbf) => {
    if (tag !== 3) return;
    const raw = { name: "", extent: 4096, version: 1, keys: [] as string[], values: [] as unknown[], feats: [] as { id: number; type: number; tags: number[]; geometry: number[] }[] };
    p.readMessage((t: number, l: typeof raw, q: Pbf) => {
      if (t === 15) l.version = q.readVarint();
      else if (t === 1) l.name = q.readString();
      else if (t === 5) l.extent = q.readVarint();
      else if (t === 3) l.keys.push(q.readString());
      else if (t === 4) {
        let v: unknown = null;
        q.readMessage((vt: number, _v: unknown, r: Pbf) => {
          v = vt === 1 ? r.readString() : vt === 2 ? r.readFloat() : vt === 3 ? r.readDouble() : vt === 4 ? r.readVarint(true) : vt === 5 ? r.readVarint() : vt === 6 ? r.readSVarint() : vt === 7 ? r.readBoolean() : null;
        }, null);
        l.values.push(v);
      } else if (t === 2) {
        const f = { id: 0, type: 0, tags: [] as number[], geometry: [] as number[] };
        q.readMessage((ft: number, ff: typeof f, r: Pbf) => {
          if (ft === 1) ff.id = r.readVarint();
          else if (ft === 2) r.readPackedVarint(ff.tags);
          else if (ft === 3) ff.type = r.readVarint();
          else if (ft === 4) r.readPackedVarint(ff.geometry);
        }, f);
        l.feats.push(f);
      }
    }, raw);
    layers.push({
      name: raw.name, extent: raw.extent, version: raw.version,
      features: raw.feats.map((f) => {
        const props: Record<string, unknown> = {};
        for (let i = 0; i < f.tags.length; i += 2) props[raw.keys[f.tags[i]!]!] = raw.values[f.tags[i + 1]!];
        return { id: f.id, type: f.type, geometry: f.geometry, props };
      }),
    });
  }, null);
  return layers;
}

export const unzig = (n: number) => (n >>> 1) ^ -(n & 1);

/** The geometry commands as paths of points (tile units); a ClosePath marks its path `closed`. */
export function paths(geometry: number[]): { pts: [number, number][]; closed: boolean }[] {
  const out: { pts: [number, number][]; closed: boolean }[] = [];
  let cx = 0, cy = 0, i = 0;
  while (i < geometry.length) {
    const cmd = geometry[i]! & 7, count = geometry[i]! >> 3;
    i++;
    if (cmd === 7) { out[out.length - 1]!.closed = true; continue; }
    if (cmd === 1) out.push({ pts: [], closed: false });
    for (let k = 0; k < count; k++, i += 2) {
      cx += unzig(geometry[i]!); cy += unzig(geometry[i + 1]!);
      out[out.length - 1]!.pts.push([cx, cy]);
    }
  }
  return out;
}

/** Twice the signed area of a ring by the surveyor's formula (positive: clockwise with y down, an exterior ring in MVT). */
export function area2(pts: [number, number][]): number {
  let a = 0;
  for (let i = 0; i < pts.length; i++) {
    const [x0, y0] = pts[i]!, [x1, y1] = pts[(i + 1) % pts.length]!;
    a += x0 * y1 - x1 * y0;
  }
  return a;
}
