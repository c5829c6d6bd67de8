/**
 * Status request (Valhalla /status): only `verbose` is read. The engine parses the common fields of
 * every request on status too (src/worker.cc from_json), so what can take it down there (a
 * `durations` without a shape: validate.ts checkDurations) is refused before it is forwarded.
 */
import { z } from "zod";
import { bool } from "./common.ts";

export const StatusRequest = z.looseObject({
  verbose: bool().default(false),
});
