/**
 * Hand-made hostile inputs for the fuzzer: numbers that break parsers (huge, NaN, negative zero,
 * not finite), path traversal in keys and formats, invalid percent-encoding and UTF-8, deep JSON,
 * 1 MB bodies, duplicated and unknown parameters; and raw HTTP requests for what fetch() cannot
 * send (a literal "..", bytes that are not UTF-8 in the request line). Every value here is already
 * URL-safe text where it goes into a URL.
 */
import fc from "fast-check";
import type { FuzzRequest, KeyPools, Keys } from "./types.ts";

export type Family = "catalog" | "plan" | "street" | "other";

/** The family of a path whose error bodies the contract knows (catalog, plan, street); the rest, GraphQL and analysis included, is held to the service-wide rules ("other"). */
export function familyOf(path: string): Family {
  if (path.startsWith("/api/v2/rest/")) return "catalog";
  if (path.startsWith("/api/v2/routing/otp/")) return "plan";
  if (path.startsWith("/api/v2/routing/valhalla/")) return "street";
  return "other";
}

export const HOSTILE_PATH_SEGMENTS = [
  "..",
  "%2e%2e",
  "..%2F..%2Fmanifest.json",
  "%2e%2e%2f%2e%2e%2f%2e%2e%2fetc%2fpasswd",
  "..%5C..%5Cwindows",
  "%00",
  "a%00b",
  "%",
  "%zz",
  "%FF",
  "%C3%28",
  "%ED%A0%80",
  "%F4%90%80%80",
  "%EF%BB%BF",
  "-1",
  "0",
  "-0",
  "1e309",
  "NaN",
  "99999999999999999999999",
  "2147483648",
  ":",
  "f-9q9-bayarearapidtransit%3A",
  "%3A12TH",
  "s-",
  "r-",
  "x".repeat(2000),
  "%F0%9F%9A%86",
  "%E2%80%AE",
  "stops",
  "a%2Fb",
  "%252e%252e",
];

export const HOSTILE_FORMATS = ["csv", "JSON", "geojsonl%00", "json%2F..%2F..", "%2e%2e", "", "json.json", "geojson%3Fx%3D1", "x".repeat(300), "%FF", "pbf", "gpx"];

export const HOSTILE_PARAM_VALUES = [
  "NaN",
  "-NaN",
  "-0",
  "%2D0",
  "Infinity",
  "-Infinity",
  "1e309",
  "-1e309",
  "1e-400",
  "5e-324",
  "1.7976931348623157e308",
  "9007199254740993",
  "99999999999999999999999999999",
  "0x10",
  "0b1",
  "1_000",
  "%201",
  "1%20",
  "",
  "%",
  "%zz",
  "%FF",
  "%C3%28",
  "%ED%A0%80",
  "%00",
  "..%2F..%2F..%2Fmanifest.json",
  "%2Fetc%2Fpasswd",
  "%5B%5D",
  "%7B%7D",
  "true",
  "yes",
  "null",
  "undefined",
  "__proto__",
  "%2C%2C%2C",
  "1%2C2%2C3%2C4%2C5%2C6",
  "91%2C181",
  "-90.0000001",
  "x".repeat(4000),
  "%F0%9F%92%A9".repeat(50),
  "%E2%80%AE%E2%80%AD",
  "%EF%BF%BE",
];

/** A street body as JSON text with `extra` spliced into its object (a raw piece of JSON). */
function route(bbox: [number, number, number, number], extra = ""): string {
  const lat = (bbox[1] + bbox[3]) / 2;
  const lon = (bbox[0] + bbox[2]) / 2;
  return `{"locations":[{"lat":${lat},"lon":${lon}},{"lat":${lat + 0.005},"lon":${lon + 0.005}}],"costing":"pedestrian"${extra}}`;
}

const bytes = (...parts: (string | number[])[]) => new Uint8Array(parts.flatMap((p) => (typeof p === "string" ? [...new TextEncoder().encode(p)] : p)));

/** Hostile street bodies: deep, huge, not UTF-8, not JSON, prototype keys, duplicated keys, odd numbers. */
const bodyCache = new Map<string, fc.Arbitrary<string | Uint8Array>>();

