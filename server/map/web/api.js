// The public API, as the page calls it: every request to /api/ carries the `apikey` header (the key
// typed into the page, kept in localStorage, or passed as ?apikey= in the page's URL).

const KEY_STORE = "interchange.apikey";

export class ApiError extends Error {
  constructor(status, message, body) {
    super(message);
    this.status = status;
    this.body = body;
  }
}

/**
 * A list's `meta.next` as a path: it is relative, or a full URL when the server has a public URL;
 * its path is followed (the page may sit behind a proxy with another host name).
 */
const relative = (next) => (({ pathname, search }) => pathname + search)(new URL(next, location.href));

/** A GTFS-Realtime alert (protobuf JSON mapping) in the catalog's form (docs/api-realtime.md). */
function catalogAlert(a) {
  const texts = (t) => (t?.translation ?? []).map((x) => ({ language: x.language ?? null, text: x.text ?? "" }));
  return {
    cause: a.cause ?? null, effect: a.effect ?? null, severity_level: a.severityLevel ?? null,
    header_text: texts(a.headerText), description_text: texts(a.descriptionText),
    active_period: a.activePeriod?.length ? a.activePeriod.map((p) => ({ start: p.start === undefined ? null : Number(p.start), end: p.end === undefined ? null : Number(p.end) })) : null,
  };
}

export class Api {
  constructor(base = "") {
    this.base = base;
    const fromUrl = new URLSearchParams(location.search).get("apikey");
    if (fromUrl) localStorage.setItem(KEY_STORE, fromUrl);
    this.key = localStorage.getItem(KEY_STORE) ?? "";
  }

  setKey(key) {
    this.key = key.trim();
    if (this.key) localStorage.setItem(KEY_STORE, this.key);
    else localStorage.removeItem(KEY_STORE);
  }

  headers(extra = {}) {
    return this.key ? { apikey: this.key, ...extra } : extra;
  }

  async request(path, init = {}) {
    let res;
    // a rate limit (the account's, 429 with Retry-After; or the nginx edge's per-address one): wait and retry
    for (let attempt = 0; ; attempt++) {
      res = await fetch(this.base + path, { ...init, headers: this.headers(init.headers) });
      if (res.status !== 429 || attempt >= 5) break;
      const after = Number(res.headers.get("retry-after"));
      await new Promise((r) => setTimeout(r, 1000 * Math.min(10, Number.isFinite(after) && after > 0 ? after : attempt + 1)));
    }
    if (!res.ok) {
      const text = await res.text();
      let body = null;
      try {
        body = JSON.parse(text);
      } catch { /* plain text (429, 503) */ }
      const msg = body?.error?.msg ?? body?.error?.message ?? (typeof body?.error === "string" ? body.error : null) ?? text.slice(0, 300);
      throw new ApiError(res.status, res.status === 401 ? `API key needed or not valid: ${msg}` : `${res.status}: ${msg}`, body);
    }
    return res;
  }

  async get(path) {
    return (await this.request(path)).json();
  }

