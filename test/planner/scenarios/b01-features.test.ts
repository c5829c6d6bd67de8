/** FEATURE UNDER TEST: overtaking trips, frequencies, trips past 24:00, DST days, Pareto sets, arriveBy, departure windows. */
import { describe, expect, test } from "bun:test";
import { runScenario, textTimetable } from "../support/text-timetable.ts";

describe("RAPTOR timetable features", () => {
  test("an express that overtakes a local is found (routes split where trips overtake)", () => {
    const tt = textTimetable(`
      route R1
        A     B     C
        L1 08:00 08:30 09:00
        X1 08:05 08:15 08:25
    `);
    expect(runScenario(tt, { from: "A", to: "C", time: "07:59" })).toEqual(["R1 A 08:05 C 08:25"]);
    expect(runScenario(tt, { from: "B", to: "C", time: "08:20" })).toEqual(["R1 B 08:30 C 09:00"]);
  });

  test("frequency-based trips are expanded from their template times", () => {
    const tt = textTimetable(`
      route F
        A     B
        T1 08:00 08:10
      freq T1 08:00 09:00 600
    `);
    expect(runScenario(tt, { from: "A", to: "B", time: "08:21" })).toEqual(["F A 08:30 B 08:40"]);
    expect(runScenario(tt, { from: "A", to: "B", time: "08:51" })).toEqual(["F A 32:00 B 32:10"]);
  });

  test("a trip of yesterday's service past 24:00 runs after midnight today", () => {
    const tt = textTimetable(`
      service MON 2024-01-01..2024-12-31 mon
      route N
        A     B
        T1@MON 25:10 25:40
    `);
    // Tuesday 2024-03-05 01:00: Monday's 25:10 trip is Tuesday 01:10
    expect(runScenario(tt, { from: "A", to: "B", time: "01:00", date: "2024-03-05" })).toEqual(["N A 01:10 B 01:40"]);
    // Monday evening: the same trip, printed past 24:00
    expect(runScenario(tt, { from: "A", to: "B", time: "23:00", date: "2024-03-04" })).toEqual(["N A 25:10 B 25:40"]);
  });

  test("the next day's trips are searched where they can still arrive earlier than today's", () => {
    // one route, daily: T1 is a slow trip past midnight; the next day's T2 overtakes it
    const tt = textTimetable(`
      route R
        A     B     C
        T2 00:10 00:20 00:40
        T3 10:05 10:15 10:30
        T1 23:50 24:30 26:00
    `);
    // tomorrow's T2 (24:10) leaves before today's T1 arrives (26:00) and arrives first
    expect(runScenario(tt, { from: "A", to: "C", time: "23:45" })).toEqual(["R A 24:10 C 24:40"]);
    // today's T3 arrives (10:30) before any trip of tomorrow leaves: tomorrow is not scanned
    expect(runScenario(tt, { from: "A", to: "C", time: "10:00" })).toEqual(["R A 10:05 C 10:30"]);
    expect(runScenario(tt, { from: "B", to: "C", time: "10:16" })).toEqual(["R B 24:20 C 24:40"]);
  });

  test("on the spring-forward DST day times count from noon minus 12h", () => {
    const tt = textTimetable(`
      timezone America/New_York
      route D
        A     B
        T1 01:00 04:00
        T2 08:00 08:10
    `);
    expect(runScenario(tt, { from: "A", to: "B", time: "07:50", date: "2024-03-10" })).toEqual(["D A 08:00 B 08:10"]);
    // 01:00 after "noon minus 12h" (23:00 EST) is 00:00 EST; 04:00 is 04:00 EDT (three hours later)
    expect(runScenario(tt, { from: "A", to: "B", time: "23:30", date: "2024-03-09" })).toEqual(["D A 24:00 B 28:00"]);
  });

  test("on the fall-back DST day a trip spanning the change lasts an hour longer", () => {
    const tt = textTimetable(`
      timezone America/New_York
      route D
        A     B
        T1 08:00 09:00
    `);
    expect(runScenario(tt, { from: "A", to: "B", time: "07:00", date: "2024-11-03" })).toEqual(["D A 08:00 B 09:00"]);
  });

  const pareto = textTimetable(`
    route R1
      A     B
      T1 08:00 08:10
    route R2
      B     C
      T2 08:15 08:30
    route R3
      C     D
      T3 08:35 09:00
    route R4
      A     D
      T4 08:05 09:30
  `);

  test("Pareto set: a fast two-transfer journey and a slower direct one", () => {
    expect(runScenario(pareto, { from: "A", to: "D", time: "07:55" })).toEqual([
      "R1 A 08:00 B 08:10, R2 B 08:15 C 08:30, R3 C 08:35 D 09:00",
      "R4 A 08:05 D 09:30",
    ]);
  });

  test("maxTransfers = 1 leaves only the direct trip", () => {
    expect(runScenario(pareto, { from: "A", to: "D", time: "07:55", maxTransfers: 1 })).toEqual(["R4 A 08:05 D 09:30"]);
  });

  test("arriveBy searches backward for the latest departures", () => {
    const tt = textTimetable(`
      route R1
        A     B     C
        T1 07:00 07:10 07:20
        T2 08:00 08:10 08:20
        T3 09:00 09:10 09:20
    `);
    expect(runScenario(tt, { from: "A", to: "C", time: "09:00", arriveBy: true })).toEqual(["R1 A 08:00 C 08:20"]);
    // backward criteria are (later departure, fewer rides): the direct trip leaves later, so it wins
    expect(runScenario(pareto, { from: "A", to: "D", time: "09:40", arriveBy: true })).toEqual(["R4 A 08:05 D 09:30"]);
    expect(runScenario(pareto, { from: "A", to: "D", time: "09:10", arriveBy: true })).toEqual(["R1 A 08:00 B 08:10, R2 B 08:15 C 08:30, R3 C 08:35 D 09:00"]);
  });

  test("a departure window returns the next departures (range RAPTOR)", () => {
    const tt = textTimetable(`
      route R1
        A     B
        T1 08:00 08:20
        T2 08:10 08:30
        T3 08:20 08:40
        T4 08:30 08:50
    `);
    expect(runScenario(tt, { from: "A", to: "B", time: "08:05", windowSec: 1200 })).toEqual([
      "R1 A 08:10 B 08:30",
      "R1 A 08:20 B 08:40",
    ]);
  });
  test("no boarding where no trip picks up, at a route's last stop, or on a trip without pickup there", () => {
    const tt = textTimetable(`
      route X
        A     B     C
        X1 08:00 08:10!p 08:20!p
        X2 09:00 09:10!p 09:20!p
      route M
        A     B     C     D
        M1 08:00 08:10!p 08:20 08:30!d
        M2 08:30 08:40 08:50 09:00!d
      route L
        C     D
        L1 08:25 08:45
      route Z
        D     E
        Z1 08:30 08:40
    `);
    // X never picks up at B (drop-off only): B-C waits for M2, the only trip picking up there
    expect(runScenario(tt, { from: "B", to: "C", time: "08:00" })).toEqual(["M B 08:40 C 08:50"]);
    // riding through B is fine
    expect(runScenario(tt, { from: "A", to: "C", time: "07:59" })).toEqual(["X A 08:00 C 08:20"]);
    // M drops nobody at D (its last stop): D is reached by L, then Z
    expect(runScenario(tt, { from: "A", to: "E", time: "07:59" })).toEqual([]);
    expect(runScenario(tt, { from: "C", to: "E", time: "08:00" })).toEqual([]);
    expect(runScenario(tt, { from: "C", to: "D", time: "08:00" })).toEqual(["L C 08:25 D 08:45"]);
    // backward (mirrored core: pickup and drop-off swap)
    expect(runScenario(tt, { from: "B", to: "C", time: "09:00", arriveBy: true })).toEqual(["M B 08:40 C 08:50"]);
    expect(runScenario(tt, { from: "A", to: "C", time: "08:25", arriveBy: true })).toEqual(["X A 08:00 C 08:20"]);
  });
});
