/**
 * Renders a RAPTOR journey as an OTP-style Itinerary (interface spec "Transit plan"): walk legs for
 * access, transfers and egress, one leg per ride with route, trip, stops and shape geometry.
 * Sums are exact: duration = walkTime + transitTime + waitingTime, all in whole seconds.
 */
import { haversineM } from "../geo.ts";
import polyline from "@mapbox/polyline";
import type { Journey, ServiceDays } from "./api.ts";
import { modeOfRouteType, type PlanParams } from "./plan-params.ts";
import { arrAt, depAt, type Timetable } from "./timetable/types.ts";

export interface Itinerary {
  distance: number;
  duration: number;
  startTime: number;
  endTime: number;
  legs: Record<string, unknown>[];
  transfers: number;
  transitDistance: number;
  transitTime: number;
  waitingTime: number;
  walkDistance: number;
  walkTime: number;
}

const round1 = (x: number) => Math.round(x * 10) / 10;

function lineLength(pts: [number, number][]): number {
  let d = 0;
  for (let i = 1; i < pts.length; i++) d += haversineM(pts[i - 1]![0], pts[i - 1]![1], pts[i]![0], pts[i]![1]);
  return d;
}
function geometry(pts: [number, number][]) {
  return { points: polyline.encode(pts, 5), length: pts.length };
}

interface Pt {
  name: string;
  lat: number;
  lon: number;
}

function walkLeg(from: Record<string, unknown>, to: Record<string, unknown>, startSec: number, durationSec: number, distanceM: number): Record<string, unknown> {
  const pts: [number, number][] = [
    [from.lat as number, from.lon as number],
    [to.lat as number, to.lon as number],
  ];
  return {
    startTime: startSec * 1000,
    endTime: (startSec + durationSec) * 1000,
    distance: round1(distanceM),
    duration: durationSec,
    mode: "WALK",
    transitLeg: false,
    from: { ...from, departure: startSec * 1000 },
    to: { ...to, departure: (startSec + durationSec) * 1000 },
    legGeometry: geometry(pts),
    steps: [],
  };
}

function place(p: Pt): Record<string, unknown> {
  return { name: p.name, lat: p.lat, lon: p.lon };
}

export function renderItinerary(tt: Timetable, j: Journey | null, epochSec: number, p: PlanParams, days: ServiceDays | null, walkOnly?: { startSec: number; durationSec: number; distanceM: number }): Itinerary {
  const m = tt.meta;
  const legs: Record<string, unknown>[] = [];
  let walkTime = 0, walkDistance = 0, transitTime = 0, transitDistance = 0, rides = 0;
  const stopPlace = (s: number, extra: Record<string, unknown> = {}): Record<string, unknown> => {
    const o: Record<string, unknown> = { name: m.stopName[s], lat: m.stopLat[s], lon: m.stopLon[s], stopId: m.stopId[s], stopCode: m.stopCode[s], stopOnestopId: m.stopOnestopId[s], ...extra };
    return o;
  };
  if (!j) {
    const w = walkOnly!;
    legs.push(walkLeg(place(p.from), place(p.to), w.startSec, w.durationSec, w.distanceM));
    walkTime = w.durationSec;
    walkDistance = w.distanceM;
  } else {
    for (let li = 0; li < j.legs.length; li++) {
      const l = j.legs[li]!;
      if (l.kind === "access" || l.kind === "egress") {
        const s = l.stop;
        const d = haversineM(l.kind === "access" ? p.from.lat : p.to.lat, l.kind === "access" ? p.from.lon : p.to.lon, m.stopLat[s]!, m.stopLon[s]!);
        const dur = l.arrSec - l.depSec;
        if (d < 0.5 && dur === 0) continue;
        const start = epochSec + l.depSec;
        legs.push(l.kind === "access" ? walkLeg(place(p.from), stopPlace(s), start, dur, d) : walkLeg(stopPlace(s), place(p.to), start, dur, d));
        walkTime += dur;
        walkDistance += d;
      } else if (l.kind === "transfer") {
        const d = haversineM(m.stopLat[l.fromStop]!, m.stopLon[l.fromStop]!, m.stopLat[l.toStop]!, m.stopLon[l.toStop]!);
        const dur = l.arrSec - l.depSec;
        legs.push(walkLeg(stopPlace(l.fromStop), stopPlace(l.toStop), epochSec + l.depSec, dur, d));
        walkTime += dur;
        walkDistance += d;
      } else {
        rides++;
        const leg = rideLeg(tt, l, epochSec, p.showIntermediateStops, days!, stopPlace);
        legs.push(leg);
        transitTime += leg.duration as number;
        transitDistance += leg.distance as number;
      }
    }
  }
  const startTime = legs[0]!.startTime as number;
  const endTime = legs[legs.length - 1]!.endTime as number;
  const duration = Math.round((endTime - startTime) / 1000);
  return {
    distance: round1(walkDistance + transitDistance),
    duration,
    startTime,
    endTime,
    legs,
    transfers: Math.max(0, rides - 1),
    transitDistance: round1(transitDistance),
    transitTime,
    waitingTime: duration - walkTime - transitTime,
    walkDistance: round1(walkDistance),
    walkTime,
  };
}

