/**
 * A Valhalla route leg as OTP1 WalkSteps: one step per maneuver (the arrival maneuver ends the
 * last step and is not one itself), its relative direction from the maneuver type, the absolute
 * direction from the bearing after it (OTP1's octants: NORTH, NORTHEAST, ... clockwise), the
 * street name (a generic one, with `bogusName`, when the way has none), and the elevation samples
 * of the leg that fall inside the step (`elevation_interval` apart; Valhalla's no-data value left out).
 */
import type { AbsoluteDirection, RelativeDirection, WalkStep } from "../street-paths.ts";

/** The parts of a Valhalla maneuver read here (trip.legs[].maneuvers[]). */
export interface Maneuver {
  type: number;
  street_names?: string[];
  bearing_after?: number;
  /** kilometers */
  length: number;
  begin_shape_index: number;
  roundabout_exit_count?: number;
  travel_type?: string;
}

/**
 * Valhalla writes about -500 (-500, -499.9 after its smoothing) where no elevation tile covers
 * the point; no land lies below -450 m (the Dead Sea shore is at -430 m).
 */
const NO_ELEVATION = -450;

const ABSOLUTE: AbsoluteDirection[] = ["NORTH", "NORTHEAST", "EAST", "SOUTHEAST", "SOUTH", "SOUTHWEST", "WEST", "NORTHWEST"];

/** Valhalla's maneuver types (odin DirectionsLeg_Maneuver_Type) as OTP1 relative directions. */
function relative(type: number, first: boolean): RelativeDirection | null {
  if (first) return "DEPART";
  switch (type) {
    case 1: case 2: case 3: return "DEPART";
    case 4: case 5: case 6: return null; // destination: the end of the last step
    case 9: case 18: case 20: case 23: case 37: return "SLIGHTLY_RIGHT";
    case 16: case 19: case 21: case 24: case 38: return "SLIGHTLY_LEFT";
    case 10: return "RIGHT";
    case 15: return "LEFT";
    case 11: return "HARD_RIGHT";
    case 14: return "HARD_LEFT";
    case 12: return "UTURN_RIGHT";
    case 13: return "UTURN_LEFT";
    case 26: return "CIRCLE_COUNTERCLOCKWISE";
    case 39: return "ELEVATOR";
    default: return "CONTINUE"; // becomes, continue, ramps straight, stay straight, merge, ferry, steps, buildings
  }
}

function genericName(m: Maneuver): string {
  if (m.type === 40) return "steps";
  if (m.type === 41) return "escalator";
  if (m.type === 39) return "elevator";
  return m.travel_type === "car" || m.travel_type === "motorcycle" || m.travel_type === "truck" ? "road" : "path";
}

const round2 = (x: number) => Math.round(x * 100) / 100;

/**
 * WalkSteps of one leg: `points` its decoded shape ([lat, lon]); `elevation` its samples every
 * `intervalM` meters from the start (or null). Also the meters climbed and descended (null
 * without elevation data).
 */
export function walkSteps(maneuvers: Maneuver[], points: [number, number][], elevation: number[] | null, intervalM: number): { steps: WalkStep[]; gained: number | null; lost: number | null } {
  const steps: WalkStep[] = [];
  const starts: number[] = [];
  let along = 0;
  for (const m of maneuvers) {
    const dir = relative(m.type, steps.length === 0);
    const meters = m.length * 1000;
    if (dir !== null) {
      const at = points[Math.min(m.begin_shape_index, points.length - 1)] ?? [0, 0];
      const named = m.street_names?.[0];
      const prev = steps[steps.length - 1];
      const streetName = named ?? genericName(m);
      const step: WalkStep = {
        distance: round2(meters),
        relativeDirection: dir,
        streetName,
        absoluteDirection: ABSOLUTE[Math.round(((m.bearing_after ?? 0) % 360) / 45) % 8]!,
        stayOn: named !== undefined && prev !== undefined && !prev.bogusName && prev.streetName === named,
        area: false,
        bogusName: named === undefined,
        lon: at[1],
        lat: at[0],
      };
      if (m.type === 26 && m.roundabout_exit_count) step.exit = String(m.roundabout_exit_count);
      steps.push(step);
      starts.push(along);
    } else if (steps.length) {
      steps[steps.length - 1]!.distance = round2(steps[steps.length - 1]!.distance + meters);
    }
    along += meters;
  }
  if (!elevation || !elevation.some((e) => e > NO_ELEVATION)) return { steps, gained: null, lost: null };
  let gained = 0, lost = 0, last: number | null = null;
  let s = 0;
  for (let k = 0; k < elevation.length; k++) {
    const e = elevation[k]!;
    if (e <= NO_ELEVATION) continue;
    if (last !== null) {
      if (e > last) gained += e - last;
      else lost += last - e;
    }
    last = e;
    const d = k * intervalM;
    while (s + 1 < starts.length && d >= starts[s + 1]!) s++;
    const step = steps[s];
    if (step) (step.elevation ??= []).push({ first: round2(d - starts[s]!), second: round2(e) });
  }
  return { steps, gained: round2(gained), lost: round2(lost) };
}
