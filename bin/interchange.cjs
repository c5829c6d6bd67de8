#!/usr/bin/env node
// Entry for `npx interchange ...`: the service runs on Bun, which the `bun` devDependency brings,
// so this Node shim only finds that Bun binary and hands the command line to bin/interchange.ts.
"use strict";
const { spawn } = require("node:child_process");
const path = require("node:path");
const fs = require("node:fs");

function findBun() {
  if (process.versions.bun) return process.execPath;
  const candidates = [];
  try { candidates.push(path.join(path.dirname(require.resolve("bun/package.json")), "bin", "bun.exe")); } catch {}
  candidates.push(path.join(__dirname, "..", "node_modules", "bun", "bin", "bun.exe"));
  for (const c of candidates) if (fs.existsSync(c)) return c;
  return "bun"; // fall back to a Bun on PATH
}

const child = spawn(findBun(), [path.join(__dirname, "interchange.ts"), ...process.argv.slice(2)], { stdio: "inherit" });
for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(sig, () => child.kill(sig));
child.on("exit", (code, signal) => {
  if (signal) process.kill(process.pid, signal);
  else process.exit(code ?? 1);
});
child.on("error", (err) => {
  console.error(`interchange: cannot start Bun (${err.message}); run npm install first`);
  process.exit(1);
});