export function hostileBodies(bbox: [number, number, number, number]): fc.Arbitrary<string | Uint8Array> {
  const known = bodyCache.get(bbox.join());
  if (known) return known;
  const MB = 1 << 20;
  const cases: (string | Uint8Array)[] = [
    "",
    "null",
    "[]",
    "1",
    '"locations"',
    "{",
    "}",
    "{}",
    route(bbox).replace(/}$/, ",}"),
    `/* comment */${route(bbox)}`,
    `\uFEFF${route(bbox)}`,
    route(bbox, ',"costing":"auto","costing":"bicycle"'),
    route(bbox, ',"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}'),
    route(bbox).replace(/"lat":[^,]+/, '"lat":NaN'),
    route(bbox).replace(/"lat":[^,]+/, '"lat":1e400'),
    route(bbox).replace(/"lat":[^,]+/, '"lat":-0'),
    route(bbox).replace(/"lon":[^}]+/, '"lon":-1e400'),
    route(bbox).replace(/"lat":[^,]+/, '"lat":"37.78"'),
    route(bbox, ',"costing_options":{"pedestrian":{"walking_speed":1e308,"max_distance":-0}}'),
    route(bbox, ',"id":"\u0000\uD800\uDFFF\u202E"'),
    route(bbox, `,"x":"${"x".repeat(MB)}"`),
    "x".repeat(MB),
    `{"locations":[${Array.from({ length: 40_000 }, () => `{"lat":${bbox[1]},"lon":${bbox[0]}}`).join(",")}],"costing":"auto"}`,
    "[".repeat(200_000) + "]".repeat(200_000),
    '{"a":'.repeat(100_000),
    route(bbox, `,"costing_options":{"pedestrian":${'{"a":'.repeat(5_000)}1${"}".repeat(5_000)}}`),
    route(bbox, `,"unknown":${"[".repeat(5_000)}${"]".repeat(5_000)}`),
    `{"locations":[{"lat":${bbox[1]},"lon":${bbox[0]},"search_filter":${'{"a":'.repeat(5_000)}1${"}".repeat(5_000)}},{"lat":${bbox[3]},"lon":${bbox[2]}}],"costing":"auto"}`,
    `{"shape":[${Array.from({ length: 51 }, () => `{"lat":${bbox[1]},"lon":${bbox[0]}}`).join(",")}]}`,
    `{"locations":[{"lat":${bbox[1]},"lon":${bbox[0]}}],"costing":"pedestrian","contours":[{"time":1e308},{"distance":-0}]}`,
    `{"locations":[{"lat":${bbox[1]},"lon":${bbox[0]}}],"costing":"auto","contours":[{"time":100}],"polygons":true,"denoise":1e-300,"generalize":1e300}`,
    bytes('{"locations":[{"lat":37.78,"lon":-122.41,"name":"', [0xff, 0xfe, 0xc3, 0x28, 0xed, 0xa0, 0x80], '"},{"lat":37.79,"lon":-122.4}],"costing":"auto"}'),
    bytes([0xff, 0xfe], "{}"),
    bytes([0xfe, 0xff, 0x00, 0x7b, 0x00, 0x7d]),
    bytes([0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00]),
    bytes([0, 0, 0, 0]),
  ];
  const arb = fc.constantFrom(...cases);
  bodyCache.set(bbox.join(), arb);
  return arb;
}

