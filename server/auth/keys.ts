/**
 * API keys: loaded once from the JSON keys file, looked up in constant time, never logged.
 * File format: [{ "key": "...", "account": "...", "rate_limit_per_minute": 600 }]
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { readFileSync } from "node:fs";
import { z } from "zod";
import { AppError } from "../errors.ts";

export interface Account {
  /** account name from the keys file */
  readonly account: string;
  /** requests per minute; 0 or undefined = unlimited */
  readonly rateLimitPerMinute: number;
}

const KeyFile = z.array(
  z.object({
    key: z.string().min(8, "keys must have at least 8 characters"),
    account: z.string().min(1),
    rate_limit_per_minute: z.number().int().nonnegative().optional(),
  }),
);

export interface Authenticator {
  /** null when the server runs with --no-auth */
  readonly enabled: boolean;
  /** resolve the key sent with a request (its apikey header or query parameter); throws UNAUTHORIZED */
  authenticate(request: Request): Account;
}

/**
 * The key a request sends: the `apikey` header, else the `apikey` query parameter (an empty one is
 * as good as none). Both set to different keys, or one sent twice with different values, is
 * refused rather than guessed at.
 */
export function keyOf(request: Request): string {
  const header = (request.headers.get("apikey") ?? "").trim();
  const params = new URL(request.url).searchParams.getAll("apikey").map((k) => k.trim()).filter((k) => k !== "");
  if (header.includes(",")) throw new AppError("UNAUTHORIZED", "more than one apikey header: send one key");
  const keys = new Set([...(header ? [header] : []), ...params]);
  if (keys.size > 1) throw new AppError("UNAUTHORIZED", "different API keys in the apikey header and the apikey query parameter: send one key");
  const [key] = keys;
  if (!key) throw new AppError("UNAUTHORIZED", "missing API key: send it in the apikey header");
  return key;
}

const digest = (s: string) => createHash("sha256").update(s, "utf8").digest();

export function loadKeys(path: string, defaultRateLimitPerMinute = 0): Authenticator {
  let parsed: z.infer<typeof KeyFile>;
  try {
    parsed = KeyFile.parse(JSON.parse(readFileSync(path, "utf8")));
  } catch (e) {
    const why = e instanceof z.ZodError ? e.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ") : (e as Error).message;
    throw new Error(`cannot read API keys file ${path}: ${why}`);
  }
  const entries = parsed.map((k) => ({
    hash: digest(k.key),
    account: { account: k.account, rateLimitPerMinute: k.rate_limit_per_minute ?? defaultRateLimitPerMinute } as Account,
  }));
  return {
    enabled: true,
    authenticate(request) {
      const key = keyOf(request);
      const h = digest(key);
      // Compare against every entry so the time taken does not depend on which key matched.
      let found: Account | null = null;
      for (const e of entries) if (timingSafeEqual(h, e.hash)) found = e.account;
      if (!found) throw new AppError("UNAUTHORIZED", "invalid API key");
      return found;
    },
  };
}

export const ANONYMOUS: Account = Object.freeze({ account: "anonymous", rateLimitPerMinute: 0 });

export function noAuth(): Authenticator {
  return { enabled: false, authenticate: () => ANONYMOUS };
}
