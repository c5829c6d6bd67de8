/**
 * Hostile Host headers and request targets, sent as raw HTTP/1.1 over a socket (fetch normalises
 * paths and refuses odd Hosts), and the rules their answers keep (issue 31, items 1, 3 and 6):
 * - without an API key, nothing derived from an API route (every path of the OpenAPI document but
 *   the docs, /health and the map; /otp/gtfs/v1 too) answers 2xx: a 2xx there is a key bypass;
 * - a malformed Host (not `reg-name` or `[IP-literal]` with an optional port of at most 65535, or
 *   missing) is answered 400;
 * - no answer is a 5xx but the street's documented 503, HTML outside the HTML pages, or a body with
 *   a stack frame or a file path.
 * Targets: `//api/...`, `/x/api/...`, `/xx/api/...`, dot segments plain and encoded, `%2f`,
 * absolute-form, asterisk-form, no leading slash, backslashes, doubled slashes inside.
 */
import fc from "fast-check";
import { type Answer, leaks, violation } from "./contract.ts";
import { familyOf } from "./hostile.ts";

/** A raw request and what its answer must keep. */
export interface RawCase {
  label: string;
  bytes: Uint8Array;
  method: string;
  /** sent with a valid API key */
  keyed: boolean;
  /** the target derives from an API route (so 2xx without a key is a bypass) */
  api: boolean;
  /** the Host header is malformed or missing (so the answer must be 400) */
  badHost: boolean;
  /** the API route the target derives from (its family decides the error body) */
  route: string;
  /** the target is the route's own path ("as is"): otherwise it is routed elsewhere or refused before routing */
  plain: boolean;
}

/** A raw answer: status (null when the server closed without one), content type and body. */
export interface RawAnswer extends Answer {
  answered: boolean;
}

const enc = (s: string) => new TextEncoder().encode(s);
const concat = (...parts: (Uint8Array | string)[]) => {
  const bs = parts.map((p) => (typeof p === "string" ? enc(p) : p));
  const out = new Uint8Array(bs.reduce((n, b) => n + b.length, 0));
  let o = 0;
  for (const b of bs) (out.set(b, o), (o += b.length));
  return out;
};

/**
 * A Host header as RFC 9112 and RFC 3986 allow it (kept to what services see): a registered name of
 * letters, digits, `-`, `_` and `.`, or an IPv6/IPv4 literal in brackets, with an optional port of
 * 1 to 5 digits at most 65535. Not valid: everything else, an empty or missing header, two headers.
 */
export function hostIsValid(host: string | null): boolean {
  if (host === null || host === "") return false;
  const m = /^(?:[A-Za-z0-9_](?:[A-Za-z0-9_.-]*[A-Za-z0-9_.])?|\[[0-9A-Fa-f:.]+\])(?::(\d{1,5}))?$/.exec(host);
  return m !== null && (m[1] === undefined || Number(m[1]) <= 65535);
}

/** Host values: short (lengths 0 to 5), IP literals, malformed, long, not ASCII (bytes), with what RFC says of each. */
export function hostileHosts(real: string): { label: string; value: Uint8Array | null; valid: boolean | "either" }[] {
  const h = (value: string, valid: boolean | "either" = hostIsValid(value)) => ({ label: JSON.stringify(value.length > 40 ? `${value.slice(0, 12)}...(${value.length})` : value), value: enc(value), valid });
  return [
    h(real),
    h("", false),
    h("a"),
    h("ab"),
    h("abc"),
    h("abcd"),
    h("abcde"),
    h("x]"),
    h("a:b:c"),
    h("a b"),
    h("::1"),
    h("[::1]"),
    h("[::1]:8080"),
    h("[::ffff:127.0.0.1]"),
    h("[::1"),
    h("[zz::1]"),
    h("[fe80::1%25eth0]"),
    h("127.0.0.1:99999"),
    h("127.0.0.1:"),
    h(":80"),
    h("a/b"),
    h("a?b"),
    h("a#b"),
    h("a@b"),
    h("a%41"),
    h("localhost"),
    h("example.org:80"),
    h("h".repeat(253), "either"),
    h("h".repeat(4_000), "either"),
    { label: "bytes ff fe", value: new Uint8Array([0xff, 0xfe]), valid: false },
    { label: "UTF-8 é.example", value: enc("é.example"), valid: false },
    { label: "no Host header", value: null, valid: false },
  ];
}

