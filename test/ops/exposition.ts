/**
 * A strict reader of the Prometheus text exposition format 0.0.4, written from the format's
 * description (https://prometheus.io/docs/instrumenting/exposition_formats/) and not from
 * server/ops: every line is a HELP, a TYPE or a sample; each family is declared once, before its
 * samples, which stay together; label names are valid and not repeated, values escaped only as the
 * format allows; every sample is unique. Histograms: per label set, `le` buckets in increasing
 * order ending at +Inf, cumulative (non-decreasing), the +Inf bucket equal to _count, a _sum.
 * Throws on the first violation, naming the line.
 */

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Family {
  name: string;
  type: "counter" | "gauge" | "histogram" | "summary" | "untyped";
  help: string | null;
  samples: Sample[];
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const FLOAT = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;
const TYPES = new Set(["counter", "gauge", "histogram", "summary", "untyped"]);

export function parseValue(text: string): number {
  if (text === "+Inf" || text === "Inf") return Infinity;
  if (text === "-Inf") return -Infinity;
  if (text === "NaN") return NaN;
  if (!FLOAT.test(text)) throw new Error(`not a sample value: ${JSON.stringify(text)}`);
  return Number(text);
}

/** Labels `{a="x",b="y"}` from position `i` (at the `{`); returns them and the position after `}`. */
function parseLabels(line: string, i: number): { labels: Record<string, string>; end: number } {
  const labels: Record<string, string> = {};
  i++; // {
  while (line[i] !== "}") {
    const eq = line.indexOf("=", i);
    if (eq < 0) throw new Error("label without =");
    const name = line.slice(i, eq);
    if (!LABEL_NAME.test(name)) throw new Error(`bad label name ${JSON.stringify(name)}`);
    if (name in labels) throw new Error(`label ${name} repeated`);
    if (line[eq + 1] !== '"') throw new Error(`label ${name}: value not quoted`);
    let j = eq + 2;
    let value = "";
    for (;;) {
      const c = line[j];
      if (c === undefined) throw new Error(`label ${name}: unterminated value`);
      if (c === '"') break;
      if (c === "\\") {
        const n = line[j + 1];
        if (n === "\\") value += "\\";
        else if (n === '"') value += '"';
        else if (n === "n") value += "\n";
        else throw new Error(`label ${name}: bad escape \\${n}`);
        j += 2;
        continue;
      }
      value += c;
      j++;
    }
    labels[name] = value;
    i = j + 1;
    if (line[i] === ",") i++;
    else if (line[i] !== "}") throw new Error(`label ${name}: expected , or } after the value`);
  }
  return { labels, end: i + 1 };
}

function parseSample(line: string): Sample {
  const m = /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(line);
  if (!m) throw new Error("no metric name");
  const name = m[0];
  let i = name.length;
  let labels: Record<string, string> = {};
  if (line[i] === "{") ({ labels, end: i } = parseLabels(line, i));
  if (line[i] !== " ") throw new Error("expected a space before the value");
  const rest = line.slice(i + 1).split(" ");
  if (rest.length < 1 || rest.length > 2) throw new Error("expected a value and an optional timestamp");
  const value = parseValue(rest[0]!);
  if (rest.length === 2 && !/^-?\d+$/.test(rest[1]!)) throw new Error("bad timestamp");
  return { name, labels, value };
}

const familyOf = (sample: string, families: Map<string, Family>): Family | undefined => {
  const direct = families.get(sample);
  if (direct) return direct;
  for (const suffix of ["_bucket", "_sum", "_count"]) {
    if (!sample.endsWith(suffix)) continue;
    const f = families.get(sample.slice(0, -suffix.length));
    if (f && (f.type === "histogram" || (f.type === "summary" && suffix !== "_bucket"))) return f;
  }
  return undefined;
};

/** Parses and checks a whole exposition; the families in their order. */
export function parseExposition(text: string): Map<string, Family> {
  if (!text.endsWith("\n")) throw new Error("the exposition must end with a line feed");
  const families = new Map<string, Family>();
  const seen = new Set<string>();
  const closed = new Set<string>();
  let current: Family | null = null;
  const lines = text.slice(0, -1).split("\n");
  lines.forEach((line, n) => {
    const where = `line ${n + 1}: ${JSON.stringify(line.slice(0, 200))}`;
    try {
      if (line.startsWith("#")) {
        const m = /^# (HELP|TYPE) ([^ ]+) (.*)$/.exec(line);
        if (!m) throw new Error("a comment that is neither HELP nor TYPE");
        const [, kind, name, rest] = m as unknown as [string, string, string, string];
        if (!METRIC_NAME.test(name)) throw new Error(`bad metric name ${name}`);
        let f = families.get(name);
        if (f && closed.has(name)) throw new Error(`${name} declared again after other families`);
        if (!f) {
          if (current) closed.add(current.name);
          f = { name, type: "untyped", help: null, samples: [] };
          families.set(name, f);
        }
        if (f.samples.length) throw new Error(`${kind} of ${name} after its samples`);
        if (kind === "HELP") {
          if (f.help !== null) throw new Error(`second HELP for ${name}`);
          if (/\\[^\\n]/.test(rest.replace(/\\\\/g, ""))) throw new Error("bad escape in HELP");
          f.help = rest.replace(/\\n/g, "\n").replace(/\\\\/g, "\\");
        } else {
          if (!TYPES.has(rest)) throw new Error(`unknown type ${rest}`);
          f.type = rest as Family["type"];
        }
        current = f;
        return;
      }
      if (line.trim() === "") throw new Error("blank line");
      const s = parseSample(line);
      const f = familyOf(s.name, families);
      if (!f) throw new Error(`sample ${s.name} of no declared family`);
      if (f !== current) throw new Error(`sample of ${f.name} outside its family's block`);
      if (f.type === "histogram" && s.name === `${f.name}_bucket` && !("le" in s.labels)) throw new Error("bucket without le");
      if (f.type !== "histogram" && "le" in s.labels) throw new Error("le outside a histogram");
      const key = `${s.name}${JSON.stringify(Object.entries(s.labels).sort())}`;
      if (seen.has(key)) throw new Error(`sample repeated: ${key}`);
      seen.add(key);
      if (f.type === "counter" && !(s.value >= 0)) throw new Error("negative counter");
      f.samples.push(s);
    } catch (e) {
      throw new Error(`${where}: ${(e as Error).message}`);
    }
  });
  for (const f of families.values()) if (f.type === "histogram") checkHistogram(f);
  return families;
}

function checkHistogram(f: Family): void {
  const groups = new Map<string, { buckets: [number, number][]; sum?: number; count?: number }>();
  for (const s of f.samples) {
    const { le, ...rest } = s.labels;
    const key = JSON.stringify(Object.entries(rest).sort());
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { buckets: [] }));
    if (s.name === `${f.name}_bucket`) g.buckets.push([parseValue(le!), s.value]);
    else if (s.name === `${f.name}_sum`) g.sum = s.value;
    else if (s.name === `${f.name}_count`) g.count = s.value;
    else throw new Error(`${f.name}: sample ${s.name} does not belong to a histogram`);
  }
  for (const [key, g] of groups) {
    const what = `${f.name}${key}`;
    if (!g.buckets.length) throw new Error(`${what}: no buckets`);
    if (g.sum === undefined || g.count === undefined) throw new Error(`${what}: _sum or _count missing`);
    for (let i = 1; i < g.buckets.length; i++) {
      if (!(g.buckets[i]![0] > g.buckets[i - 1]![0])) throw new Error(`${what}: le not increasing`);
      if (g.buckets[i]![1] < g.buckets[i - 1]![1]) throw new Error(`${what}: buckets not cumulative`);
    }
    const last = g.buckets[g.buckets.length - 1]!;
    if (last[0] !== Infinity) throw new Error(`${what}: no +Inf bucket`);
    if (last[1] !== g.count) throw new Error(`${what}: +Inf bucket ${last[1]} != _count ${g.count}`);
    if (!g.buckets.every(([, c]) => Number.isInteger(c))) throw new Error(`${what}: bucket counts not integers`);
  }
}

/** The value of the one sample of `name` whose labels include `labels` (undefined: none). */
export function sampleValue(families: Map<string, Family>, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const f of families.values()) {
    for (const s of f.samples) if (s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)) return s.value;
  }
  return undefined;
}

/** Every sample of `name`. */
export function samples(families: Map<string, Family>, name: string): Sample[] {
  return [...families.values()].flatMap((f) => f.samples.filter((s) => s.name === name));
}