/** Hand-made requests through fetch (the fuzzer mixes them in, and sends each once first). */
export function hostileRequests(keys: Keys, pools: KeyPools, bbox: [number, number, number, number]): FuzzRequest[] {
  const k = { apikey: keys.valid };
  const json = { ...k, "content-type": "application/json" };
  const stop = encodeURIComponent(pools.stopKeys[0] ?? "x");
  const routeKey = encodeURIComponent(pools.routeKeys[0] ?? "x");
  const g = (label: string, path: string, query = "", headers: Record<string, string> = k): FuzzRequest => ({ label, method: "GET", path, query, headers });
  const out: FuzzRequest[] = [
    g("stop key: traversal", "/api/v2/rest/stops/..%2F..%2Fmanifest.json"),
    g("stop key: encoded dots", "/api/v2/rest/stops/%2e%2e%2fversions"),
    g("stop key: NUL", "/api/v2/rest/stops/%00"),
    g("stop key: invalid UTF-8", "/api/v2/rest/stops/%FF%FE"),
    g("stop key: lone surrogate", "/api/v2/rest/stops/%ED%A0%80"),
    g("stop key: bare percent", "/api/v2/rest/stops/%"),
    g("stop key: huge integer", "/api/v2/rest/stops/99999999999999999999999999"),
    g("stop key: negative", "/api/v2/rest/stops/-1"),
    g("stop key: feed without id", "/api/v2/rest/stops/f-9q9-bayarearapidtransit%3A"),
    g("format: traversal", `/api/v2/rest/stops/${stop}.json%2F..%2F..%2Fmanifest`),
    g("format: empty", "/api/v2/rest/stops."),
    g("format: NUL", "/api/v2/rest/stops.geojsonl%00"),
    g("format: double", "/api/v2/rest/stops.json.json"),
    g("route key: traversal", "/api/v2/rest/routes/..%2F..%2F/trips"),
    g("trip id: not an integer", `/api/v2/rest/routes/${routeKey}/trips/1e3`),
    g("trip id: huge", `/api/v2/rest/routes/${routeKey}/trips/99999999999999999999`),
    g("trip id: negative zero", `/api/v2/rest/routes/${routeKey}/trips/-0`),
    g("limit: 1e309", "/api/v2/rest/stops", "limit=1e309"),
    g("limit: NaN", "/api/v2/rest/stops", "limit=NaN"),
    g("limit: -0", "/api/v2/rest/stops", "limit=-0"),
    g("limit: hex", "/api/v2/rest/stops", "limit=0x10"),
    g("limit: twice", "/api/v2/rest/stops", "limit=1&limit=1000&limit=NaN"),
    g("after: huge", "/api/v2/rest/stops", "after=99999999999999999999999999"),
    g("radius search: negative zero", "/api/v2/rest/stops", "lat=-0&lon=-0&radius=-0"),
    g("radius search: infinite", "/api/v2/rest/stops", "lat=1e309&lon=-1e309&radius=1e309"),
    g("radius search: NaN", "/api/v2/rest/stops", "lat=NaN&lon=NaN&radius=NaN"),
    g("bbox: inverted, huge", "/api/v2/rest/stops", "bbox=1e309,-1e309,-1e309,1e309"),
    g("bbox: five numbers", "/api/v2/rest/stops", "bbox=1,2,3,4,5"),
    g("bbox: invalid UTF-8", "/api/v2/rest/stops", "bbox=%FF"),
    g("stops: every filter at once", "/api/v2/rest/stops.geojsonl", `bbox=${bbox.join(",")}&lat=37.78&lon=-122.41&radius=10000&stop_id=x&onestop_id=y&served_by_route_types=1,2,3&location_type=0&limit=1000&include_alerts=true`),
    g("trips: service date far away", `/api/v2/rest/routes/${routeKey}/trips`, "service_date=9999-12-31&relative_date=NEXT_MONDAY"),
    g("trips: relative date unknown", `/api/v2/rest/routes/${routeKey}/trips`, "relative_date=%00"),
    g("unknown parameters", "/api/v2/rest/stops", "foo=1&__proto__[polluted]=1&constructor[prototype][x]=1"),
    g("plan: nothing", "/api/v2/routing/otp/plan"),
    g("plan: places NaN", "/api/v2/routing/otp/plan", "fromPlace=NaN,NaN&toPlace=-0,-0"),
    g("plan: places huge", "/api/v2/routing/otp/plan", "fromPlace=1e309,1e309&toPlace=-1e309,1e309"),
    g("plan: invalid UTF-8 place", "/api/v2/routing/otp/plan", "fromPlace=%FF%FE&toPlace=%C3%28"),
    g("plan: duplicated places", "/api/v2/routing/otp/plan", "fromPlace=37.78,-122.41&fromPlace=37.79,-122.40&toPlace=37.80,-122.27&toPlace=x"),
    g("plan: huge numbers", "/api/v2/routing/otp/plan", "fromPlace=37.78,-122.41&toPlace=37.80,-122.27&date=2019-06-04&time=08:00&numItineraries=1e10&maxWalkDistance=1e309&walkSpeed=NaN&searchWindow=99999999999&maxTransfers=-0&walkReluctance=1e-400"),
    g("plan: time far away", "/api/v2/routing/otp/plan", "fromPlace=37.78,-122.41&toPlace=37.80,-122.27&date=99999-12-31&time=99999999999"),
    g("plan: 40 banned stops", "/api/v2/routing/otp/plan", `fromPlace=37.78,-122.41&toPlace=37.80,-122.27&date=2019-06-04&time=08:00&bannedStops=${Array.from({ length: 40 }, (_, i) => `x${i}`).join(",")}`),
    g("plan: long place name", "/api/v2/routing/otp/plan", `fromPlace=${"n".repeat(4000)}::37.78,-122.41&toPlace=37.80,-122.27`),
    g("street GET: json invalid UTF-8", "/api/v2/routing/valhalla/route", "json=%FF"),
    g("street GET: json twice", "/api/v2/routing/valhalla/route", `json=${encodeURIComponent(route(bbox))}&json=${encodeURIComponent("{}")}`),
    g("street GET: deep json", "/api/v2/routing/valhalla/route", `json=${"%5B".repeat(2000)}${"%5D".repeat(2000)}`),
    g("street GET: json with NaN", "/api/v2/routing/valhalla/route", `json=${encodeURIComponent(route(bbox).replace(/"lat":[^,]+/, '"lat":NaN'))}`),
    g("street: unknown action", "/api/v2/routing/valhalla/..%2F..%2Frest%2Fstops"),
    g("street: action traversal", "/api/v2/routing/valhalla/route%2F..%2Fstatus"),
    g("street: status with query", "/api/v2/routing/valhalla/status", "verbose=true&verbose=false"),
    g("no key", "/api/v2/rest/stops", "", {}),
    g("key in query and header", "/api/v2/rest/stops", `apikey=${keys.valid}&apikey=wrong`, { apikey: "wrong-key-123" }),
    g("docs: traversal", "/docs/..%2F..%2Fpackage.json"),
    g("health with junk", "/health", "x=%FF&y=1e309"),
  ];
  const posts: [string, string, string | Uint8Array, Record<string, string>?][] = [
    ["route: 1 MB string", "route", route(bbox, `,"x":"${"x".repeat(1 << 20)}"`)],
    ["route: 1 MB garbage", "route", "x".repeat(1 << 20)],
    ["route: deep arrays", "route", "[".repeat(200_000) + "]".repeat(200_000)],
    ["route: deep objects, unterminated", "route", '{"a":'.repeat(100_000)],
    ["route: deep costing options", "route", route(bbox, `,"costing_options":{"pedestrian":${'{"a":'.repeat(5_000)}1${"}".repeat(5_000)}}`)],
    ["route: invalid UTF-8 body", "route", bytes('{"locations":[{"lat":37.78,"lon":-122.41,"name":"', [0xff, 0xfe], '"},{"lat":37.79,"lon":-122.4}],"costing":"auto"}')],
    ["route: UTF-16 body", "route", bytes([0xff, 0xfe, 0x7b, 0x00, 0x7d, 0x00])],
    ["isochrone: NaN contour", "isochrone", `{"locations":[{"lat":${bbox[1]},"lon":${bbox[0]}}],"costing":"pedestrian","contours":[{"time":NaN}]}`],
    ["height: 51 points", "height", `{"shape":[${Array.from({ length: 51 }, () => `{"lat":${bbox[1]},"lon":${bbox[0]}}`).join(",")}]}`],
    ["matrix: 40k sources", "sources_to_targets", `{"sources":[${Array.from({ length: 40_000 }, () => `{"lat":${bbox[1]},"lon":${bbox[0]}}`).join(",")}],"targets":[{"lat":${bbox[3]},"lon":${bbox[2]}}],"costing":"auto"}`],
    ["route: gzip claimed, not gzip", "route", route(bbox), { ...json, "content-encoding": "gzip" }],
    ["route: no content type", "route", route(bbox), k],
    ["route: form content type", "route", route(bbox), { ...k, "content-type": "application/x-www-form-urlencoded" }],
    ["status: with a body", "status", "{}"],
  ];
  for (const [label, action, body, headers] of posts) out.push({ label, method: "POST", path: `/api/v2/routing/valhalla/${action}`, query: "", headers: headers ?? json, body });
  out.push({ label: "catalog: POST", method: "POST", path: "/api/v2/rest/stops", query: "", headers: json, body: "{}" });
  out.push({ label: "plan: DELETE", method: "DELETE", path: "/api/v2/routing/otp/plan", query: "", headers: k });
  out.push({ label: "plan: preflight", method: "OPTIONS", path: "/api/v2/routing/otp/plan", query: "", headers: { origin: "https://example.org", "access-control-request-method": "GET" } });
  return out;
}