/** The request targets derived from one API path (path and query, as sent). */
export function hostileTargets(p: string, host: string): { label: string; target: string }[] {
  const [path, query] = p.includes("?") ? [p.slice(0, p.indexOf("?")), p.slice(p.indexOf("?"))] : [p, ""];
  const segs = path.split("/");
  const t = (label: string, target: string) => ({ label, target });
  return [
    t("as is", p),
    t("//", `/${p}`),
    t("/x", `/x${p}`),
    t("/xx", `/xx${p}`),
    t("/xxx", `/xxx${p}`),
    t("/xxxxxxxx", `/xxxxxxxx${p}`),
    t("/./", `/.${p}`),
    t("/x/../", `/x/..${p}`),
    t("/%2e/", `/%2e${p}`),
    t("/x/%2e%2e/", `/x/%2e%2e${p}`),
    t("/%2e%2e/", `/%2e%2e${p}`),
    t("inner /./", `${segs.slice(0, 3).join("/")}/.${"/" + segs.slice(3).join("/")}${query}`),
    t("inner /../", `${segs.slice(0, 3).join("/")}/x/..${"/" + segs.slice(3).join("/")}${query}`),
    t("%2f", `${segs.slice(0, 2).join("/")}%2f${segs.slice(2).join("/")}${query}`),
    t("%2F everywhere", `${path.replace(/\//g, "%2F")}${query}`),
    t("inner //", `${segs.slice(0, 2).join("/")}//${segs.slice(2).join("/")}${query}`),
    t("trailing /", `${path}/${query}`),
    t("no leading /", p.slice(1)),
    t("backslashes", `${path.replace(/\//g, "\\")}${query}`),
    t("upper case", `${path.toUpperCase()}${query}`),
    t(";param", `${segs.slice(0, 2).join("/")};x/${segs.slice(2).join("/")}${query}`),
    t("absolute-form", `http://${host}${p}`),
    t("absolute-form, other host", `http://x${p}`),
    t("absolute-form, https", `https://${host}${p}`),
    t("absolute-form, no path slash", `http://${host}${p.slice(1)}`),
    t("asterisk-form", "*"),
  ];
}

/** The API routes of the OpenAPI document, instantiated (path keys filled in), plus routes added later. */
export function apiRoutes(paths: string[], fill: (name: string) => string): string[] {
  const out = paths
    .filter((p) => p.startsWith("/api/") || p.startsWith("/otp/"))
    .map((p) => p.replace(/\{([^}]+)\}/g, (_, n: string) => encodeURIComponent(fill(n))));
  return [...new Set([...out, "/otp/gtfs/v1"])];
}

/**
 * Raw cases: every API route under every target form and Host, with and without a key (fast-check
 * draws from these; the hand-made list in hostile.ts stays as it was).
 */
export function rawCaseArbitrary(routes: string[], real: string, key: string, extraQuery: (route: string) => string): fc.Arbitrary<RawCase> {
  const hosts = hostileHosts(real);
  return fc
    .record({
      route: fc.constantFrom(...routes),
      hostIndex: fc.oneof({ arbitrary: fc.constant(0), weight: 3 }, { arbitrary: fc.nat(hosts.length - 1), weight: 5 }),
      formIndex: fc.nat(25),
      keyed: fc.constantFrom(false, false, false, true),
      method: fc.constantFrom("GET", "GET", "GET", "POST", "HEAD", "OPTIONS"),
    })
    .map(({ route, hostIndex, formIndex, keyed, method }) => rawCase(route, hosts[hostIndex]!, formIndex, keyed, method, real, key, extraQuery));
}

/** One raw case from its parts. */
export function rawCase(route: string, host: ReturnType<typeof hostileHosts>[number], formIndex: number, keyed: boolean, method: string, real: string, key: string, extraQuery: (route: string) => string): RawCase {
  const q = extraQuery(route);
  const forms = hostileTargets(q ? `${route}?${q}` : route, real);
  const form = forms[formIndex % forms.length]!;
  const target = form.label === "asterisk-form" ? "*" : form.target;
  const body = method === "POST" ? (route.includes("/valhalla/") ? '{"costing":"pedestrian","locations":[{"lat":37.7793,"lon":-122.4193},{"lat":37.7895,"lon":-122.3972}]}' : '{"query":"{feeds{feedId}}"}') : "";
  const bytes = concat(
    `${method} ${target} HTTP/1.1\r\n`,
    ...(host.value === null ? [] : ["Host: ", host.value, "\r\n"]),
    keyed ? `apikey: ${key}\r\n` : "",
    body ? `Content-Type: application/json\r\nContent-Length: ${enc(body).length}\r\n` : "",
    "Connection: close\r\n\r\n",
    body,
  );
  return {
    label: `raw ${method} ${form.label} ${route} Host ${host.label}${keyed ? " keyed" : " no key"}`,
    bytes,
    method,
    keyed,
    api: form.label !== "asterisk-form",
    badHost: host.valid === false,
    route,
    // a Host valid or not by length alone ("either") may be refused before routing: not held to the family's body
    plain: form.label === "as is" && host.valid === true,
  };
}

