// The Interchange map page: the active dataset on a MapLibre map, explored, planned on and measured
// through the service's public API (api.js). Plain ES modules, no build step; maplibre-gl is served
// by the same server (/map/vendor/), so the page works offline.
import * as maplibregl from "/map/vendor/maplibre-gl.mjs";
import { Api, ApiError, placeSuggestions } from "/map/api.js";
import { clock, clockIn, decodePolyline, distance, duration, esc, routeColor, textOn, translated } from "/map/util.js";

const api = new Api();
const $ = (id) => document.getElementById(id);

/** Colours of stops by GTFS location_type. */
const LOCATION_TYPES = [
  [0, "stop / platform", "#2563eb"],
  [1, "station", "#dc2626"],
  [2, "entrance / exit", "#16a34a"],
  [3, "generic node", "#6b7280"],
  [4, "boarding area", "#9333ea"],
];
/** Below this zoom the stop tiles are thinned to one stop per cell, which carries the cell's count (server/map/tiles.ts THIN_ZOOM). */
const CLUSTER_MAX_ZOOM = 12;
/** The tile layers of stops, by GTFS location_type: stops and platforms, stations, the rest (entrances, nodes, boarding areas). */
const STOP_LAYERS = ["stops", "stations", "entrances"];
const layerOfType = (t) => (t === 1 ? "stations" : t >= 2 ? "entrances" : "stops");
/** The basemap's tile layers, from the street dataset's OSM extract (docs/tiles.md). */
const BASE_LAYERS = "water,waterways,parks,buildings,streets,places";
/** The label font: glyph ranges the server builds from an npm font (/map/fonts/...). */
const FONT = ["Noto Sans Regular"];
/** Isochrone contour colours, innermost first. */
const ISO_COLORS = ["#1a9850", "#91cf60", "#fee08b", "#fc8d59", "#d73027"];
/** Travel-time ramp of the reachability view (fraction of the maximum -> colour). */
const REACH_RAMP = [0, "#1a9850", 0.25, "#91cf60", 0.5, "#fee08b", 0.75, "#fc8d59", 1, "#d73027"];
/** Departures listed for a stop (a station: over its platforms). */
const DEPARTURES_SHOWN = 12;

const state = {
  tab: "explore",
  dataset: null,
  selectedStop: null, // the stop key shown (catalog id, or "<feed onestop id>:<stop_id>", the tiles' gtfsId)
  selectedRoute: null, // the route key shown ("<feed onestop id>:<route_id>", the tiles' gtfsId)
  // the routes read so far (clicked, serving a clicked stop, named by an alert), by route key: no
  // list of every route is read; the lines are drawn from the tiles
  routes: new Map(),
  agencies: new Map(), // agency key ("<feed onestop id>:<agency_id>") -> agency_name, for the alerts list
  from: null,
  to: null,
  plan: null,
  selectedItinerary: 0,
  iso: null,
  reach: null,
  alerts: { stops: new Map(), routes: new Map(), agencies: new Map(), list: [] }, // stops: stop key -> {alerts}; routes, agencies: key -> alerts
  ready: false,
};

// ---------------------------------------------------------------- the map

const empty = () => ({ type: "FeatureCollection", features: [] });

