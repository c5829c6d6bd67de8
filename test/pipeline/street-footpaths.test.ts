/**
 * FEATURE UNDER TEST: footpaths between stops measured on the street dataset at import
 * (pipeline/timetable/street-footpaths.ts through compile.ts and publish.ts), on Portland: TriMet's
 * two lines and portland-small.osm.pbf, whose walkable ways end west of I-205 (the MAX stations
 * east of it are off the streets). The timetable names the street dataset, is rebuilt when the
 * streets change, and a stop off the streets keeps straight lines.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { activeStreets, readManifest } from "../../pipeline/schema/manifest.ts";
import { FOOT_SOURCE } from "../../pipeline/schema/timetable.ts";
import { openStreetActor } from "../../pipeline/timetable/street-footpaths.ts";
import { refreshTimetable } from "../../pipeline/timetable/publish.ts";
import { timetableRelPath } from "../../pipeline/timetable/file.ts";
import { loadTimetableFile } from "../../server/planner/timetable/arrow-loader.ts";
import type { Timetable } from "../../server/planner/timetable/types.ts";
import { haversineM } from "../../shared/geo.ts";
import { importedDataset, streetDataset } from "../support/dataset.ts";

let plain: Timetable;
let onStreets: Timetable;
let dir: string;

const footpaths = (tt: Timetable) => {
  const out: { from: number; to: number; dist: number; walk: number; source: number }[] = [];
  const c = tt.core;
  for (let s = 0; s < c.nStops; s++) for (let k = c.footStart[s]!; k < c.footStart[s + 1]!; k++) out.push({ from: s, to: c.footTo[k]!, dist: c.footDistM[k]!, walk: c.footWalkM[k]!, source: tt.meta.footSource[k]! });
  return out;
};

beforeAll(async () => {
  const without = await importedDataset("pdx-plain", ["trimet-2routes"]);
  plain = loadTimetableFile(join(without, readManifest(without).timetable!.path));
  // the same feed, then the streets (importStreets switches them; the CLI then refreshes the timetable)
  dir = await streetDataset("pdx", ["portland-small"], [], ["trimet-2routes"]);
  expect(await refreshTimetable(dir)).toBe("compiled");
  onStreets = loadTimetableFile(join(dir, readManifest(dir).timetable!.path));
});

describe("footpaths on the streets", () => {
  test("the timetable names the street dataset; its file is another than the straight-line one", () => {
    const m = readManifest(dir);
    const streets = activeStreets(m)!;
    expect(m.timetable!.streets_sha1).toBe(streets.sha1);
    expect(onStreets.meta.streetsSha1).toBe(streets.sha1);
    expect(plain.meta.streetsSha1).toBe("");
    expect(m.timetable!.path).toBe(timetableRelPath(m.timetable!.active_sha1s, undefined, streets.sha1));
    expect(m.timetable!.path).not.toBe(timetableRelPath(m.timetable!.active_sha1s));
  });

  test("measured footpaths are no shorter than the straight line; stops off the streets keep straight lines", () => {
    const fs = footpaths(onStreets);
    const measured = fs.filter((f) => f.source === FOOT_SOURCE.streets);
    expect(measured.length).toBeGreaterThan(100);
    const { stopLat: lat, stopLon: lon, stopName } = onStreets.meta;
    for (const f of measured) expect(f.dist).toBeGreaterThanOrEqual(haversineM(lat[f.from]!, lon[f.from]!, lat[f.to]!, lon[f.to]!) - 1);
    // some walk is clearly longer than the crow flies (a street grid, a freeway to go around)
    expect(measured.some((f) => f.dist > 1.3 * haversineM(lat[f.from]!, lon[f.from]!, lat[f.to]!, lon[f.to]!))).toBe(true);
    // Gateway/NE 99th Ave lies east of the extract's walkable ways: its footpaths stay straight lines
    const gateway = fs.filter((f) => stopName[f.from]!.startsWith("Gateway/NE 99th"));
    expect(gateway.length).toBeGreaterThan(0);
    for (const f of gateway) {
      expect(f.source).not.toBe(FOOT_SOURCE.streets);
      if (f.source === FOOT_SOURCE.straightLine) expect(f.dist).toBeCloseTo(haversineM(lat[f.from]!, lon[f.from]!, lat[f.to]!, lon[f.to]!), 3);
    }
  });

  test("every footpath of the plain timetable is kept, measured, or dropped as not connected; transfers.txt's are all kept", () => {
    const key = (tt: Timetable, f: { from: number; to: number }) => `${tt.meta.stopId[f.from]}>${tt.meta.stopId[f.to]}`;
    const before = new Map(footpaths(plain).map((f) => [key(plain, f), f]));
    const after = new Map(footpaths(onStreets).map((f) => [key(onStreets, f), f]));
    for (const k of after.keys()) expect(before.has(k)).toBe(true);
    for (const [k, f] of before) if (f.source === FOOT_SOURCE.transfersTxt) expect(after.get(k)?.source).toBe(FOOT_SOURCE.transfersTxt);
    expect([...before.values()].every((f) => f.source !== FOOT_SOURCE.streets)).toBe(true);
  });

  test("a footpath on the streets takes the engine's walking time, scaled to the walking speed (not its length / speed)", async () => {
    const fs = footpaths(onStreets).filter((f) => f.source === FOOT_SOURCE.streets);
    const actor = await openStreetActor(dir, activeStreets(readManifest(dir))!);
    const { stopLat: lat, stopLon: lon } = onStreets.meta;
    // the engine's own route between the two stops, at 1.2 m/s (4.32 km/h)
    const speed = 1.2;
    let slower = 0;
    for (const f of fs.slice(0, 40)) {
      const q = { locations: [{ lat: lat[f.from]!, lon: lon[f.from]! }, { lat: lat[f.to]!, lon: lon[f.to]! }], costing: "pedestrian", costing_options: { pedestrian: { walking_speed: speed * 3.6 } } };
      const route = JSON.parse(await actor.route!(JSON.stringify(q))) as { trip: { summary: { time: number } } };
      const engineSec = route.trip.summary.time;
      const footSec = f.walk / speed;
      // the matrix at import and the route now measure the same walk: within 2 % or 2 s
      expect(Math.abs(footSec - engineSec)).toBeLessThanOrEqual(Math.max(2, 0.02 * engineSec));
      if (f.walk > f.dist * 1.02) slower++;
    }
    // the engine's time is more than length / speed on some walks (crossings, turns): the defect was to use length / speed
    expect(slower).toBeGreaterThan(0);
    // never quicker than walking the straight line at the reference speed
    for (const f of fs) expect(f.walk).toBeGreaterThanOrEqual(haversineM(lat[f.from]!, lon[f.from]!, lat[f.to]!, lon[f.to]!) - 1e-6);
  }, 120_000);

  test("a refresh with the same feeds and streets changes nothing", async () => {
    expect(await refreshTimetable(dir)).toBe("unchanged");
  });
});
