/**
 * A plan model itinerary (model.ts) rendered as an OpenTripPlanner 1 Itinerary (interface spec
 * "Transit plan", with every field OTP1's `api/model` Itinerary, Leg and Place send). Sums are
 * exact: duration = walkTime + transitTime + waitingTime, all in whole seconds.
 *
 * OTP1 conventions followed here (GraphPathToTripPlanConverter, Leg, Place, Itinerary):
 * - ids are feed-scoped (`feedId:id`, ids.ts) for routeId, tripId and stopId; agencyId is the bare
 *   GTFS agency_id, as OTP1's Leg.agencyId is a plain String (OTP-UI matches it with the routeId's
 *   feed prefix against its transitOperators config);
 * - fields OTP1 leaves null are omitted (its JSON mapper skips nulls): stopCode, zoneId,
 *   platformCode, agencyUrl, tripShortName, tripBlockId when the feed has none; alerts;
 * - a place has `departure` on a leg's `from`, `arrival` on its `to`, and both where one leg hands
 *   over to the next (OTP1's fixupLegs): a walk leg ending at a stop shares the ride's `from`
 *   place (vertexType TRANSIT, stopIndex, stopSequence), a walk leg after a ride its `to`;
 * - `intermediateStops` only when showIntermediateStops is asked for, then on every leg (walk legs
 *   `[]`; OTP-UI always asks for it and its PropTypes require it);
 * - `agencyTimeZoneOffset`: the agency timezone's UTC offset (ms) at the leg's start; walk legs
 *   take the timezone of the ride before them, or of the first ride (OTP1 Itinerary.fixupDates);
 * - `rentedCar`, `rentedVehicle`, `hailedCar` false: fields of the OTP1 that OTP-UI was written
 *   against (its leg PropTypes require the first two);
 * - distances in metres to 0.1; on a plan drawn on the streets (`streetNetwork`), the itinerary's
 *   walkDistance and distance are the sums of its legs' rounded distances, and the street legs say
 *   how they were drawn (`onStreets`): Interchange's additions, which OTP clients ignore.
 */
import polyline from "@mapbox/polyline";
import { scopedId } from "../ids.ts";
import { dataOf, type RenderData } from "../itinerary.ts";
import type { Itinerary, LegPlace, StreetLeg, TransitLeg } from "../model.ts";
import { modeOfRouteType, type PlanParams } from "../plan-params.ts";
import { dayToIso, serviceDayOf, tzOffsetMs } from "../timetable/calendar.ts";
import type { Timetable } from "../timetable/types.ts";

export interface Otp1Itinerary {
  duration: number;
  startTime: number;
  endTime: number;
  walkTime: number;
  transitTime: number;
  waitingTime: number;
  walkDistance: number;
  /** OTP1: the itinerary's walking (all walk legs) is longer than the request's maxWalkDistance */
  walkLimitExceeded: boolean;
  elevationLost: number;
  elevationGained: number;
  transfers: number;
  /** OTP1's Fare object (`{ fare, details }`, fares.ts) when some ride has a fare */
  fare?: unknown;
  legs: Record<string, unknown>[];
  /** OTP1: a slope limit had to be removed to find it; always false */
  tooSloped: boolean;
  distance: number;
  transitDistance: number;
}

const round1 = (x: number) => Math.round(x * 10) / 10;

function geometry(pts: [number, number][]) {
  return { points: polyline.encode(pts, 5), length: pts.length };
}

// ---- timezones: service dates, cached (the offsets: timetable/calendar.ts tzOffsetMs)

const serviceDateCache = new Map<string, string>();
/** YYYYMMDD of the service day starting ("noon minus 12h") at Unix second `dayStart` in tz. */
function serviceDate(tz: string, dayStart: number): string {
  const key = `${tz}|${dayStart}`;
  let v = serviceDateCache.get(key);
  if (v === undefined) {
    if (serviceDateCache.size > 4096) serviceDateCache.clear();
    v = dayToIso(serviceDayOf(dayStart, tz)).replace(/-/g, "");
    serviceDateCache.set(key, v);
  }
  return v;
}

type Place = Record<string, unknown>;
type Leg = Record<string, unknown>;

