/**
 * FEATURE UNDER TEST: which catalog entity an alert lands on (the reference rules, by the kind of
 * informed entity), and the active-period filter. Hand-made alert feeds encoded with
 * gtfs-realtime-bindings, ingested for bart.zip, served by the real server.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { alertEntity, Clock, datasetCopy, encodeFeed, feedIdOf, ingester, rtServer, type RtServer, statusOf } from "./support.ts";

const H = 1_700_000_000; // header timestamp of the hand-made feeds
const TRIP = "3610458WKDY"; // a route 1 (Yellow) trip of bart.zip

/** One alert per selector shape, in feed order. */
const KINDS = [
  alertEntity("A", [{ agencyId: "BART" }]),
  alertEntity("R", [{ routeId: "1" }]),
  alertEntity("RD", [{ routeId: "3", directionId: 0 }]),
  alertEntity("T", [{ trip: { tripId: TRIP } }]),
  alertEntity("TR", [{ agencyId: "BART", routeId: "1", trip: { tripId: TRIP, routeId: "1" } }]),
  alertEntity("S", [{ stopId: "12TH" }]),
  alertEntity("SR", [{ agencyId: "BART", routeId: "1", stopId: "16TH" }]),
  alertEntity("U", [{ agencyId: "BART", stopId: "NOPE" }, { trip: { tripId: "NOPE-TRIP" } }, { routeId: "NOPE-ROUTE" }]),
  alertEntity("M", [{ routeType: 1 }]),
  alertEntity("X", [{ routeId: "1" }, { routeId: "1", directionId: 1 }, { stopId: "12TH" }], {
    cause: "STRIKE", effect: "REDUCED_SERVICE", severityLevel: "SEVERE",
    url: { translation: [{ text: "https://example.org/x", language: "en" }] },
    descriptionText: { translation: [{ text: "details", language: "en" }, { text: "détails", language: "fr" }] },
    ttsHeaderText: { translation: [{ text: "spoken header" }] },
    ttsDescriptionText: { translation: [{ text: "spoken details", language: "en" }] },
    activePeriod: [{ start: H - 10 }],
  }),
];
const names = (alerts: any[]) => alerts.map((a) => a.header_text[0].text.replace("alert ", ""));

let data: string;
let feed: string;
let s: RtServer;
const clock = new Clock(H * 1000);

beforeAll(async () => {
  data = await datasetCopy("alert-rules", ["bart"]);
  feed = feedIdOf(data, "bart");
  const ing = await ingester(data, "poller");
  try {
    const [r] = await ing.ingest(feed, "alerts", encodeFeed(H, KINDS), "hand-made", new Date(H * 1000));
    expect(r!.outcome).toBe("accepted");
  } finally {
    ing.close();
  }
  s = await rtServer(data, clock);
});
afterAll(() => s?.stop());

const routeTrips = (route: string, q: string) => s.json(`/api/v2/rest/routes/${encodeURIComponent(`${feed}:${route}`)}/trips?${q}`);

describe("an alert on every kind of entity", () => {
  test("trip, route and agency alerts on a trip of route 1", async () => {
    const [t] = (await routeTrips("1", `trip_id=${TRIP}&include_alerts=true`)).trips;
    expect(names(t.alerts)).toEqual(["T", "TR"]); // a selector with a trip is the trip's only
    expect(names(t.route.alerts)).toEqual(["R", "X"]); // X once, though two selectors name route 1
    expect(names(t.route.agency.alerts)).toEqual(["A"]); // not SR or U: they name a stop too
    const others = (await routeTrips("1", "limit=20&include_alerts=true")).trips.filter((x: any) => x.trip_id !== TRIP);
    for (const o of others) {
      expect(o.alerts).toEqual([]);
      expect(names(o.route.alerts)).toEqual(["R", "X"]);
    }
    const [r3] = (await routeTrips("3", "limit=1&include_alerts=true")).trips;
    expect(names(r3.route.alerts)).toEqual(["RD"]); // a direction_id does not narrow it to nothing
    expect(r3.alerts).toEqual([]);
  });

  test("stop alerts on the stops and on the stops inside stop_times", async () => {
    const stop = async (id: string) => (await s.json(`/api/v2/rest/stops/${encodeURIComponent(`${feed}:${id}`)}?include_alerts=true`)).stops[0].alerts;
    expect(names(await stop("12TH"))).toEqual(["S", "X"]);
    expect(names(await stop("16TH"))).toEqual(["SR"]);
    expect(await stop("MONT")).toEqual([]);
    const list = await s.json(`/api/v2/rest/stops?feed_onestop_id=${feed}&include_alerts=true&limit=100`);
    const byId = new Map<string, any>(list.stops.map((x: any) => [x.stop_id, x]));
    expect(names(byId.get("12TH").alerts)).toEqual(["S", "X"]);
    expect(byId.get("19TH").alerts).toEqual([]);
    const lines = (await (await s.get(`/api/v2/rest/stops.geojsonl?feed_onestop_id=${feed}&include_alerts=true`)).text()).trim().split("\n").map((l) => JSON.parse(l));
    expect(names(lines.find((f) => f.properties.stop_id === "16TH").properties.alerts)).toEqual(["SR"]);

    const [listed] = (await routeTrips("1", `trip_id=${TRIP}`)).trips;
    const [one] = (await s.json(`/api/v2/rest/routes/${encodeURIComponent(`${feed}:1`)}/trips/${listed.id}?include_alerts=true`)).trips;
    const at = (id: string) => one.stop_times.find((x: any) => x.stop.stop_id === id).stop.alerts;
    expect(names(at("12TH"))).toEqual(["S", "X"]);
    expect(names(at("16TH"))).toEqual(["SR"]);
    expect(at("24TH")).toEqual([]);
  });

  test("every field of the Alert object, translations included", async () => {
    const [t] = (await routeTrips("1", `trip_id=${TRIP}&include_alerts=true`)).trips;
    expect(t.route.alerts[1]).toEqual({
      cause: "STRIKE",
      effect: "REDUCED_SERVICE",
      severity_level: "SEVERE",
      url: [{ language: "en", text: "https://example.org/x" }],
      header_text: [{ language: "en", text: "alert X" }],
      description_text: [{ language: "en", text: "details" }, { language: "fr", text: "détails" }],
      tts_header_text: [{ language: null, text: "spoken header" }],
      tts_description_text: [{ language: "en", text: "spoken details" }],
      active_period: [{ start: H - 10, end: null }],
    });
    expect(t.route.alerts[0]).toEqual({
      cause: null, effect: null, severity_level: null, url: null, header_text: [{ language: "en", text: "alert R" }],
      description_text: [], tts_header_text: null, tts_description_text: null, active_period: null,
    });
  });

  test("unknown ids are reported, attached to nothing, and kept in the Parquet", async () => {
    const cur = statusOf(data, feed).kinds.alerts!.current!;
    expect(cur.unknown).toEqual({
      count: 3,
      by_field: { stop_id: 1, trip_id: 1, route_id: 1 },
      examples: ["entity U: stop_id NOPE", "entity U: trip_id NOPE-TRIP", "entity U: route_id NOPE-ROUTE"],
    });
    expect(cur.unattached_alerts).toBe(2); // U (unknown ids) and M (mode-wide: no rule attaches it)
    const h = (await s.json("/health")) as any;
    expect(h.features.realtime.feeds[feed].alerts.snapshot.unknown.count).toBe(3);
    expect(h.features.realtime.feeds[feed].alerts.alerts).toBe(KINDS.length);
  });
});