const map = new maplibregl.Map({
  container: "map",
  style: {
    version: 8,
    glyphs: `${location.origin}/map/fonts/{fontstack}/{range}.pbf`,
    sources: {
      // the street background, and the transit layers, as vector tiles of this server (docs/tiles.md)
      base: { type: "vector", tiles: [`${location.origin}/tiles/${BASE_LAYERS}/{z}/{x}/{y}.pbf`], maxzoom: 16 },
      transit: { type: "vector", tiles: [`${location.origin}/tiles/routes,stops,stations,entrances/{z}/{x}/{y}.pbf`], maxzoom: 16, promoteId: "gtfsId" },
      selection: { type: "geojson", data: empty() },
      plan: { type: "geojson", data: empty() },
      iso: { type: "geojson", data: empty() },
      reach: { type: "geojson", data: empty() },
    },
    layers: [
      { id: "background", type: "background", paint: { "background-color": "#f4f3ef" } },
      { id: "water", type: "fill", source: "base", "source-layer": "water", paint: { "fill-color": "#a9d3e6" } },
      { id: "parks", type: "fill", source: "base", "source-layer": "parks", paint: { "fill-color": ["match", ["get", "class"], ["forest", "wood", "nature_reserve"], "#cfe3bd", ["cemetery"], "#dfe6d8", "#dcedc8"], "fill-opacity": 0.9 } },
      { id: "buildings", type: "fill", source: "base", "source-layer": "buildings", minzoom: 14, paint: { "fill-color": "#e3dfd8", "fill-outline-color": "#d3cdc3" } },
      { id: "waterways", type: "line", source: "base", "source-layer": "waterways", paint: { "line-color": "#a9d3e6", "line-width": ["interpolate", ["linear"], ["zoom"], 8, ["match", ["get", "class"], "stream", 0.5, 1], 16, ["match", ["get", "class"], "stream", 2, 6]] } },
      { id: "streets-path", type: "line", source: "base", "source-layer": "streets", minzoom: 14, filter: ["==", ["get", "class"], "path"], paint: { "line-color": "#d6d3cb", "line-width": 0.8, "line-dasharray": [2, 1] } },
      { id: "streets-minor", type: "line", source: "base", "source-layer": "streets", minzoom: 12, filter: ["==", ["get", "class"], "minor"], paint: { "line-color": "#ffffff", "line-width": ["interpolate", ["linear"], ["zoom"], 11, 0.4, 14, 1.5, 17, 6] } },
      { id: "streets-major", type: "line", source: "base", "source-layer": "streets", filter: ["==", ["get", "class"], "major"], paint: { "line-color": "#fbe3b0", "line-width": ["interpolate", ["linear"], ["zoom"], 8, 0.5, 12, 1.2, 14, 2.5, 17, 8] } },
      { id: "street-names", type: "symbol", source: "base", "source-layer": "streets", minzoom: 15, filter: ["all", ["has", "name"], ["!=", ["get", "class"], "path"]], layout: { "symbol-placement": "line", "text-field": ["get", "name"], "text-font": FONT, "text-size": 11, "text-max-angle": 30 }, paint: { "text-color": "#5b5b5b", "text-halo-color": "#ffffff", "text-halo-width": 1.5 } },
      { id: "place-names", type: "symbol", source: "base", "source-layer": "places", layout: { "text-field": ["get", "name"], "text-font": FONT, "text-size": ["match", ["get", "rank"], 1, 16, 2, 14, 3, 13, 12], "symbol-sort-key": ["get", "rank"], "text-padding": 4 }, paint: { "text-color": "#3f3f46", "text-halo-color": "#ffffff", "text-halo-width": 1.5 } },
      { id: "iso-fill", type: "fill", source: "iso", paint: { "fill-color": ["get", "fill"], "fill-opacity": 0.28 } },
      { id: "iso-line", type: "line", source: "iso", paint: { "line-color": ["get", "fill"], "line-width": 1.5 } },
      { id: "routes-casing", type: "line", source: "transit", "source-layer": "routes", layout: { "line-join": "round", "line-cap": "round" }, paint: { "line-color": "#ffffff", "line-width": ["interpolate", ["linear"], ["zoom"], 8, 2.5, 16, 7] } },
      { id: "routes", type: "line", source: "transit", "source-layer": "routes", layout: { "line-join": "round", "line-cap": "round" }, paint: { "line-color": ["case", ["has", "color"], ["concat", "#", ["get", "color"]], "#6b7280"], "line-width": ["interpolate", ["linear"], ["zoom"], 8, 1.2, 16, 4], "line-opacity": ["case", ["boolean", ["feature-state", "dim"], false], 0.25, 0.9] } },
      { id: "routes-alert", type: "line", source: "transit", "source-layer": "routes", filter: ["in", ["get", "gtfsId"], ["literal", []]], paint: { "line-color": "#ea580c", "line-width": ["interpolate", ["linear"], ["zoom"], 8, 1.5, 16, 3], "line-dasharray": [2, 2], "line-offset": ["interpolate", ["linear"], ["zoom"], 8, 3, 16, 7] } },
      { id: "selection-line", type: "line", source: "selection", filter: ["==", ["geometry-type"], "LineString"], layout: { "line-join": "round", "line-cap": "round" }, paint: { "line-color": ["coalesce", ["get", "color"], "#111827"], "line-width": 6, "line-opacity": 0.85 } },
      { id: "plan-casing", type: "line", source: "plan", layout: { "line-join": "round", "line-cap": "round" }, paint: { "line-color": "#ffffff", "line-width": 9 } },
      { id: "plan-legs", type: "line", source: "plan", filter: ["==", ["get", "transit"], true], layout: { "line-join": "round", "line-cap": "round" }, paint: { "line-color": ["get", "color"], "line-width": 6 } },
      { id: "plan-street", type: "line", source: "plan", filter: ["==", ["get", "transit"], false], layout: { "line-join": "round", "line-cap": "round" }, paint: { "line-color": ["get", "color"], "line-width": 4, "line-dasharray": [1, 1.5] } },
      // below CLUSTER_MAX_ZOOM a stop of the tiles stands for `count` stops (its cell's): drawn as a cluster with its count
      { id: "stop-clusters", type: "circle", source: "transit", "source-layer": "stops", filter: [">", ["coalesce", ["get", "count"], 1], 1], paint: { "circle-color": "#2563eb", "circle-opacity": 0.55, "circle-stroke-color": "#fff", "circle-stroke-width": 1.5, "circle-radius": ["step", ["get", "count"], 9, 10, 13, 50, 17, 200, 22] } },
      { id: "stop-cluster-count", type: "symbol", source: "transit", "source-layer": "stops", filter: [">", ["coalesce", ["get", "count"], 1], 1], layout: { "text-field": ["to-string", ["get", "count"]], "text-font": FONT, "text-size": 11, "text-allow-overlap": true, "text-ignore-placement": true }, paint: { "text-color": "#0b1f4d" } },
      // stations from CLUSTER_MAX_ZOOM on: below it their platforms are in the clusters
      ...STOP_LAYERS.map((layer) => ({ id: layer, type: "circle", source: "transit", "source-layer": layer, ...(layer === "stops" ? {} : { minzoom: CLUSTER_MAX_ZOOM }), filter: ["<=", ["coalesce", ["get", "count"], 1], 1], paint: {
        "circle-color": layer === "entrances" ? ["match", ["get", "locationType"], ...LOCATION_TYPES.slice(2).flatMap(([t, , c]) => [t, c]), "#6b7280"] : LOCATION_TYPES[layer === "stations" ? 1 : 0][2],
        "circle-radius": ["interpolate", ["linear"], ["zoom"], 8, 2.5, 13, 4, 17, 7],
        "circle-stroke-color": ["case", ["boolean", ["feature-state", "alert"], false], "#f59e0b", "#ffffff"],
        "circle-stroke-width": ["case", ["boolean", ["feature-state", "alert"], false], 3, 1],
      } })),
      { id: "reach", type: "circle", source: "reach", paint: {
        "circle-color": ["interpolate", ["linear"], ["get", "share"], ...REACH_RAMP],
        "circle-radius": ["interpolate", ["linear"], ["zoom"], 8, 4, 14, 8],
        "circle-stroke-color": "#1f2937", "circle-stroke-width": 1,
      } },
      { id: "selection-point", type: "circle", source: "selection", filter: ["==", ["geometry-type"], "Point"], paint: { "circle-color": "#111827", "circle-radius": 8, "circle-stroke-color": "#facc15", "circle-stroke-width": 3 } },
    ],
  },
  center: [0, 0],
  zoom: 1,
  attributionControl: { compact: true, customAttribution: "Transit data: the imported GTFS feeds · Streets: © OpenStreetMap contributors" },
});
map.addControl(new maplibregl.NavigationControl({ showCompass: false }), "top-right");
map.addControl(new maplibregl.ScaleControl({ unit: "metric" }), "bottom-right");

const loaded = new Promise((resolve) => map.on("load", resolve));
const setData = (source, data) => map.getSource(source)?.setData(data);

// ---------------------------------------------------------------- status and settings

function status(text, error = false) {
  const el = $("status");
  el.textContent = text;
  el.className = error ? "error" : "muted";
}
function failed(where, e) {
  const msg = e instanceof ApiError ? e.message : String(e?.message ?? e);
  status(`${where}: ${msg}`, true);
  return msg;
}

$("apikey").value = api.key;
$("apikey").addEventListener("change", async () => {
  api.setKey($("apikey").value);
  await loadAlerts();
});
const dateValue = () => $("date").value;
const timeValue = () => $("time").value || "08:00";
$("date").addEventListener("change", () => {
  if (state.selectedStop) showStop(state.selectedStop);
  if (state.selectedRoute) showRoute(state.selectedRoute);
  if (state.from && state.to) runPlan();
});

$("stop-legend").innerHTML = LOCATION_TYPES.map(([, name, c]) => `<span><i style="background:${c}"></i>${esc(name)}</span>`).join("") + `<span><i style="background:#fff;border:2px solid #f59e0b"></i>alert</span>`;

for (const b of document.querySelectorAll("#tabs button")) b.addEventListener("click", () => setTab(b.dataset.tab));
function setTab(tab) {
  state.tab = tab;
  for (const b of document.querySelectorAll("#tabs button")) b.classList.toggle("active", b.dataset.tab === tab);
  for (const s of document.querySelectorAll(".tab")) s.classList.toggle("active", s.id === `tab-${tab}`);
  map.getCanvas().style.cursor = tab === "plan" || tab === "iso" ? "crosshair" : "";
}

// ---------------------------------------------------------------- loading the dataset