/** OTP1 Place: a stop (vertexType TRANSIT, with its ids and, on a ride, its position) or a point (NORMAL). */
function otpPlace(tt: Timetable, rd: RenderData, pl: LegPlace): Place {
  if (pl.stop === undefined) return { name: pl.name, lon: pl.lon, lat: pl.lat, vertexType: "NORMAL" };
  const m = tt.meta, s = pl.stop;
  const out: Place = { name: m.stopName[s], stopId: scopedId(rd.feedId[m.stopFeed[s]!] ?? "", m.stopId[s]!) };
  if (m.stopCode[s]) out.stopCode = m.stopCode[s];
  if (m.stopPlatformCode[s]) out.platformCode = m.stopPlatformCode[s];
  out.lon = m.stopLon[s];
  out.lat = m.stopLat[s];
  if (m.stopZoneId[s]) out.zoneId = m.stopZoneId[s];
  out.vertexType = "TRANSIT";
  out.stopOnestopId = m.stopOnestopId[s];
  if (pl.stopIndex !== undefined) {
    out.stopIndex = pl.stopIndex;
    out.stopSequence = pl.stopSequence;
  }
  return out;
}

/** The fields every OTP1 leg starts with, in OTP1's order: times (ms), delays (no realtime: 0), distance. */
const legTimes = (start: number, end: number, distanceM: number) => ({
  startTime: start,
  endTime: end,
  departureDelay: 0,
  arrivalDelay: 0,
  realTime: false,
  distance: round1(distanceM),
  pathway: false,
});

/** An OTP1 street leg (no agency, route or trip fields); `agencyTimeZoneOffset` is set later. */
function streetLeg(tt: Timetable, rd: RenderData, l: StreetLeg, showIntermediateStops: boolean): Leg {
  const start = l.startSec * 1000, end = (l.startSec + l.durationSec) * 1000;
  const from = otpPlace(tt, rd, l.from), to = otpPlace(tt, rd, l.to);
  from.departure = start;
  to.arrival = end;
  const leg: Leg = {
    ...legTimes(start, end, l.distanceM),
    mode: l.mode,
    route: "",
    agencyTimeZoneOffset: 0,
    interlineWithPreviousLeg: false,
    from,
    to,
    legGeometry: geometry(
      l.geometry ?? [
        [from.lat as number, from.lon as number],
        [to.lat as number, to.lon as number],
      ],
    ),
    steps: l.steps,
    rentedBike: false,
    rentedCar: false,
    rentedVehicle: false,
    hailedCar: false,
    transitLeg: false,
    duration: l.durationSec,
  };
  if (showIntermediateStops) leg.intermediateStops = [];
  if (l.onStreets !== undefined) leg.onStreets = l.onStreets;
  return leg;
}

/**
 * The OTP1 Itinerary of a model itinerary. `streetNetwork`: the plan's street legs went to a street
 * network (street-legs.ts), whose sums OTP1's answers add from the rounded leg distances.
 */
export function renderItinerary(tt: Timetable, it: Itinerary, p: PlanParams, streetNetwork: boolean): Otp1Itinerary {
  const rd = dataOf(tt);
  const legs: Leg[] = [];
  let walkTime = 0, walkDistance = 0, walkRounded = 0, gained = 0, lost = 0, transitTime = 0, transitDistance = 0, rides = 0;
  const showMid = p.showIntermediateStops;
  for (const l of it.legs) {
    if (l.kind === "street") {
      const leg = streetLeg(tt, rd, l, showMid);
      legs.push(leg);
      walkTime += l.durationSec;
      walkDistance += l.distanceM;
      walkRounded += leg.distance as number;
      gained += l.elevationGainedM ?? 0;
      lost += l.elevationLostM ?? 0;
    } else {
      rides++;
      const leg = rideLeg(tt, rd, l, showMid);
      legs.push(leg);
      transitTime += leg.duration as number;
      transitDistance += leg.distance as number;
    }
  }
  fixupLegs(legs, p);
  // walk legs keep the clock of the ride before them, those before the first ride the first ride's
  let tz = it.timeZone;
  for (let i = 0; i < legs.length; i++) {
    const l = it.legs[i]!;
    if (l.kind === "transit") tz = l.timeZone;
    legs[i]!.agencyTimeZoneOffset = tzOffsetMs(tz, legs[i]!.startTime as number);
  }
  const startTime = legs[0]!.startTime as number;
  const endTime = legs[legs.length - 1]!.endTime as number;
  const duration = Math.round((endTime - startTime) / 1000);
  const walked = streetNetwork ? walkRounded : walkDistance;
  const out: Otp1Itinerary = {
    duration,
    startTime,
    endTime,
    walkTime,
    transitTime,
    waitingTime: duration - walkTime - transitTime,
    walkDistance: round1(walked),
    walkLimitExceeded: walked > p.maxWalkDistance,
    elevationLost: streetNetwork ? round1(lost) : 0,
    elevationGained: streetNetwork ? round1(gained) : 0,
    transfers: Math.max(0, rides - 1),
    legs,
    tooSloped: false,
    distance: round1(walked + (streetNetwork ? round1(transitDistance) : transitDistance)),
    transitDistance: round1(transitDistance),
  };
  if (it.fare === undefined) return out;
  // OTP1's Fare (fares.ts), only when some ride has a fare (OTP1 leaves it null otherwise): after `transfers`
  const { legs: _l, tooSloped, distance, transitDistance: td, ...before } = out;
  return { ...before, fare: it.fare, legs, tooSloped, distance, transitDistance: td };
}

