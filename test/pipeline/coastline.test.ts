/**
 * FEATURE UNDER TEST: the sea from OSM coastlines (pipeline/street/coastline.ts): pieces of
 * natural=coastline (land on the left) joined, cut by the extract's box and closed along its edge
 * clockwise; islands as holes; pieces short of the edge carried to it; hand-made lines in a 10 × 10
 * box whose answers are worked out in the comments.
 */
import { describe, expect, test } from "bun:test";
import { clip, joinLines, SNAP, seaPolygons } from "../../pipeline/street/coastline.ts";

type Pt = [number, number];
const box = { w: 0, s: 0, e: 10, n: 10 };

/** Area of a polygon (exterior minus holes) and whether a point is in it. */
function area(poly: Pt[][]): number {
  const ring = (r: Pt[]) => {
    let a = 0;
    for (let i = 0; i + 1 < r.length; i++) a += r[i]![0] * r[i + 1]![1] - r[i + 1]![0] * r[i]![1];
    return a / 2;
  };
  return poly.reduce((s, r) => s + ring(r), 0);
}
function contains(poly: Pt[][], p: Pt): boolean {
  const inRing = (r: Pt[]) => {
    let c = false;
    for (let i = 0, j = r.length - 1; i < r.length; j = i++) {
      const [xi, yi] = r[i]!, [xj, yj] = r[j]!;
      if (yi > p[1] !== yj > p[1] && p[0] < ((xj - xi) * (p[1] - yi)) / (yj - yi) + xi) c = !c;
    }
    return c;
  };
  return inRing(poly[0]!) && !poly.slice(1).some(inRing);
}
const seaAt = (polys: Pt[][][], p: Pt) => polys.some((poly) => contains(poly, p));

describe("the sea from coastlines, closed along the box", () => {
  test("a coastline across the box west to east: the sea is south of it (on its right); east to west: north", () => {
    const south = seaPolygons([[[0, 5], [10, 5]]], box);
    expect(south.polygons.length).toBe(1);
    // exterior counter-clockwise (RFC 7946): a positive area of half the box
    expect(area(south.polygons[0]!)).toBe(50);
    expect([seaAt(south.polygons, [5, 2]), seaAt(south.polygons, [5, 8])]).toEqual([true, false]);
    const north = seaPolygons([[[10, 5], [0, 5]]], box);
    expect(area(north.polygons[0]!)).toBe(50);
    expect([seaAt(north.polygons, [5, 2]), seaAt(north.polygons, [5, 8])]).toEqual([false, true]);
  });

  test("ways joined end to start, cut where they leave the box: the same sea as one line inside it", () => {
    // two ways meeting at (5, 5), running from x = -5 to x = 15: cut at x = 0 and x = 10
    expect(joinLines([[[5, 5], [15, 5]], [[-5, 5], [5, 5]]])).toEqual([[[-5, 5], [5, 5], [15, 5]]]);
    const sea = seaPolygons([[[5, 5], [15, 5]], [[-5, 5], [5, 5]]], box);
    expect(area(sea.polygons[0]!)).toBe(50);
    expect(seaAt(sea.polygons, [5, 2])).toBe(true);
    // a line leaving and coming back is two parts
    expect(clip([[2, 2], [2, 12], [4, 12], [4, 2]], box)).toEqual([[[2, 2], [2, 10]], [[4, 10], [4, 2]]]);
  });

  test("a bay-shaped land (a U from the north edge): the sea all round it, land inside the U", () => {
    // down x = 3 (land east, on the left), east along y = 3 (land north), up x = 7 (land west): the land is the U's inside
    const sea = seaPolygons([[[3, 10], [3, 3], [7, 3], [7, 10]]], box);
    expect(sea.polygons.length).toBe(1);
    expect(area(sea.polygons[0]!)).toBe(100 - 4 * 7);
    expect([seaAt(sea.polygons, [1, 1]), seaAt(sea.polygons, [5, 6]), seaAt(sea.polygons, [9, 9])]).toEqual([true, false, true]);
  });

  test("two coastlines crossing the box: two seas, each closed along the edge between them", () => {
    // a strait of land from west to east between y = 3 and y = 7: sea south of y = 3 (line west to east) and north of y = 7 (east to west)
    const sea = seaPolygons([[[0, 3], [10, 3]], [[10, 7], [0, 7]]], box);
    expect(sea.polygons.length).toBe(2);
    expect(sea.polygons.map(area).sort()).toEqual([30, 30]);
    expect([seaAt(sea.polygons, [5, 1]), seaAt(sea.polygons, [5, 5]), seaAt(sea.polygons, [5, 9])]).toEqual([true, false, true]);
  });

  test("an island (a counter-clockwise ring) and no coastline across the box: the box is sea with the island as a hole", () => {
    const island: Pt[] = [[4, 4], [6, 4], [6, 6], [4, 6], [4, 4]];
    const sea = seaPolygons([island], box);
    expect(sea.polygons.length).toBe(1);
    expect(area(sea.polygons[0]!)).toBe(96);
    expect([seaAt(sea.polygons, [1, 1]), seaAt(sea.polygons, [5, 5])]).toEqual([true, false]);
    // an island off a coast: a hole in that coast's sea
    const both = seaPolygons([[[0, 5], [10, 5]], island.map(([x, y]) => [x, y - 3] as Pt)], box);
    expect(area(both.polygons[0]!)).toBe(46);
    expect([seaAt(both.polygons, [5, 2]), seaAt(both.polygons, [1, 1])]).toEqual([false, true]);
  });

  test("a coastline that stops short of the edge (its nodes beyond dropped by the extract): carried to the nearest edge within SNAP, else left out", () => {
    const near = SNAP * 10 * 0.5;
    const sea = seaPolygons([[[near, 5], [10 - near, 5]]], box);
    expect(sea.leftOut).toBe(0);
    expect(area(sea.polygons[0]!)).toBeCloseTo(50, 9);
    const far = seaPolygons([[[3, 5], [10, 5]]], box);
    expect(far).toEqual({ polygons: [], leftOut: 1 });
    // no coastline, no island: no sea (the box is land, as far as the extract tells)
    expect(seaPolygons([], box)).toEqual({ polygons: [], leftOut: 0 });
  });
});
