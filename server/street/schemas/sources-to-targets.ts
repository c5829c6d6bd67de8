/**
 * Matrix request (Valhalla /sources_to_targets): BaseRequest plus `sources` and `targets`, at least
 * 1 location each. The engine reads only these two lists for this action (loki init_matrix);
 * `locations` is not used in their place, so a request with only `locations` is refused like one
 * with nothing (112). At most MAX_MATRIX_CELLS (limits.ts) sources × targets, refused with 150 as the
 * engine refuses more than its max_matrix_location_pairs.
 * Codes: missing → 112, empty → 121 (sources) / 122 (targets), a bad item → 131 / 132.
 */
import { z } from "zod";
import { bool, oneOf } from "./common.ts";
import { baseFields, requestRules } from "./base.ts";
import { closureConflicts } from "./closures.ts";
import { Location } from "./location.ts";
import { MAX_MATRIX_CELLS } from "../limits.ts";

/** Output shape encodings the engine accepts for every action but height. */
export const OUTPUT_SHAPE_FORMATS = ["polyline6", "polyline5", "geojson", "no_shape"] as const;

const side = () =>
  z
    .array(Location, { error: "must be an array of at least 1 location (sources_to_targets reads sources and targets, not locations)" })
    .min(1, { error: "must hold at least 1 location" });

const positive = "must be an integer of at least 1";

export const SourcesToTargetsRequest = z
  .looseObject({
    ...baseFields({ costingRequired: true }),
    sources: side(),
    targets: side(),
    matrix_locations: z.number({ error: positive }).int({ error: positive }).min(1, { error: positive }).optional(),
    verbose: bool().default(true),
    shape_format: oneOf(OUTPUT_SHAPE_FORMATS).default("no_shape"),
  })
  .superRefine((req, ctx) => {
    requestRules(req, ctx);
    closureConflicts(req, ctx, ["sources", "targets"]);
    const cells = req.sources.length * req.targets.length;
    if (cells > MAX_MATRIX_CELLS) {
      ctx.addIssue({
        code: "custom",
        path: ["sources"],
        message: `× targets makes ${req.sources.length} × ${req.targets.length} = ${cells} cells; at most ${MAX_MATRIX_CELLS} per request: split the matrix`,
        params: { engineCode: 150 },
      });
    }
  });
