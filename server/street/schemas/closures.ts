/**
 * The closures conflict (Valhalla 143) for location lists other than `locations`: the engine checks
 * every location it parses (sources, targets, shape points), so a location that sets
 * search_filter.exclude_closures cannot go with costing_options.<costing>.ignore_closures. Same
 * reading as requestRules in base.ts (both set to true).
 */
import type { z } from "zod";

interface ClosureInput {
  costing?: string;
  costing_options?: Record<string, unknown>;
}

type WithFilters = Array<{ search_filter?: { exclude_closures?: boolean } }> | undefined;

export function closureConflicts(req: ClosureInput & Record<string, unknown>, ctx: z.RefinementCtx, fields: readonly string[]): void {
  const opts = req.costing && (req.costing_options?.[req.costing] as { ignore_closures?: boolean } | undefined);
  if (!opts || opts.ignore_closures !== true) return;
  for (const field of fields) {
    (req[field] as WithFilters)?.forEach((l, i) => {
      if (l.search_filter?.exclude_closures === true) {
        ctx.addIssue({
          code: "custom",
          path: [field, i, "search_filter", "exclude_closures"],
          message: `cannot be set together with costing_options.${req.costing}.ignore_closures`,
          params: { engineCode: 143 },
        });
      }
    });
  }
}
