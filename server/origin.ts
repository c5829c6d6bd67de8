/**
 * The public origin of the service, for the absolute links it writes (the catalog's `meta.next` and
 * `Link` header): `--public-url` when configured; else, for a request that came through a proxy
 * named in `--trusted-proxies`, its X-Forwarded-Proto and X-Forwarded-Host (checked like a Host
 * header); else none, and links are relative to the request. The client's own Host header is
 * never used: a client could point links (and caches keyed on them) at any host it likes.
 */
import { isValidHost } from "./gate.ts";

export interface PublicOrigin {
  /** `https://api.example.org` (no trailing slash), or "" for links relative to the request */
  of(request: Request): string;
  /** main.ts: the address of the peer that sent `request` (only kept when some proxy is trusted) */
  notePeer(request: Request, address: string | undefined): void;
  /** whether notePeer has any use (a trusted proxy is configured and --public-url is not) */
  readonly wantsPeers: boolean;
}

/** An IPv4 address as a 32-bit number, or null. */
function ipv4(a: string): number | null {
  const parts = a.split(".");
  if (parts.length !== 4) return null;
  let n = 0;
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p) || Number(p) > 255) return null;
    n = n * 256 + Number(p);
  }
  return n;
}

/** A matcher of peer addresses against IPs and IPv4 CIDR blocks (IPv4-mapped IPv6 peers count as IPv4). */
export function addressMatcher(entries: readonly string[]): (address: string) => boolean {
  const exact = new Set<string>();
  const blocks: [number, number][] = [];
  for (const e of entries) {
    const [ip, bits] = e.split("/");
    if (bits === undefined) exact.add(ip!.toLowerCase());
    else {
      const base = ipv4(ip!);
      const b = Number(bits);
      const mask = b === 0 ? 0 : (0xffffffff << (32 - b)) >>> 0;
      if (base !== null) blocks.push([(base & mask) >>> 0, mask]);
    }
  }
  return (address) => {
    const a = address.toLowerCase().replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/, "");
    if (exact.has(a)) return true;
    const n = ipv4(a);
    return n !== null && blocks.some(([base, mask]) => ((n & mask) >>> 0) === base);
  };
}

export function publicOrigin(config: { publicUrl: string | null; trustedProxies: readonly string[] }): PublicOrigin {
  if (config.publicUrl) {
    const fixed = config.publicUrl;
    return { of: () => fixed, notePeer: () => {}, wantsPeers: false };
  }
  if (config.trustedProxies.length === 0) return { of: () => "", notePeer: () => {}, wantsPeers: false };
  const trusted = addressMatcher(config.trustedProxies);
  const peers = new WeakMap<Request, string>();
  return {
    wantsPeers: true,
    notePeer: (request, address) => {
      if (address) peers.set(request, address);
    },
    of(request) {
      const peer = peers.get(request);
      if (peer === undefined || !trusted(peer)) return "";
      // a proxy that appends to these headers sends a list: the last entry is the one it wrote
      const proto = (request.headers.get("x-forwarded-proto") ?? "http").split(",").pop()!.trim().toLowerCase();
      const host = (request.headers.get("x-forwarded-host") ?? request.headers.get("host") ?? "").split(",").pop()!.trim();
      if ((proto !== "http" && proto !== "https") || !isValidHost(host)) return "";
      return `${proto}://${host}`;
    },
  };
}
