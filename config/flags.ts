/**
 * Tiny command-line flag parser shared by the `interchange` commands. Every flag has an environment
 * variable equivalent; a flag given on the command line wins over the environment.
 *
 * It lives in config/, beside neither side: the import's flags (pipeline/cli.ts) and the server's
 * (server/config.ts) both use it, and neither may import the other's layer, nor bin/ (the entry
 * point, which nothing imports). It imports nothing (test/architecture.test.ts keeps it a leaf).
 */

export interface FlagSpec {
  /** kebab-case flag name without dashes, e.g. "data" for --data */
  name: string;
  env?: string;
  /** "list": repeatable, and takes every following argument that `takes` accepts (shell globs); env: comma-separated */
  type: "string" | "boolean" | "number" | "list";
  /** for lists: which following arguments belong to the flag (default: only the next one) */
  takes?: RegExp;
  description: string;
  default?: string | number | boolean;
  /** for boolean flags: `--no-<name>` sets false */
}

export type FlagValues = Record<string, string | number | boolean | string[] | undefined>;

export class UsageError extends Error {
  override readonly name = "UsageError";
}

const camel = (s: string) => s.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

/** Parse argv (without the command word) against specs; returns camelCase values and positionals. */
export function parseFlags(argv: string[], specs: FlagSpec[], env: Record<string, string | undefined> = process.env): {
  values: FlagValues;
  positionals: string[];
} {
  const byName = new Map(specs.map((s) => [s.name, s]));
  const values: FlagValues = {};
  const positionals: string[] = [];
  const given = new Set<string>();
  for (const s of specs) {
    const raw = s.env ? env[s.env] : undefined;
    if (raw !== undefined && raw !== "") values[camel(s.name)] = coerce(s, raw, `environment variable ${s.env}`);
    else if (s.default !== undefined) values[camel(s.name)] = s.default;
  }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--") {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith("--")) {
      positionals.push(arg);
      continue;
    }
    let name = arg.slice(2);
    let inline: string | undefined;
    const eq = name.indexOf("=");
    if (eq >= 0) {
      inline = name.slice(eq + 1);
      name = name.slice(0, eq);
    }
    let spec = byName.get(name);
    if (!spec && name.startsWith("no-") && byName.get(name.slice(3))?.type === "boolean") {
      values[camel(name.slice(3))] = false;
      continue;
    }
    if (!spec) throw new UsageError(`unknown flag --${name}`);
    if (spec.type === "boolean") {
      values[camel(name)] = inline === undefined ? true : coerce(spec, inline, `--${name}`);
      continue;
    }
    if (spec.type === "list") {
      // the command line replaces the environment's list, and repeated flags add up
      const list = (given.has(name) ? (values[camel(name)] as string[]) : []);
      given.add(name);
      const first = inline ?? argv[++i];
      if (first === undefined) throw new UsageError(`flag --${name} needs a value`);
      list.push(first);
      while (inline === undefined && spec.takes && i + 1 < argv.length && !argv[i + 1]!.startsWith("--") && spec.takes.test(argv[i + 1]!)) list.push(argv[++i]!);
      values[camel(name)] = list;
      continue;
    }
    const v = inline ?? argv[++i];
    if (v === undefined) throw new UsageError(`flag --${name} needs a value`);
    values[camel(name)] = coerce(spec, v, `--${name}`);
  }
  return { values, positionals };
}

function coerce(spec: FlagSpec, raw: string, where: string): string | number | boolean | string[] {
  if (spec.type === "string") return raw;
  if (spec.type === "list") return raw.split(",").map((v) => v.trim()).filter(Boolean);
  if (spec.type === "number") {
    const n = Number(raw);
    if (!Number.isFinite(n)) throw new UsageError(`${where}: expected a number, got "${raw}"`);
    return n;
  }
  const l = raw.toLowerCase();
  if (["1", "true", "yes", "on"].includes(l)) return true;
  if (["0", "false", "no", "off"].includes(l)) return false;
  throw new UsageError(`${where}: expected true or false, got "${raw}"`);
}

export function helpText(command: string, summary: string, specs: FlagSpec[]): string {
  const lines = [`usage: interchange ${command}`, "", summary, "", "flags:"];
  for (const s of specs) {
    const flag = `--${s.name}${s.type === "boolean" ? "" : ` <${s.type === "number" ? "n" : s.type === "list" ? "file>..." : "value"}${s.type === "list" ? "" : ">"}`}`;
    const env = s.env ? ` [env ${s.env}]` : "";
    const def = s.default !== undefined ? ` (default ${s.default})` : "";
    lines.push(`  ${flag.padEnd(28)} ${s.description}${def}${env}`);
  }
  return lines.join("\n");
}
