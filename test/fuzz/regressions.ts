/**
 * What fuzzing found, kept as fixed cases the fuzz test replays on every run (before the generated
 * requests): the hostile-client findings of issue 31 and every failure the fuzzer has found since
 * (each with the seed or the run that found it). A case is a request through fetch or raw bytes over
 * a socket; its answer must keep the same rules as a generated one (contract.ts, raw.ts), and the
 * server must still be alive after it. `finding` names where a case comes from: `FUZZ_ONLY=regressions`
 * replays only these, `FUZZ_CASE=<finding>` only the cases of one finding (e.g. issue-31-2).
 */
export interface RegressionCase {
  /** the finding this case reproduces: issue-31-1 ... issue-31-5, or fuzz-<date>-<n> */
  finding: string;
  label: string;
  /** sent through fetch: method, path with query (already encoded), headers, body */
  fetch?: { method: string; target: string; keyed: boolean; body?: string };
  /** sent as raw HTTP/1.1: request line target, Host (null: no Host header), keyed */
  raw?: { method: string; target: string; host: string | Uint8Array | null; keyed: boolean };
}

const street = "/api/v2/routing/valhalla";
const A = '{"lat":37.7793,"lon":-122.4193}';
const B = '{"lat":37.7895,"lon":-122.3972}';
const post = (finding: string, label: string, action: string, body: string): RegressionCase => ({ finding, label, fetch: { method: "POST", target: `${street}/${action}`, keyed: true, body } });
const raw = (finding: string, label: string, target: string, host: string | Uint8Array | null, keyed = false, method = "GET"): RegressionCase => ({ finding, label, raw: { method, target, host, keyed } });

/** `host` stands for the server's own host:port in raw cases. */
export const OWN_HOST = "\u0000own";

