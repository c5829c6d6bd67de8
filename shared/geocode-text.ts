/**
 * The geocoder's text rules, applied alike when the index is written (pipeline/geocode/) and when
 * it is searched (server/geocoder/): folding (Unicode compatibility forms, Latin/Greek/Cyrillic
 * diacritics removed, lower case, a few letters spelled out: ß → ss, æ → ae, ø → o, ł → l), tokens
 * (runs of letters and digits of any script), and the street-word aliases (street ↔ st, avenue ↔
 * ave, straße → str, ...) an index adds beside a name's own words. Imports nothing.
 */

const SPELLED: Record<string, string> = { ß: "ss", æ: "ae", ø: "o", œ: "oe", ł: "l", đ: "d", ð: "d", þ: "th", ı: "i", ŀ: "l" };
const SPELLED_RE = /[ßæøœłđðþıŀ]/g;

/** Folded text: NFKD, the combining diacritical marks (U+0300-U+036F) removed, recomposed (NFC), lower case. */
export function fold(s: string): string {
  return s.normalize("NFKD").replace(/[\u0300-\u036f]/g, "").normalize("NFC").toLowerCase().replace(SPELLED_RE, (c) => SPELLED[c] ?? c);
}

/** Most tokens read from one text (a longer text's tail is ignored). */
export const MAX_TEXT_TOKENS = 32;
/** Longest token kept, in UTF-16 code units (longer ones are cut). */
export const MAX_TOKEN_LENGTH = 40;

/** The folded tokens of a text: runs of letters and digits (any script), in order. */
export function tokens(s: string, max = MAX_TEXT_TOKENS): string[] {
  const out: string[] = [];
  for (const m of fold(s).matchAll(/[\p{L}\p{N}]+/gu)) {
    out.push(m[0].length > MAX_TOKEN_LENGTH ? m[0].slice(0, MAX_TOKEN_LENGTH) : m[0]);
    if (out.length >= max) break;
  }
  return out;
}

/** Street words and their usual abbreviations (folded), both ways. */
const PAIRS: [string, string][] = [
  ["street", "st"], ["saint", "st"], ["avenue", "ave"], ["avenue", "av"], ["boulevard", "blvd"], ["road", "rd"], ["drive", "dr"],
  ["place", "pl"], ["lane", "ln"], ["court", "ct"], ["square", "sq"], ["terrace", "ter"], ["parkway", "pkwy"], ["highway", "hwy"],
  ["mount", "mt"], ["north", "n"], ["south", "s"], ["east", "e"], ["west", "w"], ["center", "ctr"], ["centre", "ctr"],
  ["station", "sta"], ["expressway", "expy"], ["freeway", "fwy"], ["circle", "cir"], ["plaza", "plz"], ["junction", "jct"],
  ["strasse", "str"], ["platz", "pl"], ["sankt", "st"], ["saint", "ste"], ["sainte", "ste"],
];
const ALIASES = new Map<string, string[]>();
for (const [a, b] of PAIRS) {
  ALIASES.set(a, [...(ALIASES.get(a) ?? []), b]);
  ALIASES.set(b, [...(ALIASES.get(b) ?? []), a]);
}

/** The other spellings an index adds for a (folded) token: its abbreviation or full word, and "…str" for German "…strasse". */
export function aliases(token: string): string[] {
  const out = ALIASES.get(token) ?? [];
  if (token.length > 7 && token.endsWith("strasse")) return [...out, `${token.slice(0, -7)}str`];
  return out;
}