async function loadDataset() {
  state.dataset = await (await fetch("/map/data/dataset.json")).json();
  const d = state.dataset;
  if (!$("date").value) $("date").value = d.suggested_date ?? new Date().toISOString().slice(0, 10);
  const feeds = d.feeds.map((f) => `${esc(f.feed_onestop_id)} (${f.earliest_calendar_date ?? "?"} – ${f.latest_calendar_date ?? "?"})`).join(", ");
  $("summary").innerHTML = d.feeds.length ? `${feeds}${d.streets ? "; streets " + (d.streets.background ? "with background" : "without background") : d.street_routing ? "; external street engine" : "; no street dataset"}` : "no feeds imported";
  if (!d.street_routing) {
    // bicycle and car legs, and street isochrones, need a street network
    for (const o of $("modes").options) if (/BICYCLE|CAR/.test(o.value)) o.disabled = true;
    $("iso-costing").value = "";
  }
  if (d.bbox) map.fitBounds([[d.bbox[0], d.bbox[1]], [d.bbox[2], d.bbox[3]]], { padding: 30, animate: false });
}

/**
 * A route of the catalog (the routes endpoint, or a trip's `route`) as the page keeps it: colours
 * with their #, `key` the route key the trips endpoint takes and the tiles' gtfsId. `feed`: the
 * feed's Onestop ID where the document does not carry it (a trip's route).
 */
function routeFeature(r, feed = null) {
  feed = r.feed_version?.feed?.onestop_id ?? feed ?? "";
  return {
    type: "Feature",
    id: r.id,
    geometry: r.geometry ?? null,
    properties: {
      id: r.id, key: `${feed}:${r.route_id}`, route_id: r.route_id, onestop_id: r.onestop_id ?? null, feed_onestop_id: feed,
      route_short_name: r.route_short_name ?? null, route_long_name: r.route_long_name ?? null, route_type: r.route_type ?? null,
      route_color: r.route_color ? `#${r.route_color}` : null, route_text_color: r.route_text_color ? `#${r.route_text_color}` : null,
      agency_name: r.agency?.agency_name ?? null,
    },
  };
}

/** A route as the tiles' `routes` layer draws it (gtfsId, names, colours), until its document is read. */
function routeOfTile(p) {
  const key = String(p.gtfsId);
  return {
    type: "Feature", id: null, geometry: null, partial: true,
    properties: {
      id: null, key, route_id: key.slice(key.indexOf(":") + 1), onestop_id: null, feed_onestop_id: key.slice(0, key.indexOf(":")),
      route_short_name: p.shortName ?? null, route_long_name: p.longName ?? null, route_type: p.type ?? null,
      route_color: p.color ? `#${p.color}` : null, route_text_color: p.textColor ? `#${p.textColor}` : null, agency_name: null,
    },
  };
}

/** Keeps a route read from the catalog (a whole document wins over a partial one). */
function keepRoute(f) {
  const had = state.routes.get(f.properties.key);
  if (!had || had.partial || !f.partial) state.routes.set(f.properties.key, f);
  return state.routes.get(f.properties.key);
}

/** Runs the jobs (functions returning promises), `n` at a time. */
async function inTurn(jobs, n) {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(n, jobs.length) }, async () => {
    while (next < jobs.length) await jobs[next++]();
  }));
}

/** At most this many routes (and agencies) named by alerts are read for the alerts list's badges. */
const ALERT_NAMES_READ = 40;

/**
 * The active alerts of the realtime feeds (Api.activeAlerts: their alert snapshots, not a list of
 * every stop or route): stops ringed in orange on the map (the tiles' stops, through their feature
 * state, on every stop layer: the key says nothing of the location_type), route lines dashed (by
 * the tiles' gtfsId), and listed. The routes and agencies they name are then read one by one, four
 * at a time (the first ALERT_NAMES_READ of each), for their names and colours in the list.
 */
async function loadAlerts() {
  let found;
  try {
    found = await api.activeAlerts(Date.now());
  } catch (e) {
    failed("alerts", e);
    return;
  }
  for (const l of STOP_LAYERS) map.removeFeatureState({ source: "transit", sourceLayer: l });
  for (const key of found.stops.keys()) for (const l of STOP_LAYERS) map.setFeatureState({ source: "transit", sourceLayer: l, id: key }, { alert: true });
  state.alerts.stops = found.stops;
  state.alerts.routes = found.routes;
  state.alerts.agencies = found.agencies;
  map.setFilter("routes-alert", ["in", ["get", "gtfsId"], ["literal", [...found.routes.keys()]]]);
  renderAlerts();
  const routes = [...found.routes.keys()].filter((k) => !state.routes.get(k) || state.routes.get(k).partial).slice(0, ALERT_NAMES_READ);
  const agencies = [...found.agencies.keys()].filter((k) => !state.agencies.has(k)).slice(0, ALERT_NAMES_READ);
  await inTurn([
    ...routes.map((k) => () => api.route(k).then((r) => r && keepRoute(routeFeature(r))).catch(() => null)),
    ...agencies.map((k) => () => api.agency(k).then((a) => a && state.agencies.set(k, a.agency_name ?? k)).catch(() => null)),
  ], 4);
  if (routes.length || agencies.length) renderAlerts();
}

// ---------------------------------------------------------------- explore: search, stops, routes, trips

/** The geocoder's layers of places listed under the stops (the transit ones are asked for apart). */
const PLACE_LAYERS = "locality,borough,neighbourhood,venue,street,address";

/** A catalog stop as a search result. */
const stopHit = (s) => ({
  key: `${s.feed_version?.feed?.onestop_id ?? ""}:${s.stop_id}`, name: s.stop_name ?? s.stop_id, stop_id: s.stop_id, feed: s.feed_version?.feed?.onestop_id ?? "",
  code: s.stop_code ?? null, lon: s.geometry.coordinates[0], lat: s.geometry.coordinates[1], layer: s.location_type === 1 ? "stations" : "stops",
});

/**
 * Stops for the search box: the catalog's stops whose stop_id or stop_code is the text (exact
 * matches, when the text is one word: `/stops?stop_id=` and `/stops?stop_code=`, which finds a
 * station's platforms by their codes too), then the geocoder's stations and stops (by name, or a
 * station's or lone stop's stop_code) near the map's centre. Each {key, name, stop_id, feed, code, lon, lat, layer}.
 */
async function searchStops(text, focus) {
  const exact = (filter) => /^\S{1,100}$/.test(text)
    ? api.stops({ [filter]: text, limit: "20" }).then((b) => b.stops.filter((s) => s.geometry).map(stopHit))
    : Promise.resolve([]);
  const named = placeSuggestions(api, text, focus, "stations,stops", 15).then((ps) => ps.filter((p) => p.sourceId).map((p) => ({
    key: p.sourceId, name: p.name || p.label, stop_id: p.gtfs?.stop_id ?? p.sourceId.slice(p.sourceId.indexOf(":") + 1), feed: p.gtfs?.feed_onestop_id ?? p.sourceId.slice(0, p.sourceId.indexOf(":")),
    code: p.gtfs?.stop_code ?? null, lon: p.lon, lat: p.lat, layer: p.layer,
  })));
  const [byId, byCode, byName] = await Promise.all([exact("stop_id"), exact("stop_code"), named.catch(() => [])]);
  const seen = new Set();
  return [...byId, ...byCode, ...byName].filter((s) => !seen.has(s.key) && seen.add(s.key));
}

