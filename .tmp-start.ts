const DATA = process.argv[2]!;
const t0 = performance.now();
const proc = Bun.spawn([process.execPath, "bin/interchange.ts", "serve", "--data", DATA, "--port", "0", "--host", "127.0.0.1", "--no-auth", "--workers", "1"], { stderr: "pipe", stdout: "ignore" });
const dec = new TextDecoder(); const reader = proc.stderr.getReader(); let buf = ""; let url = "";
(async () => { for (;;) { const { value, done } = await reader.read(); if (done) break; const t = dec.decode(value); buf += t; for (const l of t.split("\n")) if (l.includes("catalog loaded") || l.includes("timetable loaded") || l.includes("map layers")) console.log(((performance.now() - t0) / 1000).toFixed(1), l.slice(0, 600)); const m = /"url":"(http:[^"]+)"/.exec(buf); if (m) url = m[1]!; } })();
for (;;) { if (url) { try { const h: any = await (await fetch(`${url}/health`)).json(); if (h.features?.catalog?.loaded !== false && h.features?.planner?.loaded) break; } catch {} } await Bun.sleep(500); }
console.log("ready", ((performance.now() - t0) / 1000).toFixed(1), "s");
await Bun.sleep(Number(process.argv[3] ?? 0));
proc.kill(); await proc.exited;
