/** Shared by the benchmark scripts: their `--name value` flags, a seeded random source, percentiles. */

const ARGS = process.argv.slice(2);

/** The value after `--name` on the command line, or `d`. */
export function flag(name: string, d: string): string {
  const i = ARGS.indexOf(`--${name}`);
  return i >= 0 ? ARGS[i + 1]! : d;
}

/** Whether `--name` is on the command line. */
export const hasFlag = (name: string) => ARGS.includes(`--${name}`);

/** A seeded pseudo-random source in [0, 1] (the same queries on every run). */
export function rng(seed: number): () => number {
  return () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
}

/** The p-th percentile (nearest rank) of xs; NaN when empty. */
export function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]! : NaN;
}