$("search").addEventListener("input", () => {
  const text = $("search").value.trim();
  const ul = $("search-results");
  const seq = (state.searchSeq = (state.searchSeq ?? 0) + 1);
  if (text.length < 2) {
    ul.innerHTML = "";
    return;
  }
  // once typing pauses: the stops (catalog and geocoder), then the geocoder's places (streets,
  // addresses, points of interest) near the map's centre
  setTimeout(async () => {
    if (seq !== state.searchSeq) return;
    const c = map.getCenter();
    const focus = { lat: +c.lat.toFixed(5), lon: +c.lng.toFixed(5) };
    const [stops, places] = await Promise.all([
      searchStops(text, focus).catch((e) => (failed("search", e), [])),
      placeSuggestions(api, text, focus, PLACE_LAYERS, 8).catch(() => []), // no geocoder index: the stops alone
    ]);
    if (seq !== state.searchSeq) return;
    const colour = (layer) => LOCATION_TYPES[layer === "stations" ? 1 : 0][2];
    ul.innerHTML = (stops.map((s) => `<li class="stop" data-key="${esc(s.key)}" data-lon="${s.lon}" data-lat="${s.lat}"><i style="display:inline-block;width:8px;height:8px;border-radius:50%;background:${colour(s.layer)}"></i> ${esc(s.name)} <span class="muted">${esc(s.stop_id)}${s.code && s.code !== s.stop_id ? " · code " + esc(s.code) : ""} · ${esc(s.feed)}</span></li>`).join("") || `<li class="muted">no stop matches</li>`)
      + places.slice(0, 8).map((p) => `<li class="place" data-lon="${p.lon}" data-lat="${p.lat}">⌖ ${esc(p.label)} <span class="muted">${esc(p.layer ?? "")}</span></li>`).join("");
  }, 200);
});
$("search-results").addEventListener("click", (ev) => {
  const li = ev.target.closest("li[data-lon]");
  if (!li) return;
  const center = [Number(li.dataset.lon), Number(li.dataset.lat)];
  if (li.dataset.key) {
    map.flyTo({ center, zoom: Math.max(map.getZoom(), 15) });
    showStop(li.dataset.key);
  } else map.flyTo({ center, zoom: Math.max(map.getZoom(), 16) });
});

function alertHtml(alerts) {
  return alerts.map((a) => `<div class="alert"><b>${esc(translated(a.header_text) || a.effect || "Alert")}</b>${esc(translated(a.description_text))}${a.effect ? ` <span class="muted">${esc(a.cause ?? "")} ${esc(a.effect)}</span>` : ""}</div>`).join("");
}

function routeBadge(p) {
  const bg = routeColor(p.route_color);
  const fg = p.route_text_color ? routeColor(p.route_text_color, textOn(bg)) : textOn(bg);
  return `<span class="badge" style="background:${bg};color:${fg}">${esc(p.route_short_name || p.route_long_name || p.route_id)}</span>`;
}

function select(features) {
  setData("selection", { type: "FeatureCollection", features });
}

/**
 * A stop's details, routes and next departures: two requests side by side, by the stop's key (the
 * catalog id, or the tiles' gtfsId `<feed onestop id>:<stop_id>`): the departures endpoint, whose
 * answer carries the stop (and a station's platforms) with their active alerts, and the routes
 * serving it (`/routes?stop_key=`). `fly`: move the map to the stop.
 */
async function showStop(key, { fly = false } = {}) {
  key = String(key);
  state.selectedStop = key;
  state.selectedRoute = null;
  setTab("explore");
  const el = $("details");
  el.innerHTML = `<div id="departures" class="muted">reading the stop…</div>`;
  try {
    const date = dateValue();
    const [body, served] = await Promise.all([api.departures(key, date, timeValue(), 6, DEPARTURES_SHOWN), api.routesOfStop(key)]);
    if (state.selectedStop !== key) return;
    const stop = body.stops[0];
    const coords = stop.geometry?.coordinates ?? null;
    if (coords) {
      select([{ type: "Feature", geometry: { type: "Point", coordinates: coords }, properties: {} }]);
      if (fly) map.flyTo({ center: coords, zoom: Math.max(map.getZoom(), 15) });
    }
    const routes = served.map((r) => keepRoute(routeFeature(r)));
    const feed = stop.feed_version?.feed?.onestop_id ?? null;
    const type = stop.location_type ?? 0;
    el.innerHTML = `<h2>${esc(stop.stop_name ?? stop.stop_id)}</h2>
      <div class="muted">${esc(LOCATION_TYPES[type]?.[1] ?? "stop")} · ${esc(stop.stop_id)}${stop.stop_code ? " · code " + esc(stop.stop_code) : ""} · ${esc(stop.feed_version?.feed?.onestop_id ?? "")}${stop.wheelchair_boarding === 1 ? " · wheelchair boarding" : ""}</div>
      ${alertHtml(stop.alerts ?? [])}
      <h3>Routes</h3><div class="legs">${routes.map((r) => `<button class="link" data-route="${esc(r.properties.key)}">${routeBadge(r.properties)}</button>`).join(" ") || '<span class="muted">no route serves it</span>'}</div>
      <h3>Departures on ${esc(dateValue())} from ${esc(timeValue())}</h3><div id="departures"></div>`;
    for (const b of el.querySelectorAll("[data-route]")) b.addEventListener("click", () => showRoute(b.dataset.route));
    // a departure's trip carries its route (in the stop's feed)
    const next = departuresOf(body).map((d) => ({ ...d, route: keepRoute(routeFeature(d.trip.route, feed)) }));
    $("departures").innerHTML = next.length
      ? `<table><tr><th>time</th><th>route</th><th>to</th><th>realtime</th></tr>${next.map((d) => `<tr class="clickable" data-route="${esc(d.route.properties.key)}" data-trip="${d.trip.id}"><td>${esc(d.departure.scheduled_local.slice(11, 16))}${d.date !== date ? ' <span class="muted">+1</span>' : ""}</td><td>${routeBadge(d.route.properties)}</td><td>${esc(d.trip.trip_headsign ?? d.stop_headsign ?? "")}</td><td>${d.delay === null ? "" : `<span class="${d.delay > 60 ? "late" : d.delay < -60 ? "early" : ""}">${d.delay >= 0 ? "+" : ""}${Math.round(d.delay / 60)} min</span>`}${d.skipped ? ' <span class="late">skipped</span>' : ""}</td></tr>`).join("")}</table>`
      : `<span class="muted">no departure after ${esc(timeValue())} on ${esc(date)}</span>`;
    for (const tr of $("departures").querySelectorAll("tr[data-trip]")) tr.addEventListener("click", () => showTrip(state.routes.get(tr.dataset.route), Number(tr.dataset.trip)));
  } catch (e) {
    if (state.selectedStop === key) $("departures").innerHTML = `<span class="error">${esc(failed("stop", e))}</span>`;
  }
}

/**
 * A departures answer's rows, the stop's and (a station) its platforms' merged in time order
 * (scheduled, with the realtime delay beside), the first DEPARTURES_SHOWN.
 */
