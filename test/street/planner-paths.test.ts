/**
 * FEATURE UNDER TEST: the street paths the planner asks for (server/street/paths.ts over the real
 * embedded engine, server/street/walk-steps.ts): one-to-many reach with snapping and the retry
 * without a target off the streets, and paths as OTP1 WalkSteps with elevation, on Monaco's streets
 * and elevation (N43E007) and on San Francisco's (no elevation there).
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { EmbeddedEngine } from "../../server/street/embedded.ts";
import { streetPaths } from "../../server/street/paths.ts";
import { STREET_SNAP_M } from "../../pipeline/schema/street.ts";
import type { StreetPaths } from "../../server/street-paths.ts";
import { haversineM } from "../../shared/geo.ts";
import { streetDataset } from "../support/dataset.ts";

const quiet = { info() {}, warn() {}, error() {} };
let engine: EmbeddedEngine;
let paths: StreetPaths;

// Monaco: the port (Quai Albert 1er), the palace square on the Rock, a point in the sea
const PORT = { lat: 43.7355, lon: 7.4222 };
const PALACE = { lat: 43.7312, lon: 7.4199 };
const CASINO = { lat: 43.7394, lon: 7.4282 };
const SEA = { lat: 43.725, lon: 7.445 };
const RELATIVE = ["DEPART", "HARD_LEFT", "LEFT", "SLIGHTLY_LEFT", "CONTINUE", "SLIGHTLY_RIGHT", "RIGHT", "HARD_RIGHT", "CIRCLE_CLOCKWISE", "CIRCLE_COUNTERCLOCKWISE", "ELEVATOR", "UTURN_LEFT", "UTURN_RIGHT"];
const ABSOLUTE = ["NORTH", "NORTHEAST", "EAST", "SOUTHEAST", "SOUTH", "SOUTHWEST", "WEST", "NORTHWEST"];

beforeAll(async () => {
  const dir = await streetDataset("monaco-sf", ["monaco", "sf-downtown"], ["N43E007.hgt.gz"]);
  engine = new EmbeddedEngine({ dataDir: dir, allowHardExclusions: false, log: quiet });
  await engine.reload();
  paths = streetPaths(engine, () => true);
}, 300_000); // builds the street dataset, then starts an engine process

describe("reach: one origin, many places, on the streets", () => {
  test("meters on foot are never shorter than the straight line, seconds follow the walking speed", async () => {
    const r = await paths.reach(PORT, [PALACE, CASINO], { mode: "WALK", speedMps: 1.2 }, "from");
    expect(r).not.toBeNull();
    for (const [i, p] of [PALACE, CASINO].entries()) {
      const x = r![i]!;
      expect(x).not.toBeNull();
      expect(x.meters).toBeGreaterThanOrEqual(haversineM(PORT.lat, PORT.lon, p.lat, p.lon) - 1);
      // Valhalla adds turn and crossing costs to the time: never less than distance / speed
      expect(x.sec).toBeGreaterThanOrEqual(Math.floor(x.meters / 1.2));
    }
    const slow = await paths.reach(PORT, [PALACE], { mode: "WALK", speedMps: 0.6 }, "from");
    expect(slow![0]!.sec).toBeGreaterThan(r![0]!.sec * 1.5);
  });

  test("a target off the streets is null and the others are still measured; an origin off the streets is no answer", async () => {
    const r = await paths.reach(PORT, [PALACE, SEA, CASINO], { mode: "WALK" }, "from");
    expect(r![1]).toBeNull();
    expect(r![0]).not.toBeNull();
    expect(r![2]).not.toBeNull();
    expect(await paths.reach(SEA, [PALACE], { mode: "WALK" }, "from")).toBeNull();
  });

  test("`to` measures from each place to the origin", async () => {
    const to = await paths.reach(PALACE, [PORT], { mode: "WALK" }, "to");
    const from = await paths.reach(PORT, [PALACE], { mode: "WALK" }, "from");
    expect(to![0]!.meters).toBeCloseTo(from![0]!.meters, -1);
  });

  test(`a place farther than ${STREET_SNAP_M} m from any street does not snap to a faraway one`, async () => {
    // 1.5 km out at sea, south of the Rock: without the cut-off Valhalla snaps it to the shore road
    expect(await paths.path({ lat: 43.716, lon: 7.423 }, PALACE, { mode: "WALK" })).toBeNull();
  });
});

describe("path: a street leg as OTP1 WalkSteps", () => {
  test("steps in OTP1's enums, starting with DEPART, on the path, their distances adding up to the leg", async () => {
    const p = (await paths.path(PORT, PALACE, { mode: "WALK", speedMps: 1.33 }))!;
    expect(p).not.toBeNull();
    expect(p.steps[0]!.relativeDirection).toBe("DEPART");
    for (const s of p.steps) {
      expect(RELATIVE).toContain(s.relativeDirection);
      expect(ABSOLUTE).toContain(s.absoluteDirection);
      expect(typeof s.streetName).toBe("string");
      expect(s.streetName.length).toBeGreaterThan(0);
      if (s.bogusName) expect(["path", "steps", "escalator", "elevator"]).toContain(s.streetName);
      // each step starts on the leg's geometry
      expect(p.points.some(([la, lo]) => Math.abs(la - s.lat) < 1e-6 && Math.abs(lo - s.lon) < 1e-6)).toBe(true);
    }
    const sum = p.steps.reduce((n, s) => n + s.distance, 0);
    expect(Math.abs(sum - p.meters)).toBeLessThan(Math.max(2, p.meters * 0.01));
    expect(p.points[0]![0]).toBeCloseTo(PORT.lat, 2);
    expect(p.points[p.points.length - 1]![0]).toBeCloseTo(PALACE.lat, 2);
  });

  test("elevation: the climb from the quay to the palace square (30 m up, the square at about 55 m), profiles per step from 0", async () => {
    const up = (await paths.path(PORT, PALACE, { mode: "WALK" }))!;
    const down = (await paths.path(PALACE, PORT, { mode: "WALK" }))!;
    expect(up.elevationGained).not.toBeNull();
    expect(up.elevationGained! - up.elevationLost!).toBeGreaterThan(20);
    expect(up.elevationGained! - up.elevationLost!).toBeLessThan(70);
    expect(down.elevationLost! - down.elevationGained!).toBeGreaterThan(20);
    const withProfile = up.steps.filter((s) => s.elevation?.length);
    expect(withProfile.length).toBeGreaterThan(0);
    for (const s of withProfile) {
      for (const e of s.elevation!) {
        expect(e.first).toBeGreaterThanOrEqual(0);
        expect(e.first).toBeLessThanOrEqual(s.distance + 10);
        expect(e.second).toBeGreaterThan(-5);
        expect(e.second).toBeLessThan(200);
      }
    }
  });

  test("no elevation data (San Francisco): null gains, no profiles, but steps and geometry", async () => {
    const p = (await paths.path({ lat: 37.7929, lon: -122.3971 }, { lat: 37.7846, lon: -122.4072 }, { mode: "WALK" }))!;
    expect(p.elevationGained).toBeNull();
    expect(p.elevationLost).toBeNull();
    expect(p.steps.every((s) => s.elevation === undefined)).toBe(true);
    expect(p.steps.length).toBeGreaterThan(2);
    expect(p.steps.some((s) => s.streetName === "Mission Street")).toBe(true);
  });

  test("bicycle and car paths: faster than walking the same way", async () => {
    const from = { lat: 37.7929, lon: -122.3971 }, to = { lat: 37.7846, lon: -122.4072 };
    const walk = (await paths.path(from, to, { mode: "WALK" }))!;
    const bike = (await paths.path(from, to, { mode: "BICYCLE", speedMps: 5 }))!;
    const car = (await paths.path(from, to, { mode: "CAR" }))!;
    expect(bike.sec).toBeLessThan(walk.sec);
    expect(car.sec).toBeLessThan(walk.sec);
    expect(car.steps.every((s) => s.bogusName ? s.streetName === "road" : true)).toBe(true);
  });

  test("no engine: no path and no reach (the planner falls back to straight lines)", async () => {
    const none = streetPaths(engine, () => false);
    expect(await none.path(PORT, PALACE, { mode: "WALK" })).toBeNull();
    expect(await none.reach(PORT, [PALACE], { mode: "WALK" }, "from")).toBeNull();
  });
});
