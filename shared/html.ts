/**
 * HTML text escaping, one definition for every page the service writes (the validation report the
 * pipeline writes, and the server that serves it and rewrites names in it).
 */
export const escapeHtml = (s: unknown): string =>
  String(s ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