function departuresOf(body) {
  const rows = [];
  for (const s of body.stops) for (const x of [s, ...(s.children ?? [])]) rows.push(...x.departures);
  rows.sort((a, b) => (a.departure.scheduled_utc < b.departure.scheduled_utc ? -1 : a.departure.scheduled_utc > b.departure.scheduled_utc ? 1 : 0));
  return rows.slice(0, DEPARTURES_SHOWN).map((d) => ({ ...d, delay: d.departure_delay ?? d.arrival_delay ?? null, skipped: d.realtime_schedule_relationship === "SKIPPED" }));
}

/**
 * A route's details and its trips on the date (their shapes drawn), by its key
 * (`<feed onestop id>:<route_id>`, the tiles' gtfsId). `seen`: the route as the tiles draw it, shown
 * until its document is read (when the page has not read it before, beside the trips).
 */
async function showRoute(key, seen = null) {
  key = String(key);
  state.selectedRoute = key;
  state.selectedStop = null;
  setTab("explore");
  const known = state.routes.get(key) ?? (seen ? routeOfTile(seen) : null);
  const header = (route) => {
    const p = route?.properties ?? { key, route_id: key.slice(key.indexOf(":") + 1) };
    return `<h2>${routeBadge(p)} ${esc(p.route_long_name ?? "")}</h2>
    <div class="muted">${esc(p.agency_name ?? "")} · ${esc(p.key)}${p.onestop_id ? " · " + esc(p.onestop_id) : ""}</div>${alertHtml(state.alerts.routes.get(key) ?? [])}`;
  };
  const el = $("details");
  el.innerHTML = `<div id="route-head">${header(known)}</div><h3>Trips on ${esc(dateValue())}</h3><div id="trips" class="muted">loading…</div>`;
  if (!known || known.partial) {
    api.route(key).then((r) => {
      if (!r) return;
      const f = keepRoute(routeFeature(r));
      if (state.selectedRoute === key && $("route-head")) $("route-head").innerHTML = header(f);
    }).catch((e) => failed("route", e));
  }
  const p = known?.properties ?? { key, route_color: null };
  try {
    const fc = await api.routeTrips(p.key, dateValue());
    if (state.selectedRoute !== key) return;
    const trips = fc.features;
    // each distinct shape once (a route's trips share a few)
    const shapes = new Map();
    for (const t of trips) if (t.geometry) shapes.set(t.properties.shape?.shape_id ?? JSON.stringify(t.geometry.coordinates[0]), t.geometry);
    const color = routeColor((state.routes.get(key)?.properties ?? p).route_color, "#111827");
    select([...shapes.values()].map((geometry) => ({ type: "Feature", geometry, properties: { color } })));
    $("trips").className = "";
    $("trips").innerHTML = trips.length
      ? `<div class="muted">${trips.length} trips${fc.meta?.next ? " (first page)" : ""}; their shapes are drawn on the map</div><table><tr><th>trip</th><th>to</th><th>dir</th><th></th></tr>${trips.map((t) => `<tr class="clickable" data-trip="${t.properties.id}"><td>${esc(t.properties.trip_short_name ?? t.properties.trip_id)}</td><td>${esc(t.properties.trip_headsign ?? "")}</td><td>${t.properties.direction_id ?? ""}</td><td>${t.properties.schedule_relationship !== "STATIC" ? esc(t.properties.schedule_relationship) : ""}</td></tr>`).join("")}</table>`
      : `<span class="muted">no trips on ${esc(dateValue())}</span>`;
    for (const tr of $("trips").querySelectorAll("tr[data-trip]")) tr.addEventListener("click", () => showTrip(state.routes.get(key) ?? known ?? { properties: p }, Number(tr.dataset.trip)));
  } catch (e) {
    if (state.selectedRoute === key) $("trips").innerHTML = `<span class="error">${esc(failed("trips", e))}</span>`;
  }
}

async function showTrip(route, tripId) {
  const p = route.properties;
  try {
    const t = await api.trip(p.key, tripId);
    const color = routeColor(p.route_color, "#111827");
    const features = [];
    if (t.shape?.geometry) features.push({ type: "Feature", geometry: t.shape.geometry, properties: { color } });
    for (const st of t.stop_times ?? []) if (st.stop?.geometry) features.push({ type: "Feature", geometry: st.stop.geometry, properties: {} });
    select(features);
    const el = $("details");
    el.innerHTML = `<h2>${routeBadge(p)} ${esc(t.trip_headsign ?? "")}</h2>
      <div class="muted">trip ${esc(t.trip_id)} · ${esc(dateValue())} · ${esc(t.schedule_relationship)}</div>${alertHtml(t.alerts ?? [])}
      <button class="link" id="back-route">← all trips of the route</button>
      <table><tr><th>stop</th><th>arr</th><th>dep</th><th>realtime</th></tr>${(t.stop_times ?? []).map((st) => `<tr class="clickable" data-stop="${st.stop?.id ?? ""}"><td>${esc(st.stop?.stop_name ?? st.location?.name ?? "")}</td><td>${esc((st.arrival_time ?? "").slice(0, 5))}</td><td>${esc((st.departure_time ?? "").slice(0, 5))}</td><td>${st.realtime_departure_time || st.realtime_arrival_time ? `<span class="${(st.departure_delay ?? st.arrival_delay ?? 0) > 60 ? "late" : ""}">${esc((st.realtime_departure_time ?? st.realtime_arrival_time).slice(0, 5))}</span>` : ""}${st.realtime_schedule_relationship === "SKIPPED" ? ' <span class="late">skipped</span>' : ""}</td></tr>`).join("")}</table>`;
    $("back-route").addEventListener("click", () => showRoute(p.key));
    for (const tr of el.querySelectorAll("tr[data-stop]")) if (tr.dataset.stop) tr.addEventListener("click", () => showStop(Number(tr.dataset.stop)));
  } catch (e) {
    failed("trip", e);
  }
}

// ---------------------------------------------------------------- plan

const markerEl = (cls, text) => {
  const el = document.createElement("div");
  el.className = `marker ${cls}`;
  el.textContent = text;
  return el;
};
const markers = { from: null, to: null };
function setPlace(which, lngLat) {
  state[which] = { lat: +lngLat.lat.toFixed(6), lon: +lngLat.lng.toFixed(6) };
  if (!markers[which]) {
    markers[which] = new maplibregl.Marker({ element: markerEl(which, which === "from" ? "A" : "B"), draggable: true }).setLngLat(lngLat).addTo(map);
    markers[which].on("dragend", () => {
      setPlace(which, markers[which].getLngLat());
      if (state.from && state.to) runPlan();
    });
  } else markers[which].setLngLat(lngLat);
  $(`${which}-text`).textContent = `${state[which].lat}, ${state[which].lon}`;
  $(`${which}-text`).className = "";
}
$("plan-go").addEventListener("click", () => runPlan());
$("modes").addEventListener("change", () => state.from && state.to && runPlan());
for (const r of document.querySelectorAll("input[name=when]")) r.addEventListener("change", () => state.from && state.to && runPlan());
$("plan-clear").addEventListener("click", () => {
  for (const w of ["from", "to"]) {
    markers[w]?.remove();
    markers[w] = null;
    state[w] = null;
  }
  $("from-text").textContent = "click the map";
  $("to-text").textContent = "then click again";
  state.plan = null;
  setData("plan", empty());
  $("itineraries").innerHTML = "";
  $("plan-status").textContent = "";
});

