/**
 * The catalog's download endpoints under /api/v2/rest, Transitland's (server/rest/feed_version_download.go):
 * - `GET|HEAD /feed_versions/{feed_version_key}/download`: a version's zip, as it was imported
 *   (`<version folder>/feed.zip`, pipeline/schema/manifest.ts VERSION_ZIP);
 * - `GET|HEAD /feeds/{feed_key}/download_latest_feed_version`: the zip of the feed's active version;
 * - `GET|HEAD /feeds/{feed_key}/download_latest_rt/{alerts|trip_updates|vehicle_positions}.{pb|json}`:
 *   the feed's current realtime snapshot re-encoded as a GTFS-Realtime FeedMessage (the port
 *   server/realtime-feeds.ts; server/realtime implements it). The key is the static feed's or its
 *   GTFS-Realtime feed's (`<onestop_id>~rt`, feed-directory.ts).
 * The zips: strong ETag (the SHA-1), If-None-Match → 304, one byte range (`Range`, `If-Range`) → 206
 * or 416, streamed from the file. A feed whose licence says redistribution_allowed "no" is refused
 * (403), as Transitland refuses it. Keys and licences come from the manifest (read again when the
 * file changes), so a download needs no loaded catalog.
 *
 * Errors are AppError, answered by the catalog's renderer (`{error, parameter?}` JSON); 304, 206
 * and 416 are answers of the range protocol built here (416 with a Content-Range naming the
 * file's size and a JSON `{error}`).
 */
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { Elysia } from "elysia";
import { AppError, invalidParameter, jsonError } from "../errors.ts";
import type { OpenApiParameter } from "../params.ts";
import { type FeedEntry, MANIFEST, type Manifest, readManifest, VERSION_ZIP, type VersionEntry } from "../../pipeline/schema/manifest.ts";
import { RT_KINDS, type RealtimeFeeds, type RtKind } from "../realtime-feeds.ts";
import { REALTIME_FEED_ID_BASE, REALTIME_FEED_SUFFIX } from "./feed-directory.ts";

const BASE = "/api/v2/rest";
const RT_FORMATS = ["pb", "json"] as const;
/** Longest key looked at (a Onestop ID is far shorter): longer ones are unknown. */
const MAX_KEY = 512;

export interface DownloadDeps {
  dataDir: string;
  realtime: RealtimeFeeds;
  now: () => number;
}

// ---- keys

/** The manifest, parsed again only when its file changes (mtime, size, inode). */
function manifestReader(dataDir: string): () => Manifest {
  const file = join(dataDir, MANIFEST);
  let cached: { stamp: string; m: Manifest } | null = null;
  return () => {
    let stamp: string;
    try {
      const st = statSync(file);
      stamp = `${st.mtimeMs}:${st.size}:${st.ino}`;
    } catch {
      return readManifest(dataDir); // none yet: empty
    }
    if (cached?.stamp !== stamp) cached = { stamp, m: readManifest(dataDir) };
    return cached.m;
  };
}

/**
 * A path parameter as Elysia decoded it; null for one that is not valid percent-encoded UTF-8,
 * a 400 (as the catalog's other paths answer it).
 */
function pathParam(params: unknown, name: string): string {
  const v = (params as Record<string, string | null | undefined>)[name];
  if (typeof v !== "string") throw invalidParameter(name, `${name} is not valid percent-encoded UTF-8`);
  return v;
}

const isId = (key: string) => /^\d{1,15}$/.test(key);

/** A feed version by SHA-1 or integer id; 400 for a key that is neither, 404 for an unknown one. */
export function versionByKey(m: Manifest, key: string): VersionEntry {
  let v: VersionEntry | undefined;
  if (isId(key)) v = m.versions.find((x) => x.id === Number(key));
  else if (/^[0-9a-fA-F]{40}$/.test(key)) v = m.versions.find((x) => x.sha1 === key.toLowerCase());
  else throw invalidParameter("feed_version_key", "feed_version_key must be a feed version's SHA-1 (40 hex digits) or its integer id", "SHA-1 or integer id");
  if (!v) throw new AppError("NOT_FOUND", `no feed version ${key}`);
  return v;
}

