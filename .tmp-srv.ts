import { rng } from "./bench/lib/args.ts";
const DATA = process.argv[2]!;
const t0 = performance.now();
const proc = Bun.spawn([process.execPath, "bin/interchange.ts", "serve", "--data", DATA, "--port", "0", "--host", "127.0.0.1", "--no-auth", "--workers", "1"], { stderr: "pipe", stdout: "ignore" });
let url = "";
const dec = new TextDecoder();
const reader = proc.stderr.getReader();
let buf = "";
while (!url) { const { value, done } = await reader.read(); if (done) break; buf += dec.decode(value); const m = /"url":"(http:[^"]+)"/.exec(buf) ?? /listening[^\n]*?(http:\/\/127\.0\.0\.1:\d+)/.exec(buf); if (m) url = m[1]!; }
(async () => { while (true) { const { value, done } = await reader.read(); if (done) break; for (const l of dec.decode(value).split("\n")) if (l && !l.includes("\"request\"") && !l.includes("GET ")) console.log("LOG", l.slice(0, 300)); } })();
while (true) { try { const h: any = await (await fetch(`${url}/health`)).json(); if (h.features?.catalog?.loaded !== false && h.features?.planner?.loaded) break; } catch {} await Bun.sleep(500); }
console.log("ready", ((performance.now() - t0) / 1000).toFixed(1), "s");
const manifest = JSON.parse(await Bun.file(`${DATA}/manifest.json`).text());
const feed = manifest.feeds.find((f: any) => f.source?.endsWith("c0-mta-subway")).onestop_id;
const s0 = ((await (await fetch(`${url}/api/v2/rest/stops?feed_onestop_id=${feed}&limit=1000`)).json()) as any).stops.filter((s: any) => s.geometry);
const rand = rng(7);
const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)]!;
const plan = (a: any, b: any, hour: number) => `${url}/api/v2/routing/otp/plan?fromPlace=${a.geometry.coordinates[1]},${a.geometry.coordinates[0]}&toPlace=${b.geometry.coordinates[1]},${b.geometry.coordinates[0]}&date=2026-09-15&time=${String(hour).padStart(2, "0")}:${String(Math.floor(rand() * 60)).padStart(2, "0")}&maxWalkDistance=2000`;
const cpu = () => { const f = require("fs").readFileSync(`/proc/${proc.pid}/stat`, "utf8").split(") ")[1].split(" "); return (Number(f[11]) + Number(f[12])) / 100; };
let c0 = cpu();
for (let pass = 0; pass < 2; pass++) {
const ms: number[] = [];
c0 = cpu();
for (let i = 0; i < 80; i++) { const u = plan(pick(s0), pick(s0), 7 + Math.floor(rand() * 12)); const a = performance.now(); const r = await fetch(u); await r.text(); if (i >= 20) ms.push(performance.now() - a); }
ms.sort((a, b) => a - b);
console.log("plan p50", ms[ms.length >> 1]!.toFixed(1), "p95", ms[Math.floor(ms.length * 0.95)]!.toFixed(1), "server cpu", (cpu() - c0).toFixed(1));
}
proc.kill(); await proc.exited;