const STREET_COLORS = { WALK: "#4b5563", BICYCLE: "#059669", CAR: "#1f2937" };

async function runPlan() {
  if (!state.from || !state.to) return;
  const arriveBy = document.querySelector("input[name=when]:checked").value === "arrive";
  const params = {
    fromPlace: `${state.from.lat},${state.from.lon}`, toPlace: `${state.to.lat},${state.to.lon}`,
    date: dateValue(), time: timeValue(), arriveBy: String(arriveBy), mode: $("modes").value, numItineraries: "3",
  };
  $("plan-status").textContent = "planning…";
  $("plan-status").className = "muted";
  state.planSeq = (state.planSeq ?? 0) + 1;
  const seq = state.planSeq;
  try {
    const body = await api.plan(params);
    if (seq !== state.planSeq) return;
    state.plan = body;
    if (!body.plan) {
      setData("plan", empty());
      $("itineraries").innerHTML = "";
      $("plan-status").textContent = `${body.error?.message ?? "no plan"}: ${body.error?.msg ?? ""}`;
      return;
    }
    $("plan-status").textContent = `${body.plan.itineraries.length} itineraries${body.plan.streetNetwork ? " · walks on the streets" : ""}`;
    renderItineraries(body.plan.itineraries);
    drawItinerary(0);
  } catch (e) {
    if (seq !== state.planSeq) return;
    $("plan-status").textContent = failed("plan", e);
    $("plan-status").className = "error";
  }
}

function legColor(leg) {
  return leg.transitLeg ? routeColor(leg.routeColor, "#2563eb") : STREET_COLORS[leg.mode] ?? "#4b5563";
}

function renderItineraries(its) {
  $("itineraries").innerHTML = its.map((it, i) => {
    const off = it.legs[0]?.agencyTimeZoneOffset ?? 0;
    const legs = it.legs.map((l) => l.transitLeg
      ? `<span class="badge leg" style="background:${legColor(l)};color:${l.routeTextColor ? routeColor(l.routeTextColor) : textOn(legColor(l))}">${esc(l.route || l.mode)}</span>`
      : `<span class="leg muted">${l.mode === "WALK" ? "walk" : l.mode === "BICYCLE" ? "bike" : "drive"} ${duration(l.duration)}</span>`).join(" ");
    const detail = it.legs.map((l) => {
      const o = l.agencyTimeZoneOffset ?? off;
      const head = l.transitLeg
        ? `<b>${clock(l.startTime, o)}</b> ${esc(l.mode)} ${esc(l.route)} ${l.headsign ? "→ " + esc(l.headsign) : ""}<br><span class="muted">${esc(l.from.name)} → ${esc(l.to.name)} · arrive ${clock(l.endTime, o)}</span>`
        : `<b>${clock(l.startTime, o)}</b> ${esc(l.mode.toLowerCase())} ${distance(l.distance)} (${duration(l.duration)}) to ${esc(l.to.name)}${l.onStreets === false ? ' <span class="muted">(straight line)</span>' : ""}`;
      const steps = !l.transitLeg && l.steps?.length ? `<ol class="steps">${l.steps.map((s) => `<li>${esc(s.relativeDirection.toLowerCase().replace(/_/g, " "))} on ${esc(s.streetName)} <span class="muted">${distance(s.distance)}</span></li>`).join("")}</ol>` : "";
      return `<div class="step">${head}</div>${steps}`;
    }).join("");
    return `<div class="itinerary${i === 0 ? " selected" : ""}" data-i="${i}">
      <div class="summary"><span>${clock(it.startTime, off)} – ${clock(it.endTime, off)}</span><span>${duration(it.duration)}</span></div>
      <div class="muted">${it.transfers} transfer${it.transfers === 1 ? "" : "s"} · walk ${distance(it.walkDistance ?? 0)}${it.fare?.fare?.regular?.cents > 0 ? ` · fare ${(it.fare.fare.regular.cents / 10 ** it.fare.fare.regular.currency.defaultFractionDigits).toFixed(2)} ${esc(it.fare.fare.regular.currency.currencyCode)}` : ""}</div>
      <div class="legs">${legs}</div>
      <div class="detail" ${i === 0 ? "" : "hidden"}>${detail}</div></div>`;
  }).join("");
  for (const card of $("itineraries").querySelectorAll(".itinerary")) card.addEventListener("click", () => drawItinerary(Number(card.dataset.i)));
}

function drawItinerary(i) {
  const it = state.plan?.plan?.itineraries?.[i];
  if (!it) return;
  state.selectedItinerary = i;
  for (const card of $("itineraries").querySelectorAll(".itinerary")) {
    const on = Number(card.dataset.i) === i;
    card.classList.toggle("selected", on);
    card.querySelector(".detail").hidden = !on;
  }
  const features = it.legs.map((l, k) => ({
    type: "Feature",
    properties: { leg: k, mode: l.mode, transit: Boolean(l.transitLeg), color: legColor(l) },
    geometry: { type: "LineString", coordinates: l.legGeometry?.points ? decodePolyline(l.legGeometry.points) : [[l.from.lon, l.from.lat], [l.to.lon, l.to.lat]] },
  }));
  setData("plan", { type: "FeatureCollection", features });
}

// ---------------------------------------------------------------- isochrones and reachability

