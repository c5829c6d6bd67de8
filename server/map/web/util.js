// Small helpers of the map page: encoded polylines, times, HTML escaping, colours.

/** Decodes an encoded polyline (Google's format; precision 5 as the plan's legGeometry) into [lon, lat] pairs. */
export function decodePolyline(text, precision = 5) {
  const factor = 10 ** precision;
  const out = [];
  let i = 0, lat = 0, lon = 0;
  while (i < text.length) {
    for (const which of [0, 1]) {
      let result = 0, shift = 0, b;
      do {
        b = text.charCodeAt(i++) - 63;
        result |= (b & 0x1f) << shift;
        shift += 5;
      } while (b >= 0x20);
      const delta = result & 1 ? ~(result >> 1) : result >> 1;
      if (which === 0) lat += delta;
      else lon += delta;
    }
    out.push([lon / factor, lat / factor]);
  }
  return out;
}

/** Escapes text for HTML. */
export function esc(v) {
  return String(v ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
}

/** HH:MM of a time in ms since epoch, in the zone whose UTC offset (ms) is given (a plan leg's agencyTimeZoneOffset). */
export function clock(ms, offsetMs) {
  const d = new Date(ms + offsetMs);
  return `${String(d.getUTCHours()).padStart(2, "0")}:${String(d.getUTCMinutes()).padStart(2, "0")}`;
}

/** HH:MM of a time in ms since epoch in an IANA time zone. */
export function clockIn(ms, timeZone) {
  try {
    return new Intl.DateTimeFormat("en-GB", { hour: "2-digit", minute: "2-digit", hourCycle: "h23", timeZone }).format(new Date(ms));
  } catch {
    return clock(ms, 0);
  }
}

/** "1 h 05 min" / "12 min" / "40 s" of seconds. */
export function duration(sec) {
  sec = Math.round(sec);
  if (sec < 60) return `${sec} s`;
  const m = Math.round(sec / 60);
  return m >= 60 ? `${Math.floor(m / 60)} h ${String(m % 60).padStart(2, "0")} min` : `${m} min`;
}

/** "350 m" / "2.4 km". */
export function distance(m) {
  return m >= 1000 ? `${(m / 1000).toFixed(1)} km` : `${Math.round(m)} m`;
}

/** A GTFS route_color (with or without #) as a CSS colour, or the fallback. */
export function routeColor(c, fallback = "#6b7280") {
  if (!c) return fallback;
  const hex = String(c).replace(/^#/, "");
  return /^[0-9a-fA-F]{6}$/.test(hex) ? `#${hex}` : fallback;
}

/** Black or white text on a background colour. */
export function textOn(bg) {
  const hex = bg.replace("#", "");
  const [r, g, b] = [0, 2, 4].map((i) => parseInt(hex.slice(i, i + 2), 16));
  return 0.299 * r + 0.587 * g + 0.114 * b > 150 ? "#111" : "#fff";
}

/** The first translation of a GTFS-RT TranslatedString list (English when there is one). */
export function translated(list) {
  if (!list || !list.length) return "";
  return (list.find((t) => !t.language || t.language.startsWith("en")) ?? list[0]).text;
}
