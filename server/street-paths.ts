/**
 * The street paths the transit planner asks for, as a port between two features: the street
 * feature implements it over its engine (server/street/paths.ts: the embedded Valhalla or an
 * external one), the planner uses it for access, egress and street-only itineraries, and
 * server/main.ts hands one to the other (features never import each other). The shapes are the
 * planner's: OTP1 WalkSteps (api/model/WalkStep.java), meters and whole seconds.
 */

export type StreetMode = "WALK" | "BICYCLE" | "CAR";

export interface LatLon {
  lat: number;
  lon: number;
}

/** How to move on the streets: the mode and its speed (m/s; CAR takes the road speeds). */
export interface StreetCost {
  mode: StreetMode;
  /** walking or cycling speed, m/s */
  speedMps?: number;
  wheelchair?: boolean;
  /** OTP1's bicycle triangle (safety, slope, time; summing to 1), when optimize=TRIANGLE */
  triangle?: { safety: number; slope: number; time: number };
}

/** One point reached: seconds and meters along the streets. */
export interface Reach {
  sec: number;
  meters: number;
}

/** OTP1's AbsoluteDirection and RelativeDirection names. */
export type AbsoluteDirection = "NORTH" | "NORTHEAST" | "EAST" | "SOUTHEAST" | "SOUTH" | "SOUTHWEST" | "WEST" | "NORTHWEST";
export type RelativeDirection =
  | "DEPART" | "HARD_LEFT" | "LEFT" | "SLIGHTLY_LEFT" | "CONTINUE" | "SLIGHTLY_RIGHT" | "RIGHT" | "HARD_RIGHT"
  | "CIRCLE_CLOCKWISE" | "CIRCLE_COUNTERCLOCKWISE" | "ELEVATOR" | "UTURN_LEFT" | "UTURN_RIGHT";

/** An OTP1 WalkStep: one instruction of a street leg. */
export interface WalkStep {
  /** meters of this step */
  distance: number;
  relativeDirection: RelativeDirection;
  streetName: string;
  absoluteDirection: AbsoluteDirection;
  /** roundabout exit number, when the step leaves one */
  exit?: string;
  /** the step stays on the street of the step before (a turn at an intersection onto the same name) */
  stayOn: boolean;
  area: boolean;
  /** the street has no name; `streetName` is a generic one ("path", "road") */
  bogusName: boolean;
  /** where the step starts */
  lon: number;
  lat: number;
  /** elevation profile: `first` meters from the step's start, `second` meters above sea level (absent without elevation data) */
  elevation?: { first: number; second: number }[];
}

/** A street path between two points, as a plan leg draws it. */
export interface StreetPath {
  meters: number;
  sec: number;
  /** [lat, lon] points along the streets */
  points: [number, number][];
  steps: WalkStep[];
  /** meters climbed and descended; null when the street dataset has no elevation here */
  elevationGained: number | null;
  elevationLost: number | null;
}

export interface StreetPaths {
  /** whether a street network is there to ask (a street dataset is loaded, or an external engine is set) */
  available(): boolean;
  /**
   * Street seconds and meters from `origin` to each of `others` (`direction` "to": from each of
   * them to `origin`); null where the streets do not connect them. Null as a whole when `origin`
   * is not on the street network, or the engine cannot answer: the caller falls back to straight lines.
   */
  reach(origin: LatLon, others: LatLon[], cost: StreetCost, direction: "from" | "to"): Promise<(Reach | null)[] | null>;
  /** The path from `from` to `to`; null when there is none on the streets (or no engine). */
  path(from: LatLon, to: LatLon, cost: StreetCost): Promise<StreetPath | null>;
  /**
   * The same paths asked for `account` (the API key's account of the request they serve): the
   * engine shares its slots fairly across accounts, so one account's plans cannot hold another's
   * street calls behind all of theirs. Undefined: no account (no API keys).
   */
  forAccount(account: string | undefined): StreetPaths;
}

/** No street network: every caller falls back to straight lines. */
export const NO_STREETS: StreetPaths = {
  available: () => false,
  reach: async () => null,
  path: async () => null,
  forAccount: () => NO_STREETS,
};
