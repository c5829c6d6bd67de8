/**
 * A real headless browser for the map page's tests: Debian's chromium (/usr/bin/chromium,
 * installed by scripts/install-services.sh) driven by playwright-core. WebGL without a GPU comes
 * from SwiftShader (ANGLE's software Vulkan device): `--use-angle=swiftshader
 * --enable-unsafe-swiftshader` (Chromium 156 falls back to it on its own, the flags keep it so when
 * that fallback is removed). The background-networking flags keep Chromium from calling home
 * (this machine has no internet: without them its log fills with refused connections).
 */
import { existsSync, mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";

export const CHROMIUM = "/usr/bin/chromium";
export const hasChromium = existsSync(CHROMIUM);
/** Screenshots of the runs (git-ignored), for a person to look at. */
export const ARTIFACTS = resolve(import.meta.dir, "..", "artifacts", "map");

export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--use-angle=swiftshader",
  "--enable-unsafe-swiftshader",
];

/** Chromium with a fresh profile (playwright's launch gives each browser a new temporary user-data-dir, removed on close). */
export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
}

/** What a page did that the tests check: console errors, uncaught exceptions, requests to other hosts, bytes read. */
export interface PageLog {
  errors: string[];
  external: string[];
  requests: string[];
  /** the answers of data requests (the API, /health, /v1/ and /map/data/; not tiles, glyphs or the page's own files), in the order they arrived, with their bodies' sizes (decoded) */
  answers: { url: string; bytes: number }[];
}

/** Is this URL a data request whose answer's size the log keeps? */
const isData = (u: string) => /^\/(api|v1|map\/data)\/|^\/health$/.test(new URL(u).pathname);

/** A new page (1400 x 900) whose console errors, page errors and requests are recorded. */
export async function openPage(browser: Browser, origin: string): Promise<{ page: Page; log: PageLog }> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const log: PageLog = { errors: [], external: [], requests: [], answers: [] };
  page.on("console", (m) => {
    if (m.type() === "error") log.errors.push(m.text());
  });
  page.on("pageerror", (e) => log.errors.push(`uncaught: ${e.message}`));
  page.on("request", (r) => {
    log.requests.push(r.url());
    const u = r.url();
    if (!u.startsWith(`${origin}/`) && !u.startsWith("data:") && !u.startsWith("blob:")) log.external.push(u);
  });
  page.on("response", (r) => {
    const u = r.url();
    if (!u.startsWith(`${origin}/`) || !isData(u)) return;
    r.body().then((b) => log.answers.push({ url: u, bytes: b.length }), () => {});
  });
  return { page, log };
}

/** Waits until the map has drawn everything it was given (maplibre's `idle`). */
export function mapIdle(page: Page): Promise<void> {
  return page.evaluate(
    () =>
      new Promise<void>((done) => {
        const m = (globalThis as any).__interchange.map;
        const settle = () => setTimeout(() => done(), 150);
        if (m.loaded() && !m.isMoving() && m.areTilesLoaded()) {
          // a setData right before may still be on its way through the worker
          m.once("idle", settle);
          m.triggerRepaint();
        } else m.once("idle", settle);
      }),
  );
}

/** Clicks the map where a coordinate is drawn (a real mouse click on the canvas). */
export async function clickMap(page: Page, lon: number, lat: number): Promise<void> {
  const p = await page.evaluate(([x, y]) => {
    const m = (globalThis as any).__interchange.map;
    const r = m.getCanvas().getBoundingClientRect();
    const q = m.project([x, y]);
    return { x: r.left + q.x, y: r.top + q.y, inside: q.x >= 0 && q.y >= 0 && q.x <= r.width && q.y <= r.height };
  }, [lon, lat]);
  if (!p.inside) throw new Error(`${lon},${lat} is not in the map's view`);
  await page.mouse.click(p.x, p.y);
}

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const path = join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path });
  return path;
}