async function runIsochrone(lngLat) {
  const origin = { lat: +lngLat.lat.toFixed(6), lon: +lngLat.lng.toFixed(6) };
  state.isoOrigin = origin;
  if (!markers.origin) {
    // (Evented.on returns a subscription in MapLibre 5 and later, not the marker)
    markers.origin = new maplibregl.Marker({ element: markerEl("origin", "◎"), draggable: true }).setLngLat(lngLat).addTo(map);
    markers.origin.on("dragend", () => runIsochrone(markers.origin.getLngLat()));
  } else markers.origin.setLngLat(lngLat);
  const costing = $("iso-costing").value;
  const minutes = $("iso-contours").value.split(",").map((x) => Number(x.trim())).filter((x) => x > 0).slice(0, 5).sort((a, b) => a - b);
  const reachOn = $("reach-on").checked;
  const maxMin = Math.min(240, Math.max(5, Number($("reach-max").value) || 45));
  const notes = [];
  $("iso-status").textContent = "measuring…";
  state.isoSeq = (state.isoSeq ?? 0) + 1;
  const seq = state.isoSeq;
  const jobs = [];
  const streetRouting = state.dataset?.street_routing;
  const sb = state.dataset?.streets?.bbox;
  // the embedded engine's tiles cover the street dataset's bbox only (a click outside is the engine's 400)
  const covered = streetRouting === "external" || (streetRouting === "embedded" && (!sb || (origin.lon >= sb[0] && origin.lon <= sb[2] && origin.lat >= sb[1] && origin.lat <= sb[3])));
  if (costing && minutes.length && !streetRouting) notes.push("no street dataset: no street isochrones (import one with interchange import --osm)");
  else if (costing && minutes.length && !covered) notes.push("outside the street dataset: no street isochrone here");
  if (costing && minutes.length && covered) {
    jobs.push(api.isochrone({ locations: [origin], costing, contours: minutes.map((time) => ({ time })), polygons: true, denoise: 0.5, generalize: 20 }).then((fc) => {
      if (seq !== state.isoSeq) return;
      // biggest first, so the smaller contours are drawn over them; our colours, innermost green
      const feats = fc.features.filter((f) => f.geometry?.type === "Polygon" || f.geometry?.type === "MultiPolygon")
        .sort((a, b) => b.properties.contour - a.properties.contour)
        .map((f) => ({ ...f, properties: { ...f.properties, fill: ISO_COLORS[Math.min(ISO_COLORS.length - 1, minutes.indexOf(f.properties.contour))] ?? ISO_COLORS[0] } }));
      state.iso = { type: "FeatureCollection", features: feats };
      setData("iso", state.iso);
      notes.push(`${feats.length} ${costing} contours`);
    }).catch((e) => {
      setData("iso", empty());
      notes.push(`isochrone: ${e.message}`);
    }));
  } else setData("iso", empty());
  if (reachOn && $("reach-mode").value === "window") {
    jobs.push(windowTravelTimes(origin, maxMin).then((fc) => {
      if (seq !== state.isoSeq) return;
      state.reach = fc;
      setData("reach", fc);
      notes.push(`${fc.features.length} of the ${fc.asked} nearest stops within ${maxMin} min at the median of ${fc.departures} departures`);
    }).catch((e) => {
      setData("reach", empty());
      notes.push(`travel times: ${e.message}`);
    }));
  } else if (reachOn) {
    jobs.push(api.reachability({ fromPlace: `${origin.lat},${origin.lon}`, date: dateValue(), time: timeValue(), maxTravelTime: String(maxMin) }).then((r) => {
      if (seq !== state.isoSeq) return;
      state.reach = r;
      setData("reach", { type: "FeatureCollection", features: r.stops.map((s) => ({ type: "Feature", geometry: { type: "Point", coordinates: [s.lon, s.lat] }, properties: { name: s.stopName, minutes: Math.round(s.travelTime / 60), share: Math.min(1, s.travelTime / (maxMin * 60)), arrival: s.arrival, tz: r.timeZone } })) });
      notes.push(r.error ? `transit: ${r.error}` : `${r.stops.length} stops within ${maxMin} min by transit`);
    }).catch((e) => {
      setData("reach", empty());
      notes.push(`reachability: ${e.message}`);
    }));
  } else setData("reach", empty());
  await Promise.all(jobs);
  if (seq !== state.isoSeq) return;
  $("iso-status").textContent = notes.join(" · ");
  $("iso-legend").innerHTML = (costing ? minutes.map((m, i) => `<span><i style="background:${ISO_COLORS[i]}"></i>${m} min</span>`).join("") : "")
    + (reachOn ? `<span>transit 0 <span class="ramp" style="background:linear-gradient(to right, ${REACH_RAMP.filter((_, i) => i % 2).join(",")})"></span> ${maxMin} min</span>` : "");
}

/** At most this many destinations one analysis request takes (POST /api/v2/analysis/travel-times). */
const WINDOW_DESTINATIONS = 500;

/** The catalog's largest radius search (m). */
const NEAR_MAX_RADIUS = 10_000;
/** The most stops read to find the nearest. */
const NEAR_MAX_STOPS = 3000;

/**
 * The `n` stops of location_type 0 (platforms and plain stops) nearest a point, from the catalog's
 * area searches (which answer in id order, so they are sorted here): circles
 * (`/stops?lat=&lon=&radius=&location_type=0`) of 1, 2.5, 6.25 and 10 km (the largest the catalog
 * takes), then, where those hold fewer than `n`, boxes around the point (`bbox=`, half-sides 0.25°,
 * 1° and 4° of latitude): the first area that holds `n`, or the last before one that holds more
 * than NEAR_MAX_STOPS (then the n nearest of the smaller one). At most 7 searches.
 */
async function nearestStops(origin, n) {
  const areas = [];
  for (let r = 1000; r < NEAR_MAX_RADIUS; r *= 2.5) areas.push({ lat: String(origin.lat), lon: String(origin.lon), radius: String(Math.round(r)) });
  areas.push({ lat: String(origin.lat), lon: String(origin.lon), radius: String(NEAR_MAX_RADIUS) });
  const cos = Math.max(0.1, Math.cos((origin.lat * Math.PI) / 180));
  const clamp = (x, i) => Math.max(i % 2 ? -90 : -180, Math.min(i % 2 ? 90 : 180, x)).toFixed(6);
  for (const h of [0.25, 1, 4]) areas.push({ bbox: [origin.lon - h / cos, origin.lat - h, origin.lon + h / cos, origin.lat + h].map(clamp).join(",") });
  let best = [];
  for (const area of areas) {
    const stops = await api.stopsIn(area, NEAR_MAX_STOPS);
    if (stops === null) break; // too many: the area before
    best = stops;
    if (stops.length >= n) break;
  }
  const k = Math.cos((origin.lat * Math.PI) / 180) ** 2;
  return best.filter((s) => s.geometry)
    .map((s) => ({ s, d: (s.geometry.coordinates[0] - origin.lon) ** 2 * k + (s.geometry.coordinates[1] - origin.lat) ** 2 }))
    .sort((a, b) => a.d - b.d)
    .slice(0, n)
    .map((x) => ({ id: x.s.id, name: x.s.stop_name ?? x.s.stop_id, coords: x.s.geometry.coordinates }));
}

/**
 * The stops nearest the origin (up to WINDOW_DESTINATIONS, stations' platforms and plain stops)
 * coloured by their median travel time over the hour from the chosen time, with the 5th and 95th
 * percentiles for the popup (the analysis API: R5's percentiles over one departure a minute);
 * those not reached within `maxMin` at the median are left out.
 */
async function windowTravelTimes(origin, maxMin) {
  const near = await nearestStops(origin, WINDOW_DESTINATIONS);
  const [h, m] = timeValue().split(":").map(Number);
  const start = Math.min(h * 60 + m, 23 * 60 + 59);
  const end = Math.min(start + 60, 24 * 60 - 1);
  const hm = (x) => `${String(Math.floor(x / 60)).padStart(2, "0")}:${String(x % 60).padStart(2, "0")}`;
  const r = await api.travelTimes({
    from: origin,
    to: near.map((s) => ({ id: String(s.id), lat: s.coords[1], lon: s.coords[0] })),
    date: dateValue(),
    window: `${hm(start)}-${hm(end)}`,
    percentiles: [5, 50, 95],
    maxDuration: maxMin,
  });
  const byId = new Map(near.map((s) => [String(s.id), s]));
  const features = r.destinations
    .filter((d) => d.travelTimes[1] !== null && d.travelTimes[1] <= maxMin)
    .map((d) => ({
      type: "Feature",
      geometry: { type: "Point", coordinates: [d.lon, d.lat] },
      properties: { name: byId.get(d.id)?.name ?? d.id, minutes: d.travelTimes[1], share: Math.min(1, d.travelTimes[1] / maxMin), p5: d.travelTimes[0], p95: d.travelTimes[2], window: r.window },
    }));
  return { type: "FeatureCollection", features, asked: near.length, departures: r.departures };
}