/** Raw HTTP/1.1 requests (what fetch() would normalise or refuse), each on its own connection. */
export function rawRequests(host: string, key: string): { label: string; family: Family; bytes: Uint8Array }[] {
  const enc = (s: string) => new TextEncoder().encode(s);
  const head = (line: string | Uint8Array, extra = "") => {
    const l = typeof line === "string" ? enc(line) : line;
    return new Uint8Array([...l, ...enc(`\r\nHost: ${host}\r\napikey: ${key}\r\nConnection: close\r\n${extra}\r\n`)]);
  };
  return [
    { label: "raw: literal dot segments", family: "other", bytes: head("GET /api/v2/rest/stops/../../../manifest.json HTTP/1.1") },
    { label: "raw: dot segments in the format", family: "catalog", bytes: head("GET /api/v2/rest/stops.json/../../x HTTP/1.1") },
    { label: "raw: invalid UTF-8 in the path", family: "catalog", bytes: head(bytes("GET /api/v2/rest/stops/", [0xff, 0xfe, 0xc3, 0x28], " HTTP/1.1")) },
    { label: "raw: invalid UTF-8 in the query", family: "catalog", bytes: head(bytes("GET /api/v2/rest/stops?stop_id=", [0xff, 0xc3, 0x28], "&", [0xed, 0xa0, 0x80], "=1 HTTP/1.1")) },
    { label: "raw: invalid UTF-8 in a plan place", family: "plan", bytes: head(bytes("GET /api/v2/routing/otp/plan?fromPlace=", [0xff], "&toPlace=", [0xc0, 0xaf], " HTTP/1.1")) },
    { label: "raw: invalid UTF-8 in the key header", family: "catalog", bytes: new Uint8Array([...enc(`GET /api/v2/rest/stops HTTP/1.1\r\nHost: ${host}\r\napikey: `), 0xff, 0xfe, ...enc("\r\nConnection: close\r\n\r\n")]) },
    { label: "raw: two key headers", family: "catalog", bytes: head("GET /api/v2/rest/stops?limit=1 HTTP/1.1", "apikey: second-key-xyz\r\n") },
    { label: "raw: backslashes", family: "catalog", bytes: head("GET /api/v2/rest/stops/..\\..\\manifest.json HTTP/1.1") },
    { label: "raw: absolute URI", family: "catalog", bytes: head(`GET http://${host}/api/v2/rest/stops?limit=1 HTTP/1.1`) },
    { label: "raw: HTTP/1.0", family: "catalog", bytes: head("GET /api/v2/rest/stops?limit=1 HTTP/1.0") },
    { label: "raw: chunked body, bad chunk size", family: "street", bytes: enc(`POST /api/v2/routing/valhalla/route HTTP/1.1\r\nHost: ${host}\r\napikey: ${key}\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\nConnection: close\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`) },
    { label: "raw: invalid UTF-8 body", family: "street", bytes: new Uint8Array([...enc(`POST /api/v2/routing/valhalla/route HTTP/1.1\r\nHost: ${host}\r\napikey: ${key}\r\nContent-Type: application/json\r\nContent-Length: 4\r\nConnection: close\r\n\r\n`), 0x22, 0xff, 0xfe, 0x22]) },
    { label: "raw: 40 kB header", family: "catalog", bytes: head("GET /api/v2/rest/stops HTTP/1.1", `x-big: ${"a".repeat(40_000)}\r\n`) },
    { label: "raw: 100 kB URL", family: "catalog", bytes: head(`GET /api/v2/rest/stops?stop_id=${"a".repeat(100_000)} HTTP/1.1`) },
  ];
}
