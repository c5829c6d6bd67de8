/**
 * GraphiQL, the GraphQL IDE, on the GraphQL paths for browsers: a GET that asks for HTML (a
 * browser's `accept: text/html,...`; no JSON type in it) is answered the page, every other request
 * goes to the API (server/graphql/index.ts). Everything the page loads comes from this server:
 * GraphiQL's UMD build (npm `graphiql`, pinned) and the React/ReactDOM UMD builds it runs on (the
 * `react`/`react-dom` that graphiql resolves from its own folder), read from node_modules through
 * module resolution (so a clean clone works after `npm install`), and the page's own script
 * (graphiql/start.js). The page's security headers are the other pages' (server/page-headers.ts:
 * scripts from 'self' only, no inline script). The page and its files need no API key (like /docs);
 * the queries it sends carry the user's key (start.js).
 */
import { readFileSync, realpathSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { notFound } from "../errors.ts";
import { PAGE_HEADERS } from "../page-headers.ts";

/** Where the page's files are served (under the endpoint, so API errors there look like the API's). */
export const GRAPHIQL_ASSETS_PATH = "/otp/gtfs/v1/graphiql/";

const JS = "text/javascript; charset=utf-8";
const CSS = "text/css; charset=utf-8";

/** The files under GRAPHIQL_ASSETS_PATH: name → [package (resolved from graphiql's folder) or null for ours, path inside it, type]. */
const ASSETS: Record<string, [pkg: "graphiql" | "react" | "react-dom" | null, path: string, type: string]> = {
  "react.production.min.js": ["react", "umd/react.production.min.js", JS],
  "react-dom.production.min.js": ["react-dom", "umd/react-dom.production.min.js", JS],
  "graphiql.min.js": ["graphiql", "graphiql.min.js", JS],
  "graphiql.min.css": ["graphiql", "graphiql.min.css", CSS],
  "start.js": [null, "start.js", JS],
};

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Interchange GraphQL: OTP GTFS API</title>
  <link rel="icon" href="data:,">
  <link rel="stylesheet" href="${GRAPHIQL_ASSETS_PATH}graphiql.min.css">
</head>
<body style="margin: 0">
  <div id="graphiql" style="height: 100vh">Loading GraphiQL…</div>
  <script src="${GRAPHIQL_ASSETS_PATH}react.production.min.js"></script>
  <script src="${GRAPHIQL_ASSETS_PATH}react-dom.production.min.js"></script>
  <script src="${GRAPHIQL_ASSETS_PATH}graphiql.min.js"></script>
  <script src="${GRAPHIQL_ASSETS_PATH}start.js"></script>
</body>
</html>
`;

/**
 * Does this request want the page? A GET whose `accept` names text/html (with q > 0) and no JSON
 * type: browsers; JSON clients (`application/json`, `application/graphql-response+json`, `*\/*`,
 * or no accept at all) get GraphQL answers.
 */
export function wantsGraphiql(request: Request): boolean {
  if (request.method !== "GET") return false;
  const accept = request.headers.get("accept");
  if (!accept) return false;
  let html = false;
  for (const part of accept.toLowerCase().split(",")) {
    const [type, ...params] = part.split(";").map((s) => s.trim());
    const q = params.find((p) => p.startsWith("q="));
    if (q !== undefined && !(Number(q.slice(2)) > 0)) continue;
    if (type === "text/html") html = true;
    else if (type === "application/json" || type === "application/graphql-response+json") return false;
  }
  return html;
}

/** The folders the files come from: graphiql as the project resolves it, React and ReactDOM as graphiql does. */
function packageDirs(): Record<"graphiql" | "react" | "react-dom", string> {
  // its real folder (node's resolution; a linked package finds its own dependencies)
  const graphiqlPkg = realpathSync(createRequire(import.meta.url).resolve("graphiql/package.json"));
  const fromGraphiql = createRequire(graphiqlPkg);
  return {
    graphiql: dirname(graphiqlPkg),
    react: dirname(fromGraphiql.resolve("react/package.json")),
    "react-dom": dirname(fromGraphiql.resolve("react-dom/package.json")),
  };
}

/** The page and its files; the packages are looked up on first use, so a missing one fails the page only. */
export function graphiqlPages() {
  let dirs: ReturnType<typeof packageDirs> | null = null;
  const cache = new Map<string, Uint8Array>();
  const headers = (type: string, cacheControl: string) => ({ ...PAGE_HEADERS, "content-type": type, "cache-control": cacheControl });
  return {
    page(): Response {
      return new Response(PAGE, { headers: { ...headers("text/html; charset=utf-8", "no-cache"), vary: "accept" } });
    },
    asset(name: unknown): Response {
      const entry = typeof name === "string" && Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
      if (!entry) throw notFound(`no such file: ${typeof name === "string" ? name.slice(0, 80) : "?"}`);
      const [pkg, path, type] = entry;
      let bytes = cache.get(name as string);
      if (!bytes) {
        let file: string;
        if (pkg === null) file = join(import.meta.dir, "graphiql", path);
        else {
          try {
            dirs ??= packageDirs();
          } catch {
            throw notFound(`GraphiQL is not installed on this server (npm package ${pkg}; run npm install)`);
          }
          file = join(dirs[pkg], path);
        }
        bytes = readFileSync(file);
        cache.set(name as string, bytes);
      }
      // ours may change with the server; the packages' files only with their pinned versions
      return new Response(bytes, { headers: headers(type, pkg === null ? "no-cache" : "public, max-age=86400") });
    },
  };
}
