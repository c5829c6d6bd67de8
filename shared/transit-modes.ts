/**
 * OpenTripPlanner 2's TransitMode of a GTFS route_type (basic and extended types, as OTP2's GTFS
 * mapper reads them): the GTFS GraphQL API's `mode` and the vector tiles' `type` use the same names.
 */
const BASIC: Record<number, string> = { 0: "TRAM", 1: "SUBWAY", 2: "RAIL", 3: "BUS", 4: "FERRY", 5: "CABLE_CAR", 6: "GONDOLA", 7: "FUNICULAR", 11: "TROLLEYBUS", 12: "MONORAIL" };

/** OTP2's TransitMode name for `routeType`, or null for none. */
export function transitMode(routeType: number | null): string | null {
  if (routeType === null) return null;
  if (routeType in BASIC) return BASIC[routeType]!;
  if (routeType >= 100 && routeType < 200) return "RAIL";
  if (routeType >= 200 && routeType < 300) return "COACH";
  if (routeType >= 400 && routeType < 500) return routeType === 403 || routeType === 404 ? "RAIL" : "SUBWAY";
  if (routeType === 800) return "TROLLEYBUS";
  if (routeType >= 900 && routeType < 1000) return "TRAM";
  if (routeType >= 1000 && routeType < 1300) return routeType >= 1100 && routeType < 1200 ? "AIRPLANE" : "FERRY";
  if (routeType >= 1300 && routeType < 1400) return "GONDOLA";
  if (routeType >= 1400 && routeType < 1500) return "FUNICULAR";
  if (routeType >= 1500 && routeType < 1600) return "TAXI";
  return "BUS";
}
