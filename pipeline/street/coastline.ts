// Purpose: the sea as polygons, from an extract's OSM coastlines closed along its bounding box.
/**
 * OSM has no sea areas: the sea is the right-hand side of the natural=coastline ways (land on the
 * left, sea on the right, in the direction of the way). An extract holds pieces of the coastline.
 * Joined end to end, and cut by the extract's box, each piece that crosses the box runs from a
 * point of its edge to another with the sea on its right; a piece that stops short of the edge (the
 * extract dropped the nodes beyond it) is carried straight on to the nearest edge when it ends
 * within SNAP of it, and left out otherwise. The sea is then traced with the sea on the right all
 * along: a piece, then the box's edge clockwise to the next piece's start, and so on until the
 * first piece comes round again. A closed coastline inside the box is an island (counter-clockwise:
 * land inside), a hole in the sea that holds it; one wound clockwise is a closed sea (a lagoon). With
 * no piece crossing the box, the box is sea when it holds islands, and land otherwise.
 *
 * Coordinates are [lon, lat]; the rings come out RFC 7946-wise (exterior counter-clockwise, holes
 * clockwise), closed.
 */

export interface Box {
  w: number;
  s: number;
  e: number;
  n: number;
}
type Pt = [number, number];

/** How far from the box's edge (a share of its larger side) a piece may stop and still be carried on to it. */
export const SNAP = 0.02;

/** The sea polygons (each [exterior, ...holes]) of the coastline `lines` within `box`, and how many pieces were left out. */
export function seaPolygons(lines: Pt[][], box: Box): { polygons: Pt[][][]; leftOut: number } {
  const chains = joinLines(lines.filter((l) => l.length >= 2));
  const pieces: Pt[][] = [];
  const islands: Pt[][] = [];
  const lagoons: Pt[][] = [];
  let leftOut = 0;
  for (const c of chains) {
    if (same(c[0]!, c[c.length - 1]!) && c.length >= 4) {
      if (!c.every((p) => inside(p, box))) {
        // a closed coastline the box cuts: the pieces of it that cross the box
        for (const p of clip(c, box)) (onEdge(p[0]!, box) && onEdge(p[p.length - 1]!, box) ? pieces.push(p) : leftOut++);
        continue;
      }
      (area2(c) > 0 ? islands : lagoons).push(c);
      continue;
    }
    for (const p of clip(c, box)) {
      const ends = [reachEdge(p[0]!, box), reachEdge(p[p.length - 1]!, box)];
      if (ends[0] === null || ends[1] === null) {
        leftOut++;
        continue;
      }
      if (!same(ends[0], p[0]!)) p.unshift(ends[0]);
      if (!same(ends[1], p[p.length - 1]!)) p.push(ends[1]);
      pieces.push(p);
    }
  }
  const rings = pieces.length ? traceSea(pieces, box) : islands.length ? [boxRing(box)] : [];
  // each ring was traced clockwise (the sea on the right): exterior rings counter-clockwise
  const polygons: Pt[][][] = rings.map((r) => [r.reverse()]);
  for (const l of lagoons) polygons.push([l.slice().reverse()]);
  for (const isl of islands) {
    const holder = polygons.find((poly) => inRing(isl[0]!, poly[0]!));
    if (holder) holder.push(isl.slice().reverse());
  }
  return { polygons, leftOut };
}

const same = (a: Pt, b: Pt) => a[0] === b[0] && a[1] === b[1];
const key = (p: Pt) => `${p[0]},${p[1]}`;
const inside = (p: Pt, b: Box) => p[0] >= b.w && p[0] <= b.e && p[1] >= b.s && p[1] <= b.n;
const onEdge = (p: Pt, b: Box) => inside(p, b) && (p[0] === b.w || p[0] === b.e || p[1] === b.s || p[1] === b.n);

/** Lines joined end to start where one ends where another starts (coastlines keep one direction). */
export function joinLines(lines: Pt[][]): Pt[][] {
  const byStart = new Map<string, number>();
  lines.forEach((l, i) => byStart.set(key(l[0]!), i));
  const used = new Uint8Array(lines.length);
  const hasPred = new Uint8Array(lines.length);
  lines.forEach((l) => {
    const j = byStart.get(key(l[l.length - 1]!));
    if (j !== undefined) hasPred[j] = 1;
  });
  const out: Pt[][] = [];
  const follow = (start: number) => {
    const chain: Pt[] = [...lines[start]!];
    used[start] = 1;
    for (;;) {
      const j = byStart.get(key(chain[chain.length - 1]!));
      if (j === undefined || used[j]) break;
      used[j] = 1;
      chain.push(...lines[j]!.slice(1));
    }
    out.push(chain);
  };
  // chains that start somewhere no other line ends first, then what is left (rings)
  for (let i = 0; i < lines.length; i++) if (!used[i] && !hasPred[i]) follow(i);
  for (let i = 0; i < lines.length; i++) if (!used[i]) follow(i);
  return out;
}

