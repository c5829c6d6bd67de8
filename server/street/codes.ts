/**
 * The Valhalla error texts the gateway's own refusals use (validate.ts): a refusal reads
 * "<text>: <field> <what is allowed>[, got <value>]". The engine's texts come from ENGINE_ERRORS
 * (engine-errors.ts, the one table of Valhalla's codes); a few are the gateway's own:
 * - 199 "Invalid parameter": values the engine itself would clamp or ignore, which the spec bounds
 *   (the engine's 199 is the generic "Unknown").
 * - 313 "'resample_distance' is out of range": the engine's text ("'resample_distance' must be >= ")
 *   only fits its own detail.
 * - 166 "Exceeded max distance", 173 "Failed to parse line feature": upstream's texts; the engine
 *   we ship (3.6.1) has no text for 166 and no code 173.
 */
import { ENGINE_ERRORS } from "./engine-errors.ts";

const GATEWAY_TEXT: Record<number, string> = {
  166: "Exceeded max distance",
  173: "Failed to parse line feature",
  199: "Invalid parameter",
  313: "'resample_distance' is out of range",
};

export const ENGINE_TEXT: Record<number, string> = {
  ...Object.fromEntries([...ENGINE_ERRORS].map(([code, { text }]) => [code, text])),
  ...GATEWAY_TEXT,
};

/** Warning the engine gives for dropped hard exclusions (Valhalla warning 208). */
export const HARD_EXCLUSION_WARNING = { code: 208, text: "Hard exclusions are not allowed on this server, ignoring hard excludes" } as const;
