import { buildTileSet } from "./server/map/tiles.ts";
import { createHash } from "node:crypto";
const ts = await buildTileSet(process.argv[2]!);
const h = createHash("sha1");
for (const l of ts.lines.routes) { h.update(JSON.stringify(l.props)); h.update(new Uint8Array(l.w.buffer, l.w.byteOffset, l.w.byteLength)); h.update(`${l.minX},${l.minY},${l.maxX},${l.maxY},${l.minZoom}`); }
const hp = createHash("sha1"); hp.update(JSON.stringify(ts.points));
console.log("routes", ts.lines.routes.length, h.digest("hex"), "points", hp.digest("hex"));
