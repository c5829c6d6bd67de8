/**
 * Headers of the service's HTML pages and their files (the web map at /map, the API reference at
 * /docs): a Content-Security-Policy that lets a page load only this origin's scripts, styles and
 * data (so nothing from elsewhere runs where the map keeps an API key in localStorage), no framing
 * by other sites (clickjacking), no MIME sniffing, no referrer to other origins.
 */

/** The policy of a page: only `'self'`; maplibre's workers come from blob: URLs; inline styles are allowed (style attributes), inline scripts are not. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "worker-src 'self' blob:",
  "child-src 'self' blob:",
  "img-src 'self' data: blob:",
  "style-src 'self' 'unsafe-inline'",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

export const PAGE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  "content-security-policy": CONTENT_SECURITY_POLICY,
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "referrer-policy": "same-origin",
});