export const REGRESSIONS: RegressionCase[] = [
  // 1. API key and rate-limit bypass: a Host of 3 characters or fewer and an empty leading segment
  raw("issue-31-1", "//api with Host abc, no key", "//api/v2/rest/stops?limit=1", "abc"),
  raw("issue-31-1", "/xx/api plan with Host x, no key", "/xx/api/v2/routing/otp/plan?fromPlace=37.7793,-122.4193&toPlace=37.8044,-122.2712&date=2019-06-04&time=08:00", "x"),
  raw("issue-31-1", "/x/api street status with Host ab, no key", `/x${street}/status`, "ab"),
  raw("issue-31-1", "//api with the real Host, no key", "//api/v2/rest/stops?limit=1", OWN_HOST),
  // 2. one request kills the process: durations outside the trace actions, negative isochrone contours in expansion
  { finding: "issue-31-2", label: "status ?json= with empty durations", fetch: { method: "GET", target: `${street}/status?json=${encodeURIComponent('{"durations":[]}')}`, keyed: true } },
  post("issue-31-2", "route with empty durations", "route", `{"costing":"pedestrian","locations":[${A},${B}],"durations":[]}`),
  post("issue-31-2", "locate with empty durations", "locate", `{"costing":"pedestrian","locations":[${A}],"durations":[]}`),
  // found by the 200k run after the fixes: a key written twice (JSON.parse keeps the last, the engine the first)
  post("fuzz-dup-key", "expansion with a negative contour hidden behind a valid one", "expansion", `{"costing":"motorcycle","locations":[${A}],"action":"isochrone","contours":[{"time":-3052.8892667545083}],"contours":[{"time":5}]}`),
  post("fuzz-dup-key", "height with NaN shape hidden behind a valid one", "height", `{"shape":[{"lat":37.7793,"lon":"NaN"},{"lat":37.7895,"lon":"NaN"}],"shape":[${A},${B}]}`),
  // found by the 200k run on the final code: binary answers (pbf status, geotiff isochrone) labelled JSON
  { finding: "fuzz-binary-format", label: "status ?json= with format pbf", fetch: { method: "GET", target: `${street}/status?json=${encodeURIComponent('{"format":"pbf"}')}`, keyed: true } },
  post("fuzz-binary-format", "isochrone with format geotiff", "isochrone", `{"costing":"pedestrian","locations":[${A}],"contours":[{"time":5}],"format":"geotiff"}`),
  // found by the 200k run: a tiny elevation_interval made the engine sample without end
  post("fuzz-elevation-interval", "optimized_route with elevation_interval 1e-24", "optimized_route", `{"costing":"auto","locations":[${A},${B}],"elevation_interval":1.1184430009198675e-24}`),
  post("issue-31-2", "isochrone with empty durations", "isochrone", `{"costing":"pedestrian","locations":[${A}],"contours":[{"time":5}],"durations":[]}`),
  ...["-1000", "-1e9", "-1e308"].map((t) => post("issue-31-2", `expansion contour time ${t}`, "expansion", `{"costing":"pedestrian","locations":[${A}],"action":"isochrone","contours":[{"time":${t}}]}`)),
  post("issue-31-2", "expansion contour distance -1e308", "expansion", `{"costing":"pedestrian","locations":[${A}],"action":"isochrone","contours":[{"distance":-1e308}]}`),
  // 3. Bun's development error page: Hosts new URL() cannot read
  raw("issue-31-3", "Host x]", "/api/v2/rest/stops?limit=1", "x]", true),
  raw("issue-31-3", "empty Host", "/api/v2/rest/stops?limit=1", "", true),
  raw("issue-31-3", "Host a:b:c", "/api/v2/rest/stops?limit=1", "a:b:c", true),
  raw("issue-31-3", "Host a b", "/api/v2/rest/stops?limit=1", "a b", true),
  raw("issue-31-3", "Host x] on /health", "/health", "x]"),
  raw("issue-31-3", "Host not ASCII", "/api/v2/rest/stops?limit=1", new Uint8Array([0xff, 0xfe]), true),
  // 5. the map's static files: invalid percent-encoding
  raw("issue-31-5", "/map/%zz", "/map/%zz", OWN_HOST),
  raw("issue-31-5", "/map/%c0", "/map/%c0", OWN_HOST),
  raw("issue-31-5", "/map/vendor/%", "/map/vendor/%", OWN_HOST),
  // found by the generated raw requests (FUZZ_CASE=none FUZZ_ONLY=catalog,plan,other, seed 23, 10,000 runs) on commit f210ea2
  raw("issue-31-1", "/xx/api with Host a, no key", "/xx/api/v2/rest/routes.json?limit=1", "a"),
  raw("issue-31-1", "/xxx/api with Host a, no key", "/xxx/api/v2/rest/routes?limit=1", "a"),
  raw("issue-31-3", "Host [fe80::1%25eth0] (zone id)", "/api/v2/rest/stops?limit=1", "[fe80::1%25eth0]", true),
  raw("issue-31-3", "Host [zz::1]", "/api/v2/rest/stops?limit=1", "[zz::1]", true),
  raw("issue-31-3", "Host a/b", "//api/v2/rest/routes?limit=1", "a/b", true),
  raw("issue-31-3", "Host a@b", "/xxx/api/v2/rest/routes?limit=1", "a@b"),
  // found by the merged fuzzer: a port beyond 65535 made the request URL unparsable (500)
  raw("fuzz-port", "Host 127.0.0.1:99999", "/api/v2/rest/routes/1?limit=1", "127.0.0.1:99999", true),
  raw("fuzz-port", "Host 127.0.0.1:99999 on an unknown path", "/xx/api/v2/routing/valhalla/isochrone", "127.0.0.1:99999"),
  raw("fuzz-2026-11-28-1", "Host a%41 (percent sign) answered 404, not 400", "/x/../api/v2/rest/stops?limit=1", "a%41", true),
  raw("fuzz-2026-11-28-1", "Host a%41 with /xx answered 200, not 400", "/xx/api/v2/rest/routes.json?limit=1", "a%41", true),
  raw("fuzz-2026-11-28-1", "Host 127.0.0.1: (empty port) answered 200, not 400", "/x/../api/v2/rest/routes?limit=1", "127.0.0.1:", true),
];
