/**
 * FEATURE UNDER TEST: GraphQL plans on street networks, built by the real import: core-utils 16's
 * planQuery.graphql (variables from generateOtp2Query) answers as the OTP1 REST API does for the
 * same trip: itineraries, legs, the street legs' geometry, distances and steps, each step's
 * elevation as OTP2's elevationProfile, fares (support/plan-compare.ts).
 * - Portland: TriMet's two routes, Portland's streets, the NED elevation tile (steps with elevation);
 * - Mannheim/Heidelberg: rnv's trams and buses on its streets (no elevation data).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { streetDataset } from "../support/dataset.ts";
import { refreshTimetable } from "../../pipeline/timetable/publish.ts";
import { startServer, type RunningServer } from "../../server/main.ts";
import { serverConfigFrom } from "../../server/config.ts";
import { compareWithRest } from "./support/plan-compare.ts";

const log = { info() {}, warn() {}, error: (m: string, f?: unknown) => console.error(m, f) };
async function serve(name: string, extracts: string[], elevation: string[], feeds: string[]): Promise<RunningServer> {
  const dir = await streetDataset(name, extracts, elevation, feeds);
  await refreshTimetable(dir); // footpaths on these streets (the CLI does this after an import)
  return startServer(serverConfigFrom({ data: dir, port: 0, host: "127.0.0.1", noAuth: true }), { log });
}

describe("Portland, with elevation", () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await serve("pdx-gql-plans", ["portland-small"], ["portland-ned.tif"], ["trimet-2routes"]);
  }, 600_000);
  afterAll(() => server?.stop());

  test("Pioneer Courthouse Square -> Lloyd Center", async () => {
    const r = await compareWithRest(server.url, { from: { name: "Pioneer Courthouse Square", lat: 45.5189, lon: -122.679 }, to: { name: "Lloyd Center", lat: 45.5306, lon: -122.6532 }, date: "2021-11-16", time: "10:00" });
    expect(r.itineraries).toBeGreaterThan(0);
    // the NED tile covers these streets: steps carry elevation
    expect(r.elevatedSteps).toBeGreaterThan(0);
  }, 120_000);
});

describe("Mannheim and Heidelberg (rnv)", () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await serve("rnv-gql-plans", ["rnv-mannheim-heidelberg"], [], ["rnv"]);
  }, 900_000);
  afterAll(() => server?.stop());

  const TRIPS = [
    { name: "Mannheim Hbf -> Heidelberg Bismarckplatz, weekday morning", from: { name: "Mannheim Hbf", lat: 49.4795, lon: 8.4695 }, to: { name: "Bismarckplatz", lat: 49.4093, lon: 8.6934 }, date: "2016-11-16", time: "08:00" },
    { name: "Paradeplatz -> Neckarau, Saturday", from: { name: "Paradeplatz", lat: 49.4874, lon: 8.4664 }, to: { name: "Neckarau", lat: 49.456, lon: 8.4906 }, date: "2016-11-19", time: "14:30" },
  ];
  for (const trip of TRIPS) {
    test(trip.name, async () => {
      const r = await compareWithRest(server.url, trip);
      expect(r.itineraries).toBeGreaterThan(0);
      expect(r.steps).toBeGreaterThan(0);
    }, 120_000);
  }
});
