/**
 * An independent OSM PBF reader for tests: every node (with coordinates and tags), way (tags, node
 * ids) and relation (tags, members) of a small extract, decoded with `pbf` (not the pipeline's own
 * protobuf code), so tests can check what the pipeline made of an extract against the extract.
 */
import { readFileSync } from "node:fs";
import { inflateSync } from "node:zlib";
import { PbfReader as Pbf } from "pbf";

export interface OsmNode { id: number; lon: number; lat: number; tags: Record<string, string> }
export interface OsmWay { id: number; tags: Record<string, string>; refs: number[] }
export interface OsmRelation { id: number; tags: Record<string, string>; members: { type: "node" | "way" | "relation"; ref: number; role: string }[] }
export interface OsmData { nodes: Map<number, OsmNode>; ways: Map<number, OsmWay>; relations: Map<number, OsmRelation> }

const delta = (a: number[]) => { for (let i = 1; i < a.length; i++) a[i] = a[i]! + a[i - 1]!; return a; };

export function readOsm(file: string): OsmData {
  const buf = readFileSync(file);
  const out: OsmData = { nodes: new Map(), ways: new Map(), relations: new Map() };
  let off = 0;
  while (off < buf.length) {
    const hlen = buf.readUInt32BE(off);
    const header = { type: "", size: 0 };
    new Pbf(buf.subarray(off + 4, off + 4 + hlen)).readFields((t: number, h: typeof header, p: Pbf) => {
      if (t === 1) h.type = p.readString();
      else if (t === 3) h.size = p.readVarint();
    }, header);
    const blob = buf.subarray(off + 4 + hlen, off + 4 + hlen + header.size);
    off += 4 + hlen + header.size;
    if (header.type !== "OSMData") continue;
    let data: Uint8Array | null = null;
    new Pbf(blob).readFields((t: number, _: unknown, p: Pbf) => {
      if (t === 1) data = p.readBytes();
      else if (t === 3) data = inflateSync(p.readBytes());
    }, null);
    if (data) readBlock(data, out);
  }
  return out;
}

function readBlock(data: Uint8Array, out: OsmData): void {
  const b = { strings: [] as string[], gran: 100, latOff: 0, lonOff: 0, groups: [] as Uint8Array[] };
  new Pbf(data).readFields((t: number, r: typeof b, p: Pbf) => {
    if (t === 1) p.readMessage((u: number, rr: typeof b, q: Pbf) => { if (u === 1) rr.strings.push(new TextDecoder().decode(q.readBytes())); }, r);
    else if (t === 2) r.groups.push(p.readBytes());
    else if (t === 17) r.gran = p.readVarint();
    else if (t === 19) r.latOff = p.readVarint(true);
    else if (t === 20) r.lonOff = p.readVarint(true);
  }, b);
  const tags = (k: number[], v: number[]) => Object.fromEntries(k.map((x, i) => [b.strings[x]!, b.strings[v[i]!]!]));
  const deg = (raw: number, o: number) => 1e-9 * (o + b.gran * raw);
  for (const g of b.groups) {
    new Pbf(g).readFields((t: number, _: unknown, p: Pbf) => {
      if (t === 1) {
        const n = { id: 0, lat: 0, lon: 0, k: [] as number[], v: [] as number[] };
        p.readMessage((u: number, nn: typeof n, q: Pbf) => {
          if (u === 1) nn.id = q.readSVarint(); else if (u === 2) q.readPackedVarint(nn.k); else if (u === 3) q.readPackedVarint(nn.v);
          else if (u === 8) nn.lat = q.readSVarint(); else if (u === 9) nn.lon = q.readSVarint();
        }, n);
        out.nodes.set(n.id, { id: n.id, lat: deg(n.lat, b.latOff), lon: deg(n.lon, b.lonOff), tags: tags(n.k, n.v) });
      } else if (t === 2) {
        const d = { id: [] as number[], lat: [] as number[], lon: [] as number[], kv: [] as number[] };
        p.readMessage((u: number, dd: typeof d, q: Pbf) => {
          if (u === 1) q.readPackedSVarint(dd.id); else if (u === 8) q.readPackedSVarint(dd.lat); else if (u === 9) q.readPackedSVarint(dd.lon);
          else if (u === 10) q.readPackedVarint(dd.kv);
        }, d);
        delta(d.id); delta(d.lat); delta(d.lon);
        let j = 0;
        d.id.forEach((id, i) => {
          const t: Record<string, string> = {};
          while (j < d.kv.length && d.kv[j] !== 0) { t[b.strings[d.kv[j]!]!] = b.strings[d.kv[j + 1]!]!; j += 2; }
          j++;
          out.nodes.set(id, { id, lat: deg(d.lat[i]!, b.latOff), lon: deg(d.lon[i]!, b.lonOff), tags: t });
        });
      } else if (t === 3) {
        const w = { id: 0, k: [] as number[], v: [] as number[], refs: [] as number[] };
        p.readMessage((u: number, ww: typeof w, q: Pbf) => {
          if (u === 1) ww.id = q.readVarint(); else if (u === 2) q.readPackedVarint(ww.k); else if (u === 3) q.readPackedVarint(ww.v);
          else if (u === 8) q.readPackedSVarint(ww.refs);
        }, w);
        out.ways.set(w.id, { id: w.id, tags: tags(w.k, w.v), refs: delta(w.refs) });
      } else if (t === 4) {
        const r = { id: 0, k: [] as number[], v: [] as number[], roles: [] as number[], ids: [] as number[], types: [] as number[] };
        p.readMessage((u: number, rr: typeof r, q: Pbf) => {
          if (u === 1) rr.id = q.readVarint(); else if (u === 2) q.readPackedVarint(rr.k); else if (u === 3) q.readPackedVarint(rr.v);
          else if (u === 8) q.readPackedVarint(rr.roles); else if (u === 9) q.readPackedSVarint(rr.ids); else if (u === 10) q.readPackedVarint(rr.types);
        }, r);
        delta(r.ids);
        out.relations.set(r.id, {
          id: r.id, tags: tags(r.k, r.v),
          members: r.ids.map((ref, i) => ({ type: (["node", "way", "relation"] as const)[r.types[i] ?? 0]!, ref, role: b.strings[r.roles[i]!] ?? "" })),
        });
      }
    }, null);
  }
}
