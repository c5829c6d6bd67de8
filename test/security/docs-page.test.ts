/**
 * FEATURE UNDER TEST: the API reference at /docs in a real browser (Debian's headless Chromium):
 * Swagger UI loads from this server under its Content-Security-Policy (no violation, no console
 * error, no request to another host) and lists the service's operations from /docs/json; another
 * site cannot frame it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { type RunningServer, startServer } from "../../server/main.ts";
import { serverConfigFrom } from "../../server/config.ts";
import { importedDataset } from "../support/dataset.ts";
import { hasChromium, launchBrowser, openPage } from "../map/browser.ts";

const quiet = { info() {}, warn() {}, error() {} };

describe.skipIf(!hasChromium)("the API reference page in headless Chromium", () => {
  let server: RunningServer;
  let browser: Browser;
  beforeAll(async () => {
    const dir = await importedDataset("docs-page-bart", ["bart"]);
    server = await startServer(serverConfigFrom({ data: dir, port: 0, host: "127.0.0.1", noAuth: true }), { log: quiet });
    browser = await launchBrowser();
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  test("Swagger UI renders the operations from this server only, with no CSP violation or console error", async () => {
    const { page, log } = await openPage(browser, server.url);
    const res = await page.goto(`${server.url}/docs`);
    expect(res?.status()).toBe(200);
    expect(res?.headers()["content-security-policy"]).toContain("default-src 'self'");
    await page.waitForSelector(".opblock", { timeout: 60_000 });
    const operations = await page.locator(".opblock-summary-path").allTextContents();
    expect(operations.some((p) => p.includes("/api/v2/rest/stops"))).toBe(true);
    expect(operations.some((p) => p.includes("/api/v2/routing/valhalla/route"))).toBe(true);
    expect(log.external).toEqual([]);
    expect(log.errors).toEqual([]);
    await page.close();
  });

  test("another site cannot frame /docs or /map", async () => {
    const { page, log } = await openPage(browser, server.url);
    // a page of another origin (a data: URL is opaque) that frames both
    await page.setContent(`<iframe id="d" src="${server.url}/docs"></iframe><iframe id="m" src="${server.url}/map"></iframe>`);
    await page.waitForTimeout(1500);
    for (const id of ["d", "m"]) {
      const frame = await (await page.$(`#${id}`))!.contentFrame();
      const body = frame ? await frame.content().catch(() => "") : "";
      expect(body).not.toContain("swagger-ui");
      expect(body).not.toContain("maplibre");
    }
    expect(log.errors.some((e) => /frame-ancestors|X-Frame-Options|refused to (display|connect)/i.test(e))).toBe(true);
    await page.close();
  });
});
