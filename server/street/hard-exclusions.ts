/**
 * Hard exclusions (exclude_bridges, ...) are honoured only when the server allows them
 * (--allow-hard-exclusions). Otherwise they are not an error: they are removed from the forwarded
 * request and the answer carries Valhalla's warning 208 (spec, Errors rule 3).
 */
import { HARD_EXCLUSIONS } from "./schemas/costing.ts";

/** Removes every hard exclusion set to true from costing_options; returns the removed paths. */
export function stripHardExclusions(body: Record<string, unknown>): string[] {
  const removed: string[] = [];
  const options = body.costing_options;
  if (!options || typeof options !== "object" || Array.isArray(options)) return removed;
  for (const [costing, o] of Object.entries(options as Record<string, unknown>)) {
    if (!o || typeof o !== "object" || Array.isArray(o)) continue;
    const opts = o as Record<string, unknown>;
    for (const key of HARD_EXCLUSIONS) {
      if (opts[key] === true) {
        delete opts[key];
        removed.push(`costing_options.${costing}.${key}`);
      }
    }
  }
  return removed;
}
