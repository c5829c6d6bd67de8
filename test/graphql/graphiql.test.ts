/**
 * FEATURE UNDER TEST: the GraphiQL page on the GraphQL paths (server/graphql/graphiql.ts). A
 * browser's GET for HTML on /otp/gtfs/v1 (and OTP's older path) gets the page without a key, its
 * files come from this server (graphiql, react, react-dom from node_modules), JSON clients still
 * get GraphQL answers on GET and still need the key; in headless Chromium the page runs a query
 * with the key from its URL and shows the data, with no CSP violation, no console error and no
 * request to another origin.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { catalogServer, type TestServer } from "../catalog/harness.ts";
import { hasChromium, launchBrowser, openPage } from "../map/browser.ts";
import { wantsGraphiql } from "../../server/graphql/graphiql.ts";

const KEY = "graphiql-test-key";
const BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8";
const FEEDS = "{ feeds { feedId } }";

let s: TestServer;
let feedId: string;
beforeAll(async () => {
  s = await catalogServer("graphiql-bart", ["bart"], { apiKeys: [{ key: KEY, account: "graphiql" }] });
  const r = await fetch(`${s.url}/otp/gtfs/v1`, { method: "POST", headers: { "content-type": "application/json", apikey: KEY }, body: JSON.stringify({ query: FEEDS }) });
  feedId = ((await r.json()) as any).data.feeds[0].feedId;
}, 180_000);
afterAll(() => s?.stop());

describe("who gets the page", () => {
  test("a browser's accept header wants the page; JSON clients, */* and no accept do not", () => {
    const get = (accept?: string, method = "GET") => new Request("http://x/otp/gtfs/v1", { method, headers: accept ? { accept } : {} });
    expect(wantsGraphiql(get(BROWSER_ACCEPT))).toBe(true);
    expect(wantsGraphiql(get("text/html"))).toBe(true);
    expect(wantsGraphiql(get())).toBe(false);
    expect(wantsGraphiql(get("*/*"))).toBe(false);
    expect(wantsGraphiql(get("application/json"))).toBe(false);
    expect(wantsGraphiql(get("application/graphql-response+json, application/json;q=0.9"))).toBe(false);
    expect(wantsGraphiql(get("text/html, application/json"))).toBe(false);
    expect(wantsGraphiql(get("text/html;q=0, */*"))).toBe(false);
    expect(wantsGraphiql(get(BROWSER_ACCEPT, "POST"))).toBe(false);
  });
});

describe("over HTTP, no browser", () => {
  for (const path of ["/otp/gtfs/v1", "/otp/routers/default/index/graphql"]) {
    test(`${path}: a browser without a key gets the page, with the pages' security headers`, async () => {
      const r = await fetch(`${s.url}${path}`, { headers: { accept: BROWSER_ACCEPT } });
      expect(r.status).toBe(200);
      expect(r.headers.get("content-type")).toContain("text/html");
      const csp = r.headers.get("content-security-policy") ?? "";
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toMatch(/script-src[^;]*unsafe/);
      expect(r.headers.get("x-frame-options")).toBe("DENY");
      const html = await r.text();
      expect(html).toContain('id="graphiql"');
      // no inline script, nothing from elsewhere
      expect(html).not.toMatch(/<script>|<script [^>]*>[^<]/);
      expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
      for (const src of html.match(/(?<=(src|href)=")\/[^"]+/g) ?? []) {
        const a = await fetch(`${s.url}${src}`);
        expect(`${src} ${a.status}`).toBe(`${src} 200`);
        expect(a.headers.get("content-security-policy")).toBe(csp);
        expect((await a.arrayBuffer()).byteLength).toBeGreaterThan(1000);
      }
    });

    test(`${path}: JSON clients still get GraphQL answers on GET, with the key`, async () => {
      const url = `${s.url}${path}?query=${encodeURIComponent(FEEDS)}`;
      for (const accept of [undefined, "application/json", "application/graphql-response+json", "*/*"]) {
        const r = await fetch(url, { headers: { apikey: KEY, ...(accept ? { accept } : {}) } });
        expect(`${accept} ${r.status}`).toBe(`${accept} 200`);
        expect(r.headers.get("content-type")).toContain("json");
        expect(((await r.json()) as any).data.feeds).toContainEqual({ feedId });
      }
    });

    test(`${path}: without a key, a JSON client is refused as before (401, GraphQL error)`, async () => {
      const r = await fetch(`${s.url}${path}?query=${encodeURIComponent(FEEDS)}`, { headers: { accept: "application/json" } });
      expect(r.status).toBe(401);
      expect(((await r.json()) as any).errors[0].extensions.code).toBeString();
    });
  }

  test("a POST with a browser's accept header is the API (needs the key), never the page", async () => {
    const r = await fetch(`${s.url}/otp/gtfs/v1`, { method: "POST", headers: { accept: BROWSER_ACCEPT, "content-type": "application/json" }, body: JSON.stringify({ query: FEEDS }) });
    expect(r.status).toBe(401);
  });

  test("only the page's files are served; anything else under the files' path is a 404", async () => {
    for (const name of ["package.json", "..%2Fpackage.json", "graphiql.js", "react.development.js"]) {
      const r = await fetch(`${s.url}/otp/gtfs/v1/graphiql/${name}`);
      expect(`${name} ${r.status}`).toBe(`${name} 404`);
    }
  });
});

describe.skipIf(!hasChromium)("the page in headless Chromium", () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });

  test("runs a query with the key from its URL and shows the data; no CSP violation, console error or other origin", async () => {
    const { page, log } = await openPage(browser, s.url);
    const violations: string[] = [];
    await page.exposeFunction("__cspViolation", (v: string) => violations.push(v));
    await page.addInitScript(() => {
      const g = globalThis as any;
      g.document.addEventListener("securitypolicyviolation", (e: any) => g.__cspViolation(`${e.violatedDirective} ${e.blockedURI}`));
    });
    const sent: { url: string; apikey: string | undefined; body: string | null }[] = [];
    page.on("request", (r) => {
      if (r.method() === "POST") sent.push({ url: r.url(), apikey: r.headers()["apikey"], body: r.postData() });
    });
    const res = await page.goto(`${s.url}/otp/gtfs/v1?apikey=${KEY}`);
    expect(res?.status()).toBe(200);
    await page.waitForSelector(".graphiql-execute-button", { timeout: 60_000 });
    // the key left the address bar (kept in localStorage, as the map does)
    expect(page.url()).toBe(`${s.url}/otp/gtfs/v1`);
    // the default query asks for the feeds
    await page.click(".graphiql-execute-button");
    await page.waitForFunction((id) => ((globalThis as any).document.querySelector(".result-window")?.textContent ?? "").includes(id), feedId, { timeout: 30_000 });
    const result = await page.locator(".result-window").innerText();
    expect(result).toContain('"feeds"');
    expect(result).not.toContain('"errors"');
    // GraphiQL's introspection and the query: both to this path, with the key
    expect(sent.length).toBeGreaterThanOrEqual(2);
    for (const r of sent) {
      expect(r.url).toBe(`${s.url}/otp/gtfs/v1`);
      expect(r.apikey).toBe(KEY);
    }
    expect(sent.some((r) => r.body?.includes("feeds"))).toBe(true);
    expect(violations).toEqual([]);
    expect(log.external).toEqual([]);
    expect(log.errors).toEqual([]);
    await page.close();
  }, 120_000);
});
