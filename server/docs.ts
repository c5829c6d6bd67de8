/**
 * The API reference at /docs: Swagger UI over the OpenAPI document that @elysiajs/swagger builds
 * from the routes (GET /docs/json). The page and Swagger UI's files come from this server
 * (npm `swagger-ui-dist`, read from node_modules), never from a CDN, with the pages' security
 * headers (server/page-headers.ts): /docs shares its origin with /map, which keeps an API key.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { Elysia } from "elysia";
import { notFound } from "./errors.ts";
import { PAGE_HEADERS } from "./page-headers.ts";

export const DOCS_PATH = "/docs";
/** where the OpenAPI document is served (the swagger plugin's specPath) */
export const DOCS_SPEC_PATH = `${DOCS_PATH}/json`;
/** where the swagger plugin's own page goes: it loads its script from a CDN, so server/app.ts answers it 404 */
export const PLUGIN_PAGE_PATH = `${DOCS_PATH}/plugin-page`;

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Interchange API reference</title>
  <link rel="icon" href="data:,">
  <link rel="stylesheet" href="${DOCS_PATH}/assets/swagger-ui.css">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="${DOCS_PATH}/assets/swagger-ui-bundle.js"></script>
  <script src="${DOCS_PATH}/assets/init.js"></script>
</body>
</html>
`;

/** Swagger UI's start: the document from this server, no validator badge (it would call swagger.io). */
const INIT = `window.ui = SwaggerUIBundle({
  url: ${JSON.stringify(DOCS_SPEC_PATH)},
  dom_id: "#swagger-ui",
  validatorUrl: null,
  deepLinking: true,
  presets: [SwaggerUIBundle.presets.apis],
  layout: "BaseLayout",
});
`;

/** The files served under /docs/assets: name → content type. */
const ASSETS: Record<string, string> = {
  "swagger-ui.css": "text/css; charset=utf-8",
  "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
};

export function docsRoutes() {
  const dist = dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));
  const cache = new Map<string, Uint8Array>();
  const headers = (type: string, cacheControl: string) => ({ ...PAGE_HEADERS, "content-type": type, "cache-control": cacheControl });
  const asset = (name: unknown) => {
    if (typeof name === "string" && name === "init.js") return new Response(INIT, { headers: headers("text/javascript; charset=utf-8", "no-cache") });
    const type = typeof name === "string" && Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
    if (!type) throw notFound(`no such file: ${typeof name === "string" ? name.slice(0, 80) : "?"}`);
    let bytes = cache.get(name as string);
    if (!bytes) cache.set(name as string, (bytes = readFileSync(join(dist, name as string))));
    return new Response(bytes, { headers: headers(type, "public, max-age=86400") });
  };
  const page = () => new Response(PAGE, { headers: headers("text/html; charset=utf-8", "no-cache") });
  return new Elysia({ name: "docs" })
    .get(DOCS_PATH, page, { detail: { hide: true } })
    .get(`${DOCS_PATH}/`, page, { detail: { hide: true } })
    .get(`${DOCS_PATH}/assets/:file`, ({ params }) => asset(params.file), { detail: { hide: true } });
}
