/** FEATURE UNDER TEST: earliest arrival on one route, transfers, same-stop slack, walking transfers. */
import { describe, expect, test } from "bun:test";
import { runScenario, textTimetable } from "../support/text-timetable.ts";

describe("RAPTOR basics", () => {
  const tt = textTimetable(`
    route R1
      A     B     C
      T1 08:00 08:10 08:20
      T2 08:30 08:40 08:50
    route R2
      C     D
      U1 08:15 08:30
      U2 08:25 08:40
      U3 08:55 09:10
    transfer C C 300
  `);

  test("takes the first trip that can be caught", () => {
    expect(runScenario(tt, { from: "A", to: "B", time: "08:05" })).toEqual(["R1 A 08:30 B 08:40"]);
  });

  test("transfers respect the same-stop minimum transfer time", () => {
    expect(runScenario(tt, { from: "A", to: "D", time: "07:50" })).toEqual(["R1 A 08:00 C 08:20, R2 C 08:25 D 08:40"]);
  });

  test("takes the next morning's trips when today's last one has left", () => {
    expect(runScenario(tt, { from: "A", to: "D", time: "09:00" })).toEqual(["R1 A 32:00 C 32:20, R2 C 32:25 D 32:40"]);
  });

  test("walks between nearby stops of different routes", () => {
    const walk = textTimetable(
      `
      stop C 40.0000 -73.0000
      stop X 40.0020 -73.0000
      route R1
        A     C
        T1 08:00 08:20
      route R3
        X     Y
        V1 08:22 08:40
        V2 08:30 08:50
    `,
      400,
    );
    // C to X is ~222 m: 167 s at 1.33 m/s, so 08:22 is missed
    expect(runScenario(walk, { from: "A", to: "Y", time: "07:55" })).toEqual(["R1 A 08:00 C 08:20, walk C-X, R3 X 08:30 Y 08:50"]);
  });
});