/** A feed by Onestop ID or integer id; 404 for an unknown one. */
export function feedByKey(m: Manifest, key: string): FeedEntry {
  const f = key.length > MAX_KEY ? undefined : isId(key) ? m.feeds.find((x) => x.id === Number(key)) : m.feeds.find((x) => x.onestop_id === key);
  if (!f) throw new AppError("NOT_FOUND", `no feed ${key.slice(0, 200)}`);
  return f;
}

/** The static feed's key of a GTFS-Realtime feed's key (`<onestop_id>~rt` or its id, feed-directory.ts); other keys as they are. */
function staticKeyOf(m: Manifest, key: string): string {
  if (key.endsWith(REALTIME_FEED_SUFFIX) && !m.feeds.some((f) => f.onestop_id === key)) return key.slice(0, -REALTIME_FEED_SUFFIX.length);
  if (isId(key) && Number(key) > REALTIME_FEED_ID_BASE) return String(Number(key) - REALTIME_FEED_ID_BASE);
  return key;
}

/** Transitland's rule: a feed whose licence says redistribution_allowed "no" is not given out. */
function checkRedistribution(feed: FeedEntry | undefined, feedKey: string): void {
  if (feed?.license?.redistribution_allowed === "no") {
    throw new AppError("FORBIDDEN", `the licence of feed ${feedKey} does not allow redistribution (redistribution_allowed: no)`);
  }
}

// ---- the zip, with ETag and one range

