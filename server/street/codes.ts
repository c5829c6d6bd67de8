/**
 * The Valhalla error codes this gateway answers with, and their engine texts (Valhalla
 * src/exceptions.cc). A refusal reads "<text>: <field> <what is allowed>[, got <value>]".
 * 199 is used for values the engine itself would clamp or ignore, which the spec bounds.
 */
export const ENGINE_TEXT: Record<number, string> = {
  100: "Failed to parse json request",
  101: "Try a POST or GET request instead",
  106: "Try any of",
  110: "Insufficiently specified required parameter 'locations'",
  113: "Insufficiently specified required parameter 'contours'",
  114: "Insufficiently specified required parameter 'shape' or 'encoded_polyline'",
  115: "Insufficiently specified required parameter 'action'",
  120: "Insufficient number of locations provided",
  123: "Insufficient shape provided",
  124: "No edge/node costing provided",
  125: "No costing method found",
  130: "Failed to parse location",
  133: "Failed to parse avoid",
  134: "Failed to parse shape",
  137: "Failed to parse polygon",
  143: "ignore_closures in costing and exclude_closures in search_filter cannot both be specified",
  144: "Action does not support expansion",
  150: "Exceeded max locations",
  151: "Exceeded max time",
  152: "Exceeded max contours",
  153: "Too many shape points",
  160: "Date and time required for origin for date_type of depart at",
  161: "Date and time required for destination for date_type of arrive by",
  162: "Date and time is invalid.  Format is YYYY-MM-DDTHH:MM",
  163: "Invalid date_type",
  164: "Invalid shape format",
  165: "Date and time required for destination for date_type of invariant",
  166: "Exceeded max distance",
  168: "Invalid expansion property type",
  173: "Failed to parse line feature",
  199: "Invalid parameter",
  313: "'resample_distance' is out of range",
};

/** Warning the engine gives for dropped hard exclusions (Valhalla warning 208). */
export const HARD_EXCLUSION_WARNING = { code: 208, text: "Hard exclusions are not allowed on this server, ignoring hard excludes" } as const;
