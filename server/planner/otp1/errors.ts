/**
 * OTP1's error bodies: a typed plan error (model.ts PlanError) as OTP1's `{id, msg, message,
 * noPath, missing}` (api/common/PlannerError.java), with OTP1's ids and English texts.
 */
import type { PlanError, PlanErrorKind } from "../model.ts";

export interface OtpError {
  id: number;
  msg: string;
  message: PlanErrorKind;
  noPath: boolean;
  missing?: string[];
}

/**
 * OTP1's errors: id (api/common/Message.java) and English text (Message.properties of the dev-1.x
 * branch, verbatim, its double space included).
 */
const ERRORS: Record<PlanErrorKind, [number, string]> = {
  PATH_NOT_FOUND: [404, "No trip found. There may be no transit service within the maximum specified distance or at the specified time, or your start or end point might not be safely accessible."],
  OUTSIDE_BOUNDS: [400, "Trip is not possible.  You might be trying to plan a trip outside the map data boundary."],
  NO_TRANSIT_TIMES: [406, "No transit times available. The date may be past or too far in the future or there may not be transit service for your trip at the time you chose."],
  TOO_CLOSE: [409, "Origin is within a trivial distance of the destination."],
  BOGUS_PARAMETER: [413, "The request has errors that the server is not willing or able to process."],
  GRAPH_UNAVAILABLE: [503, "We're sorry. The trip planner is temporarily unavailable. Please try again later."],
};

/**
 * OTP's error object: its id and text, with `detail` in parentheses (only the answers OTP1 has no
 * text of its own for use one: which parameter is bad, why no timetable is loaded, why there is no
 * bicycle route).
 */
export function otpError(e: PlanError): OtpError {
  const [id, msg] = ERRORS[e.kind];
  const error: OtpError = { id, msg: e.detail ? `${msg} (${e.detail})` : msg, message: e.kind, noPath: true };
  if (e.missing) error.missing = e.missing;
  return error;
}
