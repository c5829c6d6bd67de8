/**
 * Tiny command-line flag parser shared by the `interchange` commands. Every flag has an environment
 * variable equivalent; a flag given on the command line wins over the environment.
 */

export interface FlagSpec {
  /** kebab-case flag name without dashes, e.g. "data" for --data */
  name: string;
  env?: string;
  type: "string" | "boolean" | "number";
  description: string;
  default?: string | number | boolean;
  /** for boolean flags: `--no-<name>` sets false */
}

export type FlagValues = Record<string, string | number | boolean | undefined>;

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
    const v = inline ?? argv[++i];
    if (v === undefined) throw new UsageError(`flag --${name} needs a value`);
    values[camel(name)] = coerce(spec, v, `--${name}`);
  }
  return { values, positionals };
}

function coerce(spec: FlagSpec, raw: string, where: string): string | number | boolean {
  if (spec.type === "string") return raw;
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
    const flag = `--${s.name}${s.type === "boolean" ? "" : ` <${s.type === "number" ? "n" : "value"}>`}`;
    const env = s.env ? ` [env ${s.env}]` : "";
    const def = s.default !== undefined ? ` (default ${s.default})` : "";
    lines.push(`  ${flag.padEnd(28)} ${s.description}${def}${env}`);
  }
  return lines.join("\n");
}
