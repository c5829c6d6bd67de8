/**
 * Valhalla's JSON writer (rapidjson) writes nothing for a number that is not finite: a NaN or an
 * infinity comes out as `"heading":,` or `[1.5,,2]` (valhalla/valhalla#6142; a trace_attributes
 * answer of the fuzz run), which no client can parse. The embedded engine's answers are checked
 * here and such holes filled with `null`, what JSON.stringify writes for the same numbers.
 *
 * The check is a scan for the shapes a hole leaves (`":` then `,` `}` `]`; `,,`; `,]`; `[,`); only
 * an answer that shows one and does not parse is rewritten, by a scan that knows strings (so a
 * street name with ",," in it is never touched).
 */

const HOLE = /":[,}\]]|,[,\]]|\[,/;

/** `text` with every missing value written as `null`; `text` itself when it has none. */
export function fillMissingValues(text: string): string {
  if (!HOLE.test(text)) return text;
  try {
    JSON.parse(text);
    return text; // the shapes were inside strings
  } catch {
    // a hole: rewritten below
  }
  let out = "";
  let from = 0;
  let inString = false;
  /** the last character outside strings and whitespace */
  let last = "";
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') {
      inString = true;
      last = c;
      continue;
    }
    if (c === " " || c === "\n" || c === "\r" || c === "\t") continue;
    // a value was due: after `:` (a member's), after `[` or an array's `,` (an item's; an object's
    // `,` is followed by a key, a string)
    const hole = last === ":" ? c === "," || c === "}" : last === "[" ? c === "," : last === "," ? c === "," || c === "]" : false;
    if (hole) {
      out += `${text.slice(from, i)}null`;
      from = i;
    }
    last = c;
  }
  return out + text.slice(from);
}