/** Whether an If-None-Match header names `etag` (weak comparison; `*` names any). */
export function noneMatch(header: string | null, etag: string): boolean {
  if (header === null) return false;
  const bare = etag.replace(/^W\//, "");
  return header.split(",").some((t) => {
    const tag = t.trim();
    return tag === "*" || tag.replace(/^W\//, "") === bare;
  });
}

export type RangeAnswer = { kind: "full" } | { kind: "partial"; start: number; end: number } | { kind: "unsatisfiable" };

/**
 * The answer to a Range header for a file of `size` bytes (RFC 9110 14.2): one `bytes=` range
 * (first-last, first-, or -suffix); a header that is not one valid byte range, or asks several, is
 * ignored (the whole file, which the RFC allows).
 */
export function byteRange(header: string | null, size: number): RangeAnswer {
  if (header === null) return { kind: "full" };
  const m = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (!m || (m[1] === "" && m[2] === "")) return { kind: "full" };
  const [first, last] = [m[1]!, m[2]!];
  if (first === "") {
    const n = Number(last);
    if (n === 0 || size === 0) return { kind: "unsatisfiable" };
    return { kind: "partial", start: Math.max(0, size - n), end: size - 1 };
  }
  const start = Number(first);
  if (last !== "" && Number(last) < start) return { kind: "full" }; // invalid: ignored
  if (start >= size) return { kind: "unsatisfiable" };
  return { kind: "partial", start, end: last === "" ? size - 1 : Math.min(Number(last), size - 1) };
}

/**
 * The zip of `version` as an answer to `request` (GET or HEAD): 200, 206, 304 or 416. `fresh`:
 * the version named by its key never changes (long cache); the latest version must be revalidated.
 */
function zipAnswer(request: Request, dataDir: string, version: VersionEntry, fresh: boolean): Response {
  const file = join(dataDir, version.path, VERSION_ZIP);
  if (!existsSync(file)) {
    throw new AppError("NOT_FOUND", `the zip of feed version ${version.sha1} is not kept: it was imported from a folder, or before the import kept its source zip (import its zip again to keep it)`);
  }
  const body = Bun.file(file);
  const size = body.size;
  const etag = `"${version.sha1}"`;
  const headers: Record<string, string> = {
    etag,
    "cache-control": fresh ? "private, max-age=31536000, immutable" : "private, no-cache",
    "accept-ranges": "bytes",
    // a browser's script may read these (CORS: the catalog's answers allow any origin)
    "access-control-expose-headers": "etag, content-range, content-disposition, accept-ranges",
  };
  if (noneMatch(request.headers.get("if-none-match"), etag)) return new Response(null, { status: 304, headers });
  Object.assign(headers, { "content-type": "application/zip", "content-disposition": `attachment; filename="${version.feed_onestop_id}-${version.sha1}.zip"` });
  // If-Range: the range only while the client's copy is this one (a strong match)
  const ifRange = request.headers.get("if-range");
  const range = ifRange !== null && ifRange.trim() !== etag ? ({ kind: "full" } as const) : byteRange(request.headers.get("range"), size);
  if (range.kind === "unsatisfiable") {
    return jsonError(416, { error: `range not satisfiable: the file has ${size} bytes` }, { ...headers, "content-range": `bytes */${size}` });
  }
  if (range.kind === "partial") {
    const length = range.end - range.start + 1;
    const h = { ...headers, "content-range": `bytes ${range.start}-${range.end}/${size}`, "content-length": String(length) };
    return new Response(body.slice(range.start, range.end + 1), { status: 206, headers: h });
  }
  // (HEAD too: the server sends the headers only, Content-Length the body's)
  return new Response(body, { status: 200, headers: { ...headers, "content-length": String(size) } });
}

// ---- realtime

/** "alerts.pb" → kind and format; 400 otherwise. */
export function rtFile(raw: string): { kind: RtKind; format: (typeof RT_FORMATS)[number] } {
  const dot = raw.lastIndexOf(".");
  const kind = dot < 0 ? raw : raw.slice(0, dot);
  const format = dot < 0 ? "" : raw.slice(dot + 1);
  if (!(RT_KINDS as readonly string[]).includes(kind)) throw invalidParameter("rt_type", `rt_type must be one of ${RT_KINDS.join(", ")}; got "${kind.slice(0, 100)}"`, RT_KINDS.join(", "));
  if (!(RT_FORMATS as readonly string[]).includes(format)) throw invalidParameter("format", `format must be pb or json; got "${format.slice(0, 20)}"`, RT_FORMATS.join(", "));
  return { kind: kind as RtKind, format: format as (typeof RT_FORMATS)[number] };
}

// ---- OpenAPI

const pathParameter = (name: string, description: string, schema: Record<string, unknown> = { type: "string" }): OpenApiParameter => ({ name, in: "path", required: true, description, schema });
const FEED_KEY = pathParameter("feed_key", "a feed's Onestop ID or its integer id");
const VERSION_KEY = pathParameter("feed_version_key", "a feed version's SHA-1 or its integer id");
const RT_TYPE = pathParameter("rt_type", "the kind of realtime message", { type: "string", enum: [...RT_KINDS] });
const RT_FORMAT = pathParameter("format", "pb: protobuf; json: the protobuf JSON mapping", { type: "string", enum: [...RT_FORMATS] });
/** The request headers the zips honour (documented; the fuzz test sends only path and query parameters). */
const ZIP_HEADERS: { name: string; in: "header"; description: string; schema: Record<string, unknown> }[] = [
  { name: "Range", in: "header", description: "one byte range, e.g. `bytes=0-1023`, `bytes=1024-`, `bytes=-512` (several ranges: the whole file)", schema: { type: "string" } },
  { name: "If-None-Match", in: "header", description: "ETags (the version's SHA-1 in quotes): 304 when one matches", schema: { type: "string" } },
  { name: "If-Range", in: "header", description: "an ETag: the range only while it is this version's", schema: { type: "string" } },
];

const ZIP_RESPONSES = {
  "200": { description: "the zip (application/zip), with ETag and Content-Disposition" },
  "206": { description: "the byte range asked for, with Content-Range" },
  "304": { description: "If-None-Match names this version" },
  "400": { description: "bad key: `{error, parameter, allowed}`" },
  "401": { description: "missing or invalid API key: `{error}`" },
  "403": { description: "the feed's licence does not allow redistribution: `{error}`" },
  "404": { description: "unknown key, no active version, or a version whose zip is not kept: `{error}`" },
  "416": { description: "the range is outside the file: `{error}`, Content-Range `bytes */<size>`" },
};
const RT_RESPONSES = {
  "200": { description: "a GTFS-Realtime FeedMessage: application/x-protobuf, or application/json (the protobuf JSON mapping)" },
  "400": { description: "bad rt_type or format: `{error, parameter, allowed}`" },
  "401": { description: "missing or invalid API key: `{error}`" },
  "403": { description: "the feed's licence does not allow redistribution: `{error}`" },
  "404": { description: "unknown feed, or no realtime source for it: `{error}`" },
};

const versionDoc = {
  tags: ["catalog"],
  summary: "Download a feed version's zip",
  description: "The zip the version was imported from, byte for byte (its SHA-1 is the version's). ETag is the SHA-1; If-None-Match, one Range and HEAD are supported.",
  parameters: [VERSION_KEY, ...ZIP_HEADERS],
  responses: ZIP_RESPONSES,
};
const latestDoc = {
  tags: ["catalog"],
  summary: "Download the zip of a feed's active version",
  description: "The zip the feed's active version was imported from. ETag is its SHA-1; If-None-Match, one Range and HEAD are supported.",
  parameters: [FEED_KEY, ...ZIP_HEADERS],
  responses: ZIP_RESPONSES,
};
const rtDoc = {
  tags: ["catalog"],
  summary: "Download a feed's current realtime snapshot as a FeedMessage",
  description:
    "The feed's current alerts, trip updates or vehicle positions snapshot (as the service serves it: dropped past the maximum age) re-encoded as a GTFS-Realtime FeedMessage. " +
    "A feed with a realtime source but no current snapshot of the kind: a FeedMessage with a header and no entity.",
  operationId: "getApiV2RestFeedsByFeed_keyDownload_latest_rtByRt_typeInFormat",
  parameters: [FEED_KEY, RT_TYPE, RT_FORMAT],
  responses: RT_RESPONSES,
};

/** OpenAPI path items the route table cannot give /docs (the swagger plugin drops paths with a dot). */
export function downloadDocPaths(): Record<string, unknown> {
  return { [`${BASE}/feeds/{feed_key}/download_latest_rt/{rt_type}.{format}`]: { get: rtDoc } };
}

// ---- routes

export function downloadRoutes(deps: DownloadDeps) {
  const manifest = manifestReader(deps.dataDir);

  /** /feed_versions/{feed_version_key}/download */
  const version = (request: Request, key: string) => {
    const m = manifest();
    const v = versionByKey(m, key);
    checkRedistribution(m.feeds.find((f) => f.onestop_id === v.feed_onestop_id), v.feed_onestop_id);
    return zipAnswer(request, deps.dataDir, v, true);
  };

  /** /feeds/{feed_key}/download_latest_feed_version */
  const latest = (request: Request, key: string) => {
    const m = manifest();
    const feed = feedByKey(m, key);
    checkRedistribution(feed, feed.onestop_id);
    const v = feed.active ? m.versions.find((x) => x.sha1 === feed.active) : undefined;
    if (!v) throw new AppError("NOT_FOUND", `feed ${feed.onestop_id} has no active version`);
    return zipAnswer(request, deps.dataDir, v, false);
  };

  /** /feeds/{feed_key}/download_latest_rt/{rt_type}.{format} */
  const realtime = async (key: string, file: string) => {
    const { kind, format } = rtFile(file);
    const m = manifest();
    const feed = feedByKey(m, staticKeyOf(m, key));
    checkRedistribution(feed, feed.onestop_id);
    let message;
    try {
      message = await deps.realtime.feedMessage(feed.onestop_id, kind, deps.now());
    } catch {
      throw new AppError("UNAVAILABLE", `the realtime snapshot of feed ${feed.onestop_id} could not be read; try again`);
    }
    if (!message) throw new AppError("NOT_FOUND", `feed ${feed.onestop_id} has no realtime source`);
    const headers = { "content-type": format === "pb" ? "application/x-protobuf" : "application/json", "cache-control": "private, no-cache" };
    // (HEAD too: the server sends the headers only, Content-Length the body's)
    return new Response(format === "pb" ? message.pb : message.json, { headers });
  };

  const hidden = { detail: { hide: true } };
  const versionPath = "/feed_versions/:feed_version_key/download";
  const latestPath = "/feeds/:feed_key/download_latest_feed_version";
  const rtPath = "/feeds/:feed_key/download_latest_rt/:rt_file";
  const v = ({ request, params }: { request: Request; params: unknown }) => version(request, pathParam(params, "feed_version_key"));
  const l = ({ request, params }: { request: Request; params: unknown }) => latest(request, pathParam(params, "feed_key"));
  const r = ({ params }: { params: unknown }) => realtime(pathParam(params, "feed_key"), pathParam(params, "rt_file"));
  return new Elysia({ name: "catalog-downloads", prefix: BASE })
    .get(versionPath, v, { detail: versionDoc })
    .head(versionPath, v, hidden)
    .get(latestPath, l, { detail: latestDoc })
    .head(latestPath, l, hidden)
    .get(rtPath, r, hidden)
    .head(rtPath, r, hidden);
}