function rideLeg(
  tt: Timetable,
  l: Extract<Journey["legs"][number], { kind: "ride" }>,
  epochSec: number,
  showIntermediate: boolean,
  days: ServiceDays,
  stopPlace: (s: number, extra?: Record<string, unknown>) => Record<string, unknown>,
): Record<string, unknown> {
  const { core, meta: m } = tt;
  const r = l.route;
  const s0 = core.routeStopStart[r]!;
  const nS = core.routeStopStart[r + 1]! - s0;
  const tbase = core.routeTime0[r]! + (l.trip - core.routeTripStart[r]!) * nS;
  const off = days.offsetSec[l.slot * core.nTz + core.routeTz[r]!]!;
  const at = (pos: number, which: "arr" | "dep") => (epochSec + off + (which === "arr" ? arrAt : depAt)(core.stopTimes, tbase + pos)) * 1000;
  const gr = m.gtfsRoutes[m.tripGtfsRoute[l.trip]!]!;
  const agency = m.agencies[gr.agency];
  const feed = m.feeds[agency?.feed ?? m.stopFeed[l.fromStop]!];
  const stopAt = (pos: number, time: number) => stopPlace(core.routeStops[s0 + pos]!, { departure: time, stopIndex: pos, stopSequence: m.routeStopSequence[s0 + pos] });
  // geometry: the shape between the boarding and alighting stops, else the stops themselves
  const pts: [number, number][] = [];
  const shape = m.routeShape[r]!;
  const i0 = m.routeStopShapeIdx[s0 + l.boardPos]!, i1 = m.routeStopShapeIdx[s0 + l.alightPos]!;
  if (shape >= 0 && i0 >= 0 && i1 > i0) {
    const base = m.shapeStart[shape]!;
    for (let i = i0; i <= i1; i++) pts.push([m.shapeLat[base + i]!, m.shapeLon[base + i]!]);
  } else {
    for (let pos = l.boardPos; pos <= l.alightPos; pos++) {
      const s = core.routeStops[s0 + pos]!;
      pts.push([m.stopLat[s]!, m.stopLon[s]!]);
    }
  }
  const start = at(l.boardPos, "dep"), end = at(l.alightPos, "arr");
  const leg: Record<string, unknown> = {
    startTime: start,
    endTime: end,
    distance: round1(lineLength(pts)),
    duration: Math.round((end - start) / 1000),
    mode: modeOfRouteType(gr.type),
    transitLeg: true,
    agencyId: agency?.agencyId ?? "",
    agencyName: agency?.name ?? "",
    feedId: feed?.onestopId ?? "",
    feedVersionSha1: feed?.sha1 ?? "",
    routeId: gr.routeId,
    routeShortName: gr.shortName,
    routeLongName: gr.longName,
    routeType: gr.type,
    routeColor: gr.color,
    routeTextColor: gr.textColor,
    routeOnestopId: gr.onestopId,
    tripId: m.tripId[l.trip],
    headsign: m.tripHeadsign[l.trip],
    from: stopAt(l.boardPos, start),
    to: stopAt(l.alightPos, end),
    legGeometry: geometry(pts),
    steps: [],
  };
  const block = m.tripBlockId[l.trip];
  if (block) leg.block_id = block;
  if (showIntermediate) {
    const mids: Record<string, unknown>[] = [];
    for (let pos = l.boardPos + 1; pos < l.alightPos; pos++) mids.push(stopAt(pos, at(pos, "dep")));
    leg.intermediateStops = mids;
  }
  return leg;
}
