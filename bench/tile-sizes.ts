/**
 * Largest tile per zoom of a dataset (stops,stations,routes unless a layer list is given), and the
 * p50 of a tile cut cold and from the cache: `bun bench/tile-sizes.ts <data dir> [minZoom] [maxZoom] [layers]`.
 * Walks every tile over the stops' bounds (the street dataset's without stops) at each zoom
 * (capped at 4096 tiles per zoom: a sample grid beyond that).
 */
import { activeStreets, readManifest } from "../pipeline/schema/manifest.ts";
import { buildTileSet, parseLayers, tileOf } from "../server/map/tiles.ts";
import { worldXY } from "../server/map/mvt.ts";

const dir = process.argv[2]!;
const zMin = Number(process.argv[3] ?? 6), zMax = Number(process.argv[4] ?? 14);
const t0 = performance.now();
const set = await buildTileSet(dir);
const b = set.base;
console.log(`built in ${Math.round(performance.now() - t0)} ms: ${set.points.stops.length} stops, ${set.points.stations.length} stations, ${set.lines.routes.length} routes, ${set.lines.streets.length} streets, ${b.places.length} places, ${b.waterways.length} waterways, ${b.areas.water.length} water, ${b.areas.parks.length} parks, ${b.areas.buildings.length} buildings`);
const [w, s, e, n] = set.bounds ?? activeStreets(readManifest(dir))?.bbox ?? [-180, -85, 180, 85];
const layers = parseLayers(process.argv[5] ?? "stops,stations,routes");
for (let z = zMin; z <= zMax; z++) {
  const [ax, ay] = worldXY(w, n), [bx, by] = worldXY(e, s);
  const x0 = Math.floor(ax * 2 ** z), x1 = Math.floor(bx * 2 ** z), y0 = Math.floor(ay * 2 ** z), y1 = Math.floor(by * 2 ** z);
  const all: [number, number][] = [];
  for (let x = x0; x <= x1; x++) for (let y = y0; y <= y1; y++) all.push([x, y]);
  const step = Math.max(1, Math.ceil(all.length / 4096));
  let max = 0, at = "", cold: number[] = [], warm: number[] = [];
  for (let i = 0; i < all.length; i += step) {
    const [x, y] = all[i]!;
    let t = performance.now();
    const b = tileOf(set, [...layers], z, x, y);
    cold.push(performance.now() - t);
    t = performance.now();
    tileOf(set, [...layers], z, x, y);
    warm.push(performance.now() - t);
    if (b.length > max) { max = b.length; at = `${z}/${x}/${y}`; }
  }
  cold.sort((a, b) => a - b); warm.sort((a, b) => a - b);
  const p50 = (a: number[]) => a[a.length >> 1]!.toFixed(3);
  console.log(`z${z}: ${cold.length} tiles, largest ${(max / 1024).toFixed(1)} kB at ${at}, p50 cold ${p50(cold)} ms, cached ${p50(warm)} ms, max cold ${cold[cold.length - 1]!.toFixed(1)} ms`);
}
