/**
 * Geohash and Onestop ID derivation, following Transitland's published scheme
 * (https://www.transit.land/documentation/onestop-id-scheme): s-<geohash>-<name>,
 * r-/o-<geohash of the served area>-<name>, f-<geohash>-<name> for feeds.
 */

const BASE32 = "0123456789bcdefghjkmnpqrstuvwxyz";

export function geohashEncode(lat: number, lon: number, precision: number): string {
  let latLo = -90, latHi = 90, lonLo = -180, lonHi = 180;
  let hash = "";
  let bit = 0, ch = 0, even = true;
  while (hash.length < precision) {
    if (even) {
      const mid = (lonLo + lonHi) / 2;
      if (lon >= mid) { ch = (ch << 1) | 1; lonLo = mid; } else { ch <<= 1; lonHi = mid; }
    } else {
      const mid = (latLo + latHi) / 2;
      if (lat >= mid) { ch = (ch << 1) | 1; latLo = mid; } else { ch <<= 1; latHi = mid; }
    }
    even = !even;
    if (++bit === 5) { hash += BASE32[ch]; bit = 0; ch = 0; }
  }
  return hash;
}

/** Bounding box of a geohash cell: [latLo, latHi, lonLo, lonHi]. */
export function geohashBounds(hash: string): [number, number, number, number] {
  let latLo = -90, latHi = 90, lonLo = -180, lonHi = 180, even = true;
  for (const c of hash) {
    const v = BASE32.indexOf(c);
    for (let b = 4; b >= 0; b--) {
      const bitOn = (v >> b) & 1;
      if (even) { const mid = (lonLo + lonHi) / 2; if (bitOn) lonLo = mid; else lonHi = mid; }
      else { const mid = (latLo + latHi) / 2; if (bitOn) latLo = mid; else latHi = mid; }
      even = !even;
    }
  }
  return [latLo, latHi, lonLo, lonHi];
}

/** The cell itself and its 8 neighbours. */
export function geohashNeighbourhood(hash: string): Set<string> {
  const [latLo, latHi, lonLo, lonHi] = geohashBounds(hash);
  const dLat = latHi - latLo, dLon = lonHi - lonLo;
  const cLat = (latLo + latHi) / 2, cLon = (lonLo + lonHi) / 2;
  const out = new Set<string>();
  for (const i of [-1, 0, 1]) {
    for (const j of [-1, 0, 1]) {
      const lat = cLat + i * dLat;
      if (lat > 90 || lat < -90) continue;
      let lon = cLon + j * dLon;
      if (lon > 180) lon -= 360;
      if (lon < -180) lon += 360;
      out.add(geohashEncode(lat, lon, hash.length));
    }
  }
  return out;
}

/**
 * Geohash of an area served by points: the centroid's geohash, cut to the longest prefix (6 down
 * to 1) such that every point falls into that cell or one of its 8 neighbours.
 */
export function areaGeohash(points: ReadonlyArray<readonly [number, number]>): string {
  if (points.length === 0) return "";
  let sLat = 0, sLon = 0;
  for (const [lat, lon] of points) { sLat += lat; sLon += lon; }
  const center = geohashEncode(sLat / points.length, sLon / points.length, 6);
  const pointHashes = points.map(([lat, lon]) => geohashEncode(lat, lon, 6));
  for (let p = 6; p >= 1; p--) {
    const hood = geohashNeighbourhood(center.slice(0, p));
    if (pointHashes.every((h) => hood.has(h.slice(0, p)))) return center.slice(0, p);
  }
  return center.slice(0, 1);
}

/** Onestop name normalisation: `- : & @ /` become `~`, then keep only letters, digits, `~ < >`. */
export function onestopName(name: string | null | undefined): string {
  return (name ?? "").replace(/[-:&@/]/g, "~").replace(/[^\p{L}\p{N}~<>]/gu, "").toLowerCase();
}

export function stopOnestopId(lat: number | null, lon: number | null, name: string | null): string {
  if (lat == null || lon == null) return "";
  return `s-${geohashEncode(lat, lon, 10)}-${onestopName(name)}`;
}