/**
 * OTP1's fixupLegs: where one leg hands over to the next, the next leg's `from` gets the arrival
 * and this leg's `to` the departure; a walk leg after a ride starts at the ride's `to` place, a walk
 * leg before a ride ends at its `from` place (the same objects). The first leg's `from` and the
 * last leg's `to` carry the request's place names as `orig`.
 */
function fixupLegs(legs: Leg[], p: PlanParams): void {
  for (let i = 0; i + 1 < legs.length; i++) {
    const a = legs[i]!, b = legs[i + 1]!;
    const aTo = a.to as Place, bFrom = b.from as Place;
    if (aTo.arrival !== undefined) bFrom.arrival = aTo.arrival;
    if (bFrom.departure !== undefined) aTo.departure = bFrom.departure;
    if (a.transitLeg && !b.transitLeg) b.from = aTo;
    if (!a.transitLeg && b.transitLeg) a.to = bFrom;
  }
  if (legs.length) {
    (legs[0]!.from as Place).orig = p.from.name;
    (legs[legs.length - 1]!.to as Place).orig = p.to.name;
  }
}

function rideLeg(tt: Timetable, rd: RenderData, l: TransitLeg, showIntermediate: boolean): Leg {
  const m = tt.meta;
  const g = l.gtfsRoute;
  const gr = m.gtfsRoutes[g]!;
  const agency = m.agencies[gr.agency];
  const feedIdx = agency?.feed ?? m.stopFeed[l.from.stop!]!;
  const feed = m.feeds[feedIdx];
  const feedId = rd.feedId[feedIdx] ?? "";
  const start = l.startSec * 1000, end = l.endSec * 1000;
  const from = otpPlace(tt, rd, l.from), to = otpPlace(tt, rd, l.to);
  from.departure = start;
  to.arrival = end;
  const block = m.tripBlockId[l.trip]!;
  const tripShortName = m.tripShortName[l.trip]!;
  const leg: Leg = {
    ...legTimes(start, end, l.distanceM),
    mode: modeOfRouteType(gr.type),
    route: rd.routeName[g],
    agencyName: agency?.name ?? "",
  };
  if (l.realtime) {
    // OTP1: the delays (seconds) against the schedule at the boarding and the alighting stop
    leg.departureDelay = l.realtime.departureDelaySec;
    leg.arrivalDelay = l.realtime.arrivalDelaySec;
    leg.realTime = true;
  }
  if (agency?.url) leg.agencyUrl = agency.url;
  leg.agencyTimeZoneOffset = 0; // set with the walk legs' (renderItinerary)
  leg.routeColor = gr.color;
  leg.routeType = gr.type;
  leg.routeId = rd.routeId[g];
  leg.routeTextColor = gr.textColor;
  leg.interlineWithPreviousLeg = l.interlineWithPreviousLeg;
  if (tripShortName) leg.tripShortName = tripShortName;
  if (block) leg.tripBlockId = block;
  leg.headsign = m.tripHeadsign[l.trip];
  leg.agencyId = agency?.agencyId ?? "";
  leg.tripId = scopedId(feedId, m.tripId[l.trip]!);
  leg.serviceDate = serviceDate(l.timeZone, l.serviceDayStartSec);
  leg.from = from;
  leg.to = to;
  if (showIntermediate) {
    leg.intermediateStops = (l.intermediateStops ?? []).map((c) => {
      const pl = otpPlace(tt, rd, c.place);
      pl.arrival = c.arrivalSec * 1000;
      pl.departure = c.departureSec * 1000;
      return pl;
    });
  }
  leg.legGeometry = geometry(l.geometry);
  leg.steps = [];
  if (l.alerts.length) leg.alerts = l.alerts;
  leg.routeShortName = gr.shortName;
  leg.routeLongName = gr.longName;
  leg.rentedBike = false;
  leg.rentedCar = false;
  leg.rentedVehicle = false;
  leg.hailedCar = false;
  leg.transitLeg = true;
  leg.duration = l.endSec - l.startSec;
  // the spec's fields beside OTP1's
  leg.feedId = feed?.onestopId ?? "";
  leg.feedVersionSha1 = feed?.sha1 ?? "";
  leg.routeOnestopId = gr.onestopId;
  if (block) leg.block_id = block;
  return leg;
}