describe("active periods", () => {
  const P = [
    alertEntity("P0-none", [{ agencyId: "BART" }]),
    alertEntity("P1-open-start", [{ agencyId: "BART" }], { activePeriod: [{ end: H + 1000 + 100 }] }),
    alertEntity("P2-open-end", [{ agencyId: "BART" }], { activePeriod: [{ start: H + 1000 + 100 }] }),
    alertEntity("P3-several", [{ agencyId: "BART" }], { activePeriod: [{ start: H + 1000 - 1000, end: H + 1000 - 500 }, { start: H + 1000 + 500, end: H + 1000 + 600 }] }),
    alertEntity("P4-past", [{ agencyId: "BART" }], { activePeriod: [{ start: H + 1000 - 1000, end: H + 1000 - 1 }] }),
  ];
  const H2 = H + 1000;
  const agencyAlerts = async (q: string) => names((await routeTrips("1", `limit=1&${q}`)).trips[0].route.agency.alerts);

  beforeAll(async () => {
    const ing = await ingester(data, "poller");
    try {
      const [r] = await ing.ingest(feed, "alerts", encodeFeed(H2, P), "hand-made", new Date(H2 * 1000));
      expect(r!.outcome).toBe("accepted");
    } finally {
      ing.close();
    }
    clock.setS(H2);
    await s.refreshRealtime();
  });

  test("include_alerts lists every alert whatever its periods", async () => {
    expect(await agencyAlerts("include_alerts=true")).toEqual(["P0-none", "P1-open-start", "P2-open-end", "P3-several", "P4-past"]);
  });

  test("active_alerts=true: start inclusive, end exclusive, open ends unbounded, any of several periods", async () => {
    const at = async (t: number) => {
      clock.setS(t);
      return agencyAlerts("active_alerts=true");
    };
    expect(await at(H2 - 100)).toEqual(["P0-none", "P1-open-start", "P4-past"]);
    expect(await at(H2 - 1)).toEqual(["P0-none", "P1-open-start"]);
    expect(await at(H2)).toEqual(["P0-none", "P1-open-start"]);
    expect(await at(H2 + 100)).toEqual(["P0-none", "P2-open-end"]);
    expect(await at(H2 + 500)).toEqual(["P0-none", "P2-open-end", "P3-several"]);
    expect(await at(H2 + 599)).toEqual(["P0-none", "P2-open-end", "P3-several"]);
    expect(await at(H2 + 600)).toEqual(["P0-none", "P2-open-end"]);
  });

  test("the active_period objects: null for an open end", async () => {
    clock.setS(H2);
    const alerts = (await routeTrips("1", "limit=1&include_alerts=true")).trips[0].route.agency.alerts;
    expect(alerts.map((a: any) => a.active_period)).toEqual([
      null,
      [{ start: null, end: H2 + 100 }],
      [{ start: H2 + 100, end: null }],
      [{ start: H2 - 1000, end: H2 - 500 }, { start: H2 + 500, end: H2 + 600 }],
      [{ start: H2 - 1000, end: H2 - 1 }],
    ]);
  });

  test("active_alerts=false is the default and include_alerts=false shows none", async () => {
    const [t] = (await routeTrips("1", "limit=1&include_alerts=false&active_alerts=false")).trips;
    expect(t.alerts).toBeNull();
    expect(t.route.agency.alerts).toEqual([]);
    const bad = await s.get(`/api/v2/rest/routes/${encodeURIComponent(`${feed}:1`)}/trips?active_alerts=maybe`);
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as any).parameter).toBe("active_alerts");
  });
});
