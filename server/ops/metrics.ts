/**
 * A small Prometheus registry: counters, gauges and histograms with labels, rendered in the text
 * exposition format 0.0.4 (https://prometheus.io/docs/instrumenting/exposition_formats/). Hand
 * written instead of prom-client: the service needs these three types and nothing of the rest
 * (summaries, push, cluster aggregation), and the format is a few lines of text. Every label set
 * is created by the service from a bounded set of values (route family, status, engine action,
 * account names of the keys file, dataset versions), never from raw request text.
 */

export type Labels = Readonly<Record<string, string>>;

/** Label value escaping of the text format: backslash, double quote and line feed. */
export const escapeLabel = (v: string) => v.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
const escapeHelp = (v: string) => v.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");

/** A sample value as the format writes it (+Inf, -Inf, NaN spelled out). */
export function formatValue(v: number): string {
  if (Number.isNaN(v)) return "NaN";
  if (v === Infinity) return "+Inf";
  if (v === -Infinity) return "-Inf";
  return String(v);
}

function labelText(names: readonly string[], values: readonly string[], extra = ""): string {
  const parts = names.map((n, i) => `${n}="${escapeLabel(values[i] ?? "")}"`);
  if (extra) parts.push(extra);
  return parts.length ? `{${parts.join(",")}}` : "";
}

interface Metric {
  readonly name: string;
  render(out: string[]): void;
}

abstract class Labelled<T> implements Metric {
  protected readonly series = new Map<string, { values: string[]; data: T }>();
  constructor(
    readonly name: string,
    readonly help: string,
    readonly labelNames: readonly string[],
  ) {}
  protected abstract fresh(): T;
  protected get(labels: Labels): T {
    const values = this.labelNames.map((n) => labels[n] ?? "");
    const key = values.join("\u0000");
    let s = this.series.get(key);
    if (!s) {
      s = { values, data: this.fresh() };
      this.series.set(key, s);
    }
    return s.data;
  }
  protected header(out: string[], type: string) {
    out.push(`# HELP ${this.name} ${escapeHelp(this.help)}`, `# TYPE ${this.name} ${type}`);
  }
  abstract render(out: string[]): void;
}

/** One series of a counter, for a caller that resolved its labels once (Counter.child). */
export class CounterSeries {
  v = 0;
  inc(by = 1): void {
    this.v += by;
  }
}

export class Counter extends Labelled<CounterSeries> {
  protected fresh() {
    return new CounterSeries();
  }
  inc(labels: Labels = {}, by = 1): void {
    this.get(labels).inc(by);
  }
  /** The series of `labels`, to keep and increment without a label lookup each time. */
  child(labels: Labels): CounterSeries {
    return this.get(labels);
  }
  render(out: string[]) {
    this.header(out, "counter");
    for (const s of this.series.values()) out.push(`${this.name}${labelText(this.labelNames, s.values)} ${formatValue(s.data.v)}`);
  }
}

/**
 * A gauge: set by the service, or, when built with `collect`, filled at each scrape from what the
 * service holds then (dataset versions, snapshot ages): those series are replaced whole. `type`
 * "counter" is for a total the process keeps itself (its CPU time), read at each scrape.
 */
export class Gauge extends Labelled<{ v: number }> {
  constructor(
    name: string,
    help: string,
    labelNames: readonly string[],
    private readonly collect?: () => Iterable<[Labels, number]>,
    private readonly type: "gauge" | "counter" = "gauge",
  ) {
    super(name, help, labelNames);
  }
  protected fresh() {
    return { v: 0 };
  }
  set(labels: Labels, v: number): void {
    this.get(labels).v = v;
  }
  render(out: string[]) {
    if (this.collect) {
      this.series.clear();
      for (const [labels, v] of this.collect()) this.set(labels, v);
    }
    this.header(out, this.type);
    for (const s of this.series.values()) out.push(`${this.name}${labelText(this.labelNames, s.values)} ${formatValue(s.data.v)}`);
  }
}

/** Seconds: from 0.5 ms (a catalog key lookup) to 30 s (the engine's default time-out). */
export const LATENCY_BUCKETS_S = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30] as const;

/** One series of a histogram, for a caller that resolved its labels once (Histogram.child). */
export class HistogramSeries {
  readonly counts: number[];
  sum = 0;
  count = 0;
  constructor(private readonly buckets: readonly number[]) {
    this.counts = new Array<number>(buckets.length).fill(0);
  }
  /** One observation: the first bucket whose bound is >= v found by binary search (none: only +Inf). */
  observe(v: number): void {
    const b = this.buckets;
    let lo = 0;
    let hi = b.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (v <= b[mid]!) hi = mid;
      else lo = mid + 1;
    }
    if (lo < b.length) this.counts[lo]! += 1;
    this.sum += v;
    this.count += 1;
  }
}

export class Histogram extends Labelled<HistogramSeries> {
  constructor(
    name: string,
    help: string,
    labelNames: readonly string[],
    readonly buckets: readonly number[] = LATENCY_BUCKETS_S,
  ) {
    super(name, help, labelNames);
    if (labelNames.includes("le")) throw new Error(`${name}: "le" is the bucket label`);
    if (buckets.some((b, i) => i > 0 && !(b > buckets[i - 1]!))) throw new Error(`${name}: bucket bounds must ascend`);
  }
  protected fresh() {
    return new HistogramSeries(this.buckets);
  }
  observe(labels: Labels, v: number): void {
    this.get(labels).observe(v);
  }
  /** The series of `labels`, to keep and observe into without a label lookup each time. */
  child(labels: Labels): HistogramSeries {
    return this.get(labels);
  }
  render(out: string[]) {
    this.header(out, "histogram");
    for (const s of this.series.values()) {
      let cumulative = 0;
      this.buckets.forEach((b, i) => {
        cumulative += s.data.counts[i]!;
        out.push(`${this.name}_bucket${labelText(this.labelNames, s.values, `le="${formatValue(b)}"`)} ${cumulative}`);
      });
      out.push(`${this.name}_bucket${labelText(this.labelNames, s.values, 'le="+Inf"')} ${s.data.count}`);
      out.push(`${this.name}_sum${labelText(this.labelNames, s.values)} ${formatValue(s.data.sum)}`);
      out.push(`${this.name}_count${labelText(this.labelNames, s.values)} ${s.data.count}`);
    }
  }
}

export class Registry {
  private readonly metrics: Metric[] = [];
  register<M extends Metric>(m: M): M {
    if (this.metrics.some((x) => x.name === m.name)) throw new Error(`metric ${m.name} registered twice`);
    this.metrics.push(m);
    return m;
  }
  /** The whole exposition, ending with a line feed. */
  render(): string {
    const out: string[] = [];
    for (const m of this.metrics) m.render(out);
    return `${out.join("\n")}\n`;
  }
}

export const EXPOSITION_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";