$("iso-clear").addEventListener("click", () => {
  state.isoSeq = (state.isoSeq ?? 0) + 1;
  markers.origin?.remove();
  markers.origin = null;
  state.iso = state.reach = null;
  setData("iso", empty());
  setData("reach", empty());
  $("iso-status").textContent = "";
  $("iso-legend").innerHTML = "";
});

// ---------------------------------------------------------------- alerts

function renderAlerts() {
  const items = [];
  const seen = new Map();
  const add = (alert, where) => {
    const k = JSON.stringify([alert.header_text, alert.description_text, alert.active_period]);
    if (!seen.has(k)) {
      seen.set(k, { alert, where: [] });
      items.push(seen.get(k));
    }
    seen.get(k).where.push(where);
  };
  for (const [key, alerts] of state.alerts.agencies) for (const a of alerts) add(a, { agency: key });
  for (const [key, alerts] of state.alerts.routes) for (const a of alerts) add(a, { route: key });
  for (const [key, { alerts }] of state.alerts.stops) for (const a of alerts) add(a, { stop: key });
  state.alerts.list = items;
  $("alert-count").textContent = items.length ? `(${items.length})` : "";
  $("alerts").innerHTML = items.map((it, i) => `<li data-i="${i}">${alertHtml([it.alert])}<div class="muted">${it.where.slice(0, 8).map((w) => w.route ? routeBadge(state.routes.get(w.route)?.properties ?? { route_id: w.route.slice(w.route.indexOf(":") + 1) }) : w.stop ? `stop ${esc(w.stop.slice(w.stop.indexOf(":") + 1))}` : esc(state.agencies.get(w.agency) ?? `agency ${w.agency.slice(w.agency.indexOf(":") + 1)}`)).join(", ")}${it.where.length > 8 ? ` and ${it.where.length - 8} more` : ""}</div></li>`).join("") || `<li class="muted">no active alerts</li>`;
  for (const li of $("alerts").querySelectorAll("li[data-i]")) li.addEventListener("click", () => {
    const w = items[Number(li.dataset.i)].where[0];
    if (w.stop) showStop(w.stop, { fly: true });
    else if (w.route) showRoute(w.route);
  });
}

// ---------------------------------------------------------------- clicks

map.on("click", (ev) => {
  if (state.tab === "plan") {
    if (!state.from || (state.from && state.to)) {
      if (state.from && state.to) {
        markers.to?.remove();
        markers.to = null;
        state.to = null;
        $("to-text").textContent = "then click again";
      }
      setPlace("from", ev.lngLat);
    } else {
      setPlace("to", ev.lngLat);
      runPlan();
    }
    return;
  }
  if (state.tab === "iso") {
    runIsochrone(ev.lngLat);
    return;
  }
  const box = [[ev.point.x - 4, ev.point.y - 4], [ev.point.x + 4, ev.point.y + 4]];
  const cluster = map.queryRenderedFeatures(box, { layers: ["stop-clusters"] })[0];
  if (cluster) {
    // a cluster of the thinned tiles: zoom in towards it (every stop is on its own from CLUSTER_MAX_ZOOM on)
    map.easeTo({ center: cluster.geometry.coordinates, zoom: Math.min(CLUSTER_MAX_ZOOM, map.getZoom() + 2) });
    return;
  }
  // the stop layers, also under the reachability view's circles
  const stop = map.queryRenderedFeatures(box, { layers: STOP_LAYERS })[0];
  if (stop?.properties.gtfsId) return void showStop(stop.properties.gtfsId);
  const route = map.queryRenderedFeatures(box, { layers: ["routes"] })[0];
  if (route?.properties.gtfsId) return void showRoute(route.properties.gtfsId, route.properties);
});

const popup = new maplibregl.Popup({ closeButton: false, closeOnClick: false, offset: 8 });
map.on("mousemove", (ev) => {
  const f = map.queryRenderedFeatures(ev.point, { layers: ["reach", ...STOP_LAYERS, "routes"] })[0];
  if (!f) {
    popup.remove();
    if (state.tab === "explore") map.getCanvas().style.cursor = "";
    return;
  }
  if (state.tab === "explore") map.getCanvas().style.cursor = "pointer";
  const p = f.properties;
  const html = f.layer.id === "reach" && p.window !== undefined ? `${esc(p.name)}<br>${p.minutes} min at the median of ${esc(p.window)} (5th–95th percentile: ${p.p5 ?? "–"}–${p.p95 ?? "not reached"} min)`
    : f.layer.id === "reach" ? `${esc(p.name)}<br>${p.minutes} min (arrive ${clockIn(p.arrival, p.tz)})`
    : STOP_LAYERS.includes(f.layer.id) ? esc(p.name ?? p.gtfsId)
    : `${esc(p.shortName || p.longName || p.gtfsId)} <span class="muted">${esc(state.routes.get(p.gtfsId)?.properties.agency_name ?? "")}</span>`;
  popup.setLngLat(ev.lngLat).setHTML(html).addTo(map);
});

// ---------------------------------------------------------------- the page's hook for tests and checks

/**
 * The stops drawn in the current view, from the rendered tile features: `ids`, the stop keys
 * (gtfsId, `<feed onestop id>:<stop_id>`) of the stops drawn on their own whose coordinates (the
 * tile's) are inside the view's bbox (a feature in a tile's buffer is drawn by two tiles: counted once); `clusters`, the cluster circles drawn (below
 * CLUSTER_MAX_ZOOM) and `clustered`, the stops they stand for (their counts: each stop is in one
 * tile's count). `bbox` is the view as the catalog's bbox parameter takes it.
 */
function stopsInView() {
  const b = map.getBounds();
  const bbox = [b.getWest(), b.getSouth(), b.getEast(), b.getNorth()];
  const inside = (c) => c && c[0] >= bbox[0] && c[0] <= bbox[2] && c[1] >= bbox[1] && c[1] <= bbox[3];
  const ids = new Set();
  const clusters = new Map();
  for (const f of map.queryRenderedFeatures({ layers: [...STOP_LAYERS, "stop-clusters"] })) {
    if (f.layer.id === "stop-clusters") clusters.set(f.properties.gtfsId, f.properties.count);
    else if (inside(f.geometry?.coordinates)) ids.add(f.properties.gtfsId);
  }
  return { bbox: bbox.join(","), zoom: map.getZoom(), clusters: clusters.size, clustered: [...clusters.values()].reduce((a, n) => a + n, 0), ids: [...ids].sort() };
}

// ---------------------------------------------------------------- start

window.__interchange = { map, state, api, setTab, showStop, showRoute, runPlan, stopsInView, ready: null, CLUSTER_MAX_ZOOM, STOP_LAYERS };
window.__interchange.ready = (async () => {
  await loaded;
  await loadDataset().catch((e) => failed("dataset", e));
  await loadAlerts();
  const n = (x, one, many) => `${x} ${x === 1 ? one : many}`;
  if ($("status").className !== "error") status(`alerts on ${n(state.alerts.stops.size, "stop", "stops")}, ${n(state.alerts.routes.size, "route", "routes")}, ${n(state.alerts.agencies.size, "agency", "agencies")}`);
  state.ready = true;
})();