  async post(path, body) {
    return (await this.request(path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) })).json();
  }

  // ---- the calls the page makes

  /** One page of stops of the catalog's stops list (`params`: its filters), with `meta.next`. */
  stops(params) {
    return this.get(`/api/v2/rest/stops?${new URLSearchParams(params)}`);
  }

  /**
   * The stops of `location_type` 0 of a catalog area search (`area`: {lat, lon, radius} or {bbox}),
   * every page (they come in id order); null when the area holds more than `cap` of them.
   */
  async stopsIn(area, cap) {
    const out = [];
    let next = `/api/v2/rest/stops?${new URLSearchParams({ ...area, location_type: "0", limit: "1000" })}`;
    while (next) {
      if (out.length >= cap) return null;
      const body = await this.get(next);
      out.push(...body.stops);
      next = body.meta?.next ? relative(body.meta.next) : null;
    }
    return out.length > cap ? null : out;
  }

  /**
   * The active alerts of the realtime feeds, by what they name: `stops` (stop key
   * `<feed onestop id>:<stop_id>`, the tiles' gtfsId -> {alerts}), `routes` (route key
   * `<feed onestop id>:<route_id>`, the tiles' route gtfsId -> alerts) and `agencies`
   * (`<feed onestop id>:<agency_id>` -> alerts). From each realtime feed whose alerts snapshot is
   * served (the server's /health details say which), its current snapshot
   * (`download_latest_rt/alerts.json`, the GTFS-Realtime FeedMessage), read by the catalog's rules
   * (docs/api-realtime.md, "Alerts in the catalog"): an informed entity without trip names the stop
   * of its stop_id; without trip and stop_id, the route of its route_id; without trip, route_id and
   * stop_id, the agency of its agency_id. Deleted entities and alerts not active at `nowMs` are
   * left out; an alert is listed once per thing it names. The alerts in the catalog's form
   * (header_text, description_text, cause, effect, active_period).
   */
  async activeAlerts(nowMs) {
    const health = await this.get("/health");
    const feeds = Object.entries(health.features?.realtime?.feeds ?? {}).filter(([, kinds]) => kinds?.alerts?.serving).map(([feed]) => feed);
    const out = { stops: new Map(), routes: new Map(), agencies: new Map() };
    const nowS = nowMs / 1000;
    const messages = await Promise.all(feeds.map((feed) => this.get(`/api/v2/rest/feeds/${encodeURIComponent(feed)}/download_latest_rt/alerts.json`).catch(() => null)));
    for (const [i, feed] of feeds.entries()) {
      const msg = messages[i];
      if (!msg) continue; // not readable (e.g. a licence that forbids redistribution): nothing of it is marked
      for (const e of msg.entity ?? []) {
        const a = e.alert;
        if (!a || e.isDeleted) continue;
        const periods = a.activePeriod ?? [];
        if (periods.length && !periods.some((p) => (p.start === undefined || Number(p.start) <= nowS) && (p.end === undefined || nowS < Number(p.end)))) continue;
        const alert = catalogAlert(a);
        const named = { stops: new Set(), routes: new Set(), agencies: new Set() };
        for (const ie of a.informedEntity ?? []) {
          if (ie.trip) continue;
          if (ie.stopId) named.stops.add(`${feed}:${ie.stopId}`);
          else if (ie.routeId) named.routes.add(`${feed}:${ie.routeId}`);
          else if (ie.agencyId) named.agencies.add(`${feed}:${ie.agencyId}`);
        }
        for (const key of named.stops) {
          if (!out.stops.has(key)) out.stops.set(key, { alerts: [] });
          out.stops.get(key).alerts.push(alert);
        }
        for (const kind of ["routes", "agencies"]) {
          for (const key of named[kind]) {
            if (!out[kind].has(key)) out[kind].set(key, []);
            out[kind].get(key).push(alert);
          }
        }
      }
    }
    return out;
  }

  /**
   * One route by its key (`<feed onestop id>:<route_id>`, the tiles' gtfsId), with its agency's
   * name, without geometry and served stops; null when the catalog has none.
   */
  async route(routeKey) {
    const body = await this.get(`/api/v2/rest/routes?route_key=${encodeURIComponent(String(routeKey))}&include_geometry=false&include_stops=false&limit=1`);
    return body.routes[0] ?? null;
  }

  /** One agency by its key (`<feed onestop id>:<agency_id>`); null when the catalog has none. */
  async agency(agencyKey) {
    const body = await this.get(`/api/v2/rest/agencies?agency_key=${encodeURIComponent(String(agencyKey))}&limit=1`);
    return body.agencies[0] ?? null;
  }

  /** Trips of a route on a date (geojson: with their shapes), up to 1000. */
  routeTrips(routeKey, date, extra = "") {
    return this.get(`/api/v2/rest/routes/${encodeURIComponent(routeKey)}/trips.geojson?service_date=${date}&use_service_window=false&limit=1000${extra}`);
  }

  /** The routes serving a stop (a station: with its platforms), by the stop's key; without geometry and stops. */
  async routesOfStop(stopKey) {
    const body = await this.get(`/api/v2/rest/routes?stop_key=${encodeURIComponent(String(stopKey))}&include_geometry=false&include_stops=false&limit=1000`);
    return body.routes;
  }

  /**
   * A stop's departures (and its platforms', for a station) on a calendar date from a time, for
   * the next `hours`, with realtime delays where a trip update has them: one request. `stopKey`: a
   * catalog stop key (integer id or `<feed onestop id>:<stop_id>`); the answer carries the stop's
   * document (and its children's) with their active alerts.
   */
  departures(stopId, date, time, hours = 6, limit = 12) {
    const [h, m] = time.split(":").map(Number);
    const end = Math.min(99 * 60 + 59, h * 60 + m + hours * 60);
    const hm = (x) => `${String(Math.floor(x / 60)).padStart(2, "0")}:${String(x % 60).padStart(2, "0")}:00`;
    return this.get(`/api/v2/rest/stops/${encodeURIComponent(String(stopId))}/departures?date=${date}&start_time=${hm(h * 60 + m)}&end_time=${hm(end)}&use_service_window=false&limit=${limit}&active_alerts=true`);
  }

  /** One trip with its stop_times (realtime delays where present) and its alerts. */
  async trip(routeKey, id) {
    const body = await this.get(`/api/v2/rest/routes/${encodeURIComponent(routeKey)}/trips/${id}?include_alerts=true&active_alerts=true`);
    return body.trips[0];
  }

  plan(params) {
    return this.get(`/api/v2/routing/otp/plan?${new URLSearchParams(params)}`);
  }

  reachability(params) {
    return this.get(`/api/v2/routing/otp/reachability?${new URLSearchParams(params)}`);
  }

  /** Travel times from one origin to up to 500 destinations over a departure window (POST /api/v2/analysis/travel-times). */
  travelTimes(body) {
    return this.post("/api/v2/analysis/travel-times", body);
  }

  isochrone(body) {
    return this.post("/api/v2/routing/valhalla/isochrone", body);
  }
}

// ---- the geocoder (Pelias API, /v1/autocomplete) for the search box ---------------------------------
// placeSuggestions returns the Pelias features ({label, name, layer, gid, sourceId, gtfs, lon, lat})
// of the given layers (all when null): the stops and stations the search box lists, then the places.
export const GEOCODER_ENABLED = true;
export async function placeSuggestions(api, text, focus = null, layers = null, size = 10) {
  if (!GEOCODER_ENABLED || !text.trim()) return [];
  const q = new URLSearchParams({ text: text.slice(0, 200), size: String(size) });
  if (layers) q.set("layers", layers);
  if (focus) {
    q.set("focus.point.lat", String(focus.lat));
    q.set("focus.point.lon", String(focus.lon));
  }
  const res = await api.request(`/v1/autocomplete?${q}`);
  const body = await res.json();
  return (body.features ?? []).map((f) => ({
    label: f.properties?.label ?? f.properties?.name ?? "",
    name: f.properties?.name ?? "",
    layer: f.properties?.layer ?? null,
    gid: f.properties?.gid ?? null,
    sourceId: f.properties?.source_id ?? null,
    gtfs: f.properties?.addendum?.gtfs ?? null,
    lon: f.geometry.coordinates[0],
    lat: f.geometry.coordinates[1],
  }));
}