/** The violation of a raw answer, or null. */
export function rawViolation(c: RawCase, a: RawAnswer): string | null {
  const method = c.method;
  if (!a.answered) return c.badHost ? "no answer (a malformed Host must be answered 400)" : null;
  if (c.badHost && a.status !== 400) return `status ${a.status} for a malformed Host (400 expected)`;
  // a CORS preflight (OPTIONS answered 204 with no body) carries no data: not a bypass
  const preflight = method === "OPTIONS" && a.status === 204 && a.body.length === 0;
  if (!c.keyed && c.api && a.status >= 200 && a.status < 300 && !preflight) return `API key bypass: ${a.status} without a key`;
  // Bun's HTTP parser refusing a request line it cannot read: a bare 400, before the service sees it
  if (a.status === 400 && a.body.length === 0 && a.contentType === "") return null;
  const html = a.contentType.includes("html") || /^\s*<(!doctype|html)/i.test(new TextDecoder().decode(a.body.slice(0, 64)));
  if (html) return `HTML answer (${a.status}, ${a.contentType})`;
  if (leaks(a.body)) return `the body leaks internals (${a.status})`;
  // the route's own path with a good Host: the route's family's body. Otherwise the request was
  // refused before routing (the service-wide body), or the server's parser resolved the target back
  // to the route's path (dot segments, absolute-form: the family's body) or to another path (the
  // service-wide body): either documented body will do
  if (c.plain && !c.badHost) return violation(familyOf(c.route), method, a);
  const asFamily = violation(familyOf(c.route), method, a);
  return asFamily === null ? null : violation("other", method, a) === null ? null : asFamily;
}

/** Splits a raw HTTP/1.1 answer: status, headers, body (chunked bodies joined). */
export function parseRawAnswer(bytes: Uint8Array): RawAnswer {
  const text = new TextDecoder("latin1").decode(bytes);
  const m = /^HTTP\/1\.[01] (\d{3})/.exec(text);
  const end = text.indexOf("\r\n\r\n");
  if (!m || end < 0) return { answered: false, status: 0, contentType: "", body: new Uint8Array() };
  const head = text.slice(0, end).toLowerCase();
  const contentType = /\r\ncontent-type:\s*([^\r\n]*)/.exec(head)?.[1] ?? "";
  let body = bytes.slice(end + 4);
  if (/\r\ntransfer-encoding:\s*chunked/.test(head)) {
    const parts: Uint8Array[] = [];
    let o = 0;
    const t = new TextDecoder("latin1").decode(body);
    while (o < t.length) {
      const nl = t.indexOf("\r\n", o);
      if (nl < 0) break;
      const n = parseInt(t.slice(o, nl), 16);
      if (!(n > 0)) break;
      parts.push(body.slice(nl + 2, nl + 2 + n));
      o = nl + 2 + n + 2;
    }
    body = concat(...parts);
  }
  return { answered: true, status: Number(m[1]), contentType, body };
}

/** Sends raw bytes on a new connection and reads the answer until the server closes (or the time-out). */
export function sendRaw(port: number, bytes: Uint8Array, timeoutMs: number): Promise<RawAnswer> {
  return new Promise((resolve) => {
    const chunks: Uint8Array[] = [];
    let settled = false;
    const done = () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(parseRawAnswer(concat(...chunks)));
    };
    const timer = setTimeout(done, timeoutMs);
    void Bun.connect({
      hostname: "127.0.0.1",
      port,
      socket: {
        open: (s) => void s.write(bytes),
        data: (_s, d) => void chunks.push(new Uint8Array(d)),
        close: done,
        error: done,
        end: (s) => void s.end(),
      },
    }).catch(done);
  });
}
