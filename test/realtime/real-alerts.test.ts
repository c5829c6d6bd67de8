/**
 * FEATURE UNDER TEST: real GTFS-Realtime alert feeds, imported with `import-rt`, served by the real
 * server with its static feed: BART's agency-wide alert against bart.zip, Caltrain's 2026 stop alert
 * (one known stop, one unknown) against caltrain.zip; the Parquet snapshots as analysts read them.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { runImportRt } from "../../pipeline/realtime/cli.ts";
import { Clock, datasetCopy, duckRows, feedIdOf, rtFile, rtServer, type RtServer, statusOf } from "./support.ts";

const BART_TS = 1565199942; // bart-alerts.pb header: 2019-08-07T17:45:42Z
const CT_TS = 1771380754; // caltrain-alerts-20260218.pb header
const CT_PERIOD = { start: 1771335198, end: 1771401562 };

const BART_ALERT = {
  cause: "MEDICAL_EMERGENCY",
  effect: "SIGNIFICANT_DELAYS",
  severity_level: null,
  url: [{ language: "en-US", text: "http://www.bart.gov/schedules/advisories" }],
  header_text: [
    {
      language: "en-US",
      text: "There is a major delay at Montgomery St. on the San Francisco Line in the SFO, Millbrae, Daly City and East Bay directions due to a major medical emergency. Montgomery station is currently closed.  Trains are not stopping at Montgomery station. ",
    },
  ],
  description_text: [],
  tts_header_text: null,
  tts_description_text: null,
  active_period: null,
};

let data: string;
let bart: string;
let caltrain: string;
let s: RtServer;
const clock = new Clock((BART_TS + 60) * 1000);
const logged: string[] = [];
const origLog = console.log;

beforeAll(async () => {
  data = await datasetCopy("real-alerts", ["bart", "caltrain"]);
  bart = feedIdOf(data, "bart");
  caltrain = feedIdOf(data, "caltrain");
  console.log = (...a: unknown[]) => void logged.push(a.join(" "));
  try {
    expect(await runImportRt(["--data", data, "--feed-id", bart, "--retention-days", "0", rtFile("bart-alerts.pb")])).toBe(0);
    expect(await runImportRt(["--data", data, "--feed-id", caltrain, "--retention-days", "0", rtFile("caltrain-alerts-20260218.pb")])).toBe(0);
  } finally {
    console.log = origLog;
  }
  s = await rtServer(data, clock, 10 * 365 * 86400); // a long max age: one server serves both captures
});
afterAll(() => s?.stop());

const trips = (feed: string, route: string, q = "") => `/api/v2/rest/routes/${encodeURIComponent(`${feed}:${route}`)}/trips?limit=5${q}`;

describe("BART alerts (bart-alerts.pb) on bart.zip", () => {
  test("import-rt reports the snapshot and writes it where the layout says", () => {
    expect(logged[0]).toContain(`accepted ${rtFile("bart-alerts.pb")} (alerts) -> realtime/alerts/feed_id=${bart}/date=2019-08-07/20190807T174542Z-`);
    expect(logged[0]).toContain("1 entities, 1 rows (current)");
    const st = statusOf(data, bart).kinds.alerts!;
    expect(st.counts).toEqual({ accepted: 1 });
    expect(st.current).toMatchObject({ header_timestamp: BART_TS, entities: 1, rows: 1, unknown: { count: 0, by_field: {}, examples: [] }, unattached_alerts: 0 });
  });

  test("the agency-wide alert is on the agency inside each trip's route, and nowhere else", async () => {
    clock.setS(BART_TS + 60);
    const body = await s.json(trips(bart, "1", "&include_alerts=true"));
    expect(body.trips.length).toBe(5);
    for (const t of body.trips) {
      expect(t.route.agency.alerts).toEqual([BART_ALERT]);
      expect(t.route.alerts).toEqual([]);
      expect(t.alerts).toEqual([]);
    }
    const one = await s.json(`/api/v2/rest/routes/${encodeURIComponent(`${bart}:1`)}/trips/${body.trips[0].id}?include_alerts=true`);
    for (const st of one.trips[0].stop_times) expect(st.stop.alerts).toEqual([]);
    const stops = await s.json(`/api/v2/rest/stops?feed_onestop_id=${bart}&include_alerts=true&limit=100`);
    for (const st of stops.stops) expect(st.alerts).toEqual([]);
  });

  test("without include_alerts: trip alerts null, route and agency lists empty", async () => {
    const body = await s.json(trips(bart, "1"));
    for (const t of body.trips) {
      expect(t.alerts).toBeNull();
      expect(t.route.agency.alerts).toEqual([]);
    }
  });

  test("active_alerts=true keeps it (no active_period = always active) and implies include_alerts", async () => {
    const body = await s.json(trips(bart, "1", "&active_alerts=true"));
    expect(body.trips[0].route.agency.alerts).toEqual([BART_ALERT]);
    expect(body.trips[0].alerts).toEqual([]);
  });

  test("the geojson forms carry the same alerts", async () => {
    const r = await s.get(`/api/v2/rest/routes/${encodeURIComponent(`${bart}:1`)}/trips.geojson?limit=2&include_alerts=true`);
    const fc = (await r.json()) as any;
    expect(fc.features[0].properties.route.agency.alerts).toEqual([BART_ALERT]);
  });
});

describe("Caltrain alert of 2026 (caltrain-alerts-20260218.pb) on caltrain.zip", () => {
  test("the alert is on stop 70051, not on agency CT; the unknown platform SBR-02-NB is reported, not attached", async () => {
    clock.setS(CT_TS + 60);
    // the server started at BART's 2019 time, when this 2026 snapshot was in the future: it is read now
    await s.refreshRealtime();
    const st = statusOf(data, caltrain).kinds.alerts!.current!;
    expect(st.unknown).toEqual({ count: 1, by_field: { stop_id: 1 }, examples: ["entity CT_76f8ccdf-c154-4680-95cd-92ad3014324a: stop_id SBR-02-NB"] });
    expect(st.unattached_alerts).toBe(0);
    const [stop] = (await s.json(`/api/v2/rest/stops/${encodeURIComponent(`${caltrain}:70051`)}?include_alerts=true`)).stops;
    expect(stop.alerts).toHaveLength(1);
    const a = stop.alerts[0];
    expect(a).toEqual({
      cause: "TECHNICAL_PROBLEM",
      effect: null,
      severity_level: "WARNING",
      url: null,
      header_text: [
        { language: "en", text: "Accessibility Update: The northbound San Bruno station elevator is out of service." },
        { language: "es", text: expect.stringContaining("Actualización de accesibilidad") },
        { language: "zh-CN", text: expect.any(String) },
        { language: "vi", text: expect.any(String) },
      ],
      description_text: [{ language: "en", text: "" }],
      tts_header_text: null,
      tts_description_text: null,
      active_period: [CT_PERIOD],
    });
    const other = (await s.json(`/api/v2/rest/stops/${encodeURIComponent(`${caltrain}:70052`)}?include_alerts=true`)).stops[0];
    expect(other.alerts).toEqual([]);
    const t = (await s.json(trips(caltrain, "L1", "&include_alerts=true"))).trips[0];
    expect(t.route.agency.alerts).toEqual([]);
    // a trip that calls at 70051: its stop_times' stop carries the alert
    const list = (await s.json(`/api/v2/rest/routes/${encodeURIComponent(`${caltrain}:L1`)}/trips?limit=50`)).trips;
    let seen = false;
    for (const trip of list) {
      const one = (await s.json(`/api/v2/rest/routes/${encodeURIComponent(`${caltrain}:L1`)}/trips/${trip.id}?include_alerts=true`)).trips[0];
      const at = one.stop_times.find((x: any) => x.stop.stop_id === "70051");
      if (!at) continue;
      expect(at.stop.alerts).toEqual([a]);
      for (const x of one.stop_times) if (x.stop.stop_id !== "70051") expect(x.stop.alerts).toEqual([]);
      seen = true;
      break;
    }
    expect(seen).toBe(true);
  });

  test("active_alerts=true: inside the active period the alert is listed, after its end it is not (include_alerts still lists it)", async () => {
    const path = `/api/v2/rest/stops/${encodeURIComponent(`${caltrain}:70051`)}`;
    clock.setS(CT_PERIOD.end - 1);
    expect((await s.json(`${path}?active_alerts=true`)).stops[0].alerts).toHaveLength(1);
    clock.setS(CT_PERIOD.end); // the end is exclusive
    expect((await s.json(`${path}?active_alerts=true`)).stops[0].alerts).toEqual([]);
    expect((await s.json(`${path}?include_alerts=true`)).stops[0].alerts).toHaveLength(1);
  });
});

describe("the snapshots as Parquet", () => {
  test("a day of snapshots is one DuckDB glob, partitioned by feed and date, entities nested", async () => {
    const rows = await duckRows(
      `SELECT feed_id, date::VARCHAR AS date, header_timestamp, entity_id, cause, effect, severity_level, len(informed_entity) AS selectors,
              [e.stop_id FOR e IN informed_entity] AS stops, flatten([e."unknown" FOR e IN informed_entity]) AS unknown, active_period, header_text[1].language AS lang
       FROM read_parquet('${data}/realtime/alerts/*/*/*.parquet') ORDER BY header_timestamp`,
    );
    expect(rows).toEqual([
      { feed_id: bart, date: "2019-08-07", header_timestamp: String(BART_TS), entity_id: "BSA_187874", cause: "MEDICAL_EMERGENCY", effect: "SIGNIFICANT_DELAYS", severity_level: null, selectors: "1", stops: [null], unknown: [], active_period: [], lang: "en-US" },
      {
        feed_id: caltrain, date: "2026-02-18", header_timestamp: String(CT_TS), entity_id: "CT_76f8ccdf-c154-4680-95cd-92ad3014324a", cause: "TECHNICAL_PROBLEM", effect: null, severity_level: "WARNING",
        selectors: "2", stops: ["70051", "SBR-02-NB"], unknown: ["stop_id"], active_period: [{ start: String(CT_PERIOD.start), end: String(CT_PERIOD.end) }], lang: "en",
      },
    ]);
  });

  test("/health shows each feed's snapshot and counts", async () => {
    clock.setS(CT_TS + 60);
    const h = (await s.json("/health")) as any;
    expect(h.features.realtime.feeds[caltrain].alerts).toMatchObject({ serving: true, alerts: 1, counts: { accepted: 1 }, snapshot: { header_timestamp: CT_TS, age_s: 60, entities: 1 } });
    expect(h.features.realtime.feeds[bart].alerts).toMatchObject({ serving: true, alerts: 1, counts: { accepted: 1 } });
  });
});
