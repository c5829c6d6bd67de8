/**
 * Building blocks for the street-routing schemas: bounded numbers and enums whose messages name the
 * allowed range, so a refusal reads "costing_options.auto.top_speed must be an integer from 10 to
 * 252". Every bound comes from a table of the spec (docs: the project's interface specification, `spec/interface.md` of the shared folder).
 */
import { z } from "zod";

/** Valhalla error code carried on custom issues (see ../validate.ts). */
export interface EngineCodeParams {
  engineCode: number;
}

/** A number in [min, max] (either side open when undefined), with a message naming the range. */
export function num(min?: number, max?: number, unit = "") {
  const u = unit ? ` ${unit}` : "";
  const range =
    min !== undefined && max !== undefined
      ? `a number from ${min} to ${max}${u}`
      : min !== undefined
        ? `a number of at least ${min}${u}`
        : max !== undefined
          ? `a number of at most ${max}${u}`
          : "a number";
  let s = z.number({ error: `must be ${range}` });
  if (min !== undefined) s = s.min(min, { error: `must be ${range}` });
  if (max !== undefined) s = s.max(max, { error: `must be ${range}` });
  return s;
}

/** An integer in [min, max]. */
export function int(min: number, max: number, unit = "") {
  const msg = `must be an integer from ${min} to ${max}${unit ? ` ${unit}` : ""}`;
  return z.number({ error: msg }).int({ error: msg }).min(min, { error: msg }).max(max, { error: msg });
}

/** Seconds of penalty or cost: 0 to 43200 (spec "Penalties and costs"). */
export const penalty = () => num(0, 43200, "s");
/** A preference between 0 and 1 (use_*, speed_penalty_factor ...). */
export const unit01 = () => num(0, 1);
/** A multiplicative factor 0.1 to 100000 (service_factor, alley_factor). */
export const factor = () => num(0.1, 100000);

/** A string enum whose message lists the allowed values. */
export function oneOf<const T extends readonly [string, ...string[]]>(values: T) {
  return z.enum(values, { error: `must be one of ${values.join(", ")}` });
}

export const bool = () => z.boolean({ error: "must be true or false" });
export const str = () => z.string({ error: "must be a string" });

/** Latitude and longitude as in the spec's Location objects. */
export const lat = () => num(-90, 90);
export const lon = () => num(-180, 180);

/** A [lon, lat] position (GeoJSON order; an altitude after them is tolerated). */
export const lonLat = () => z.tuple([lon(), lat()], { error: "must be a [lon, lat] pair" }).rest(z.number());

/**
 * Exactly one of `shape` and `encoded_polyline` (height and trace requests; code 114 otherwise).
 * Returns whether the rule holds; `needs` describes the shape asked for ("1 to 50 points").
 */
export function oneShapeOrPolyline(req: { shape?: unknown; encoded_polyline?: unknown }, ctx: z.RefinementCtx, needs: string): boolean {
  const hasShape = req.shape !== undefined;
  if (hasShape !== (req.encoded_polyline !== undefined)) return true;
  ctx.addIssue({
    code: "custom",
    path: hasShape ? ["encoded_polyline"] : ["shape"],
    message: hasShape ? "cannot be given together with shape: send one of them" : `is required: send shape (${needs}) or encoded_polyline`,
    params: { engineCode: 114 },
  });
  return false;
}