/** The parts of a line inside the box (Liang-Barsky on each segment), each as a line of its own. */
export function clip(line: Pt[], b: Box): Pt[][] {
  const out: Pt[][] = [];
  let cur: Pt[] | null = null;
  for (let i = 0; i + 1 < line.length; i++) {
    const p = line[i]!, q = line[i + 1]!;
    const seg = clipSegment(p, q, b);
    if (!seg) {
      if (cur) out.push(cur);
      cur = null;
      continue;
    }
    const [a, c] = seg;
    if (!cur) cur = [a];
    else if (!same(cur[cur.length - 1]!, a)) {
      out.push(cur);
      cur = [a];
    }
    if (!same(cur[cur.length - 1]!, c)) cur.push(c);
    if (!same(c, q)) {
      out.push(cur);
      cur = null;
    }
  }
  if (cur) out.push(cur);
  return out.filter((l) => l.length >= 2);
}

function clipSegment(p: Pt, q: Pt, b: Box): [Pt, Pt] | null {
  const dx = q[0] - p[0], dy = q[1] - p[1];
  let t0 = 0, t1 = 1;
  for (const [pp, qq] of [[-dx, p[0] - b.w], [dx, b.e - p[0]], [-dy, p[1] - b.s], [dy, b.n - p[1]]] as const) {
    if (pp === 0) {
      if (qq < 0) return null;
      continue;
    }
    const r = qq / pp;
    if (pp < 0) {
      if (r > t1) return null;
      if (r > t0) t0 = r;
    } else {
      if (r < t0) return null;
      if (r < t1) t1 = r;
    }
  }
  const at = (t: number): Pt => (t === 0 ? p : t === 1 ? q : [clampTo(p[0] + t * dx, b.w, b.e), clampTo(p[1] + t * dy, b.s, b.n)]);
  return [at(t0), at(t1)];
}

const clampTo = (v: number, lo: number, hi: number) => (v < lo ? lo : v > hi ? hi : v);

/** `p` if it is on the box's edge; else the nearest point of the edge when p is within SNAP of it; else null. */
function reachEdge(p: Pt, b: Box): Pt | null {
  if (onEdge(p, b)) return p;
  const d = [p[0] - b.w, b.e - p[0], p[1] - b.s, b.n - p[1]];
  const i = d.indexOf(Math.min(...d));
  if (d[i]! > SNAP * Math.max(b.e - b.w, b.n - b.s)) return null;
  return i === 0 ? [b.w, p[1]] : i === 1 ? [b.e, p[1]] : i === 2 ? [p[0], b.s] : [p[0], b.n];
}

/** Position of an edge point going clockwise round the box from its north-west corner. */
function perimeterAt(p: Pt, b: Box): number {
  const W = b.e - b.w, H = b.n - b.s;
  if (p[1] === b.n) return p[0] - b.w;
  if (p[0] === b.e) return W + (b.n - p[1]);
  if (p[1] === b.s) return W + H + (b.e - p[0]);
  return 2 * W + H + (p[1] - b.s);
}

/** The box's corners clockwise from its north-west one, with their perimeter positions. */
function corners(b: Box): [number, Pt][] {
  const W = b.e - b.w, H = b.n - b.s;
  return [[0, [b.w, b.n]], [W, [b.e, b.n]], [W + H, [b.e, b.s]], [2 * W + H, [b.w, b.s]]];
}

const boxRing = (b: Box): Pt[] => [[b.w, b.n], [b.e, b.n], [b.e, b.s], [b.w, b.s], [b.w, b.n]];

/** The sea's rings, each traced clockwise: a piece, then the edge clockwise to the next piece's start. */
function traceSea(pieces: Pt[][], b: Box): Pt[][] {
  const per = 2 * (b.e - b.w + b.n - b.s);
  const starts = pieces.map((p) => perimeterAt(p[0]!, b));
  const ends = pieces.map((p) => perimeterAt(p[p.length - 1]!, b));
  const used = new Uint8Array(pieces.length);
  const rings: Pt[][] = [];
  for (let first = 0; first < pieces.length; first++) {
    if (used[first]) continue;
    const ring: Pt[] = [];
    let i = first;
    for (let guard = 0; guard <= pieces.length; guard++) {
      used[i] = 1;
      ring.push(...pieces[i]!);
      // the next start clockwise from this piece's end (a start at the very point of the end counts as next)
      const from = ends[i]!;
      let next = -1, best = Infinity;
      for (let j = 0; j < pieces.length; j++) {
        if (used[j] && j !== first) continue;
        const d = (starts[j]! - from + per) % per;
        if (d < best) [best, next] = [d, j];
      }
      // the edge between, corner by corner
      for (const [at, c] of corners(b).map(([at, c]) => [(at - from + per) % per, c] as const).sort((x, y) => x[0] - y[0])) {
        if (at > 0 && at < best) ring.push(c);
      }
      if (next === first || next < 0) break;
      i = next;
    }
    ring.push(ring[0]!);
    rings.push(ring);
  }
  return rings;
}

/** Twice the signed area of a closed ring (positive when counter-clockwise). */
function area2(r: Pt[]): number {
  let a = 0;
  for (let i = 0; i + 1 < r.length; i++) a += r[i]![0] * r[i + 1]![1] - r[i + 1]![0] * r[i]![1];
  return a;
}

function inRing(p: Pt, r: Pt[]): boolean {
  let c = false;
  for (let i = 0, j = r.length - 1; i < r.length; j = i++) {
    const [xi, yi] = r[i]!, [xj, yj] = r[j]!;
    if (yi > p[1] !== yj > p[1] && p[0] < ((xj - xi) * (p[1] - yi)) / (yj - yi) + xi) c = !c;
  }
  return c;
}
