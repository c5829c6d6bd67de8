/**
 * One trip asked the way OTP-UI asks it (core-utils 16: planQuery.graphql with generateOtp2Query's
 * variables) and through the OTP1 REST API, and the two answers compared: itineraries, legs, street
 * geometry and steps (elevation as OTP2's elevationProfile), fares through core-utils'
 * getItineraryCost, route names through its getLegRouteName. Returns the counts seen.
 */
import { expect } from "bun:test";
import { generateOtp2Query } from "core-utils-16/lib/query-gen.js";
import { getItineraryCost, getLegRouteName } from "core-utils-16/lib/itinerary.js";

type Json = Record<string, any>;
export interface Trip {
  from: { name: string; lat: number; lon: number };
  to: { name: string; lat: number; lon: number };
  date: string;
  time: string;
}

export async function compareWithRest(url: string, trip: Trip): Promise<{ itineraries: number; elevatedSteps: number; steps: number }> {
  const { query, variables } = generateOtp2Query({ from: trip.from, to: trip.to, modeSettings: [], modes: [{ mode: "WALK" }, { mode: "TRANSIT" }], date: trip.date, time: trip.time, arriveBy: false, numItineraries: 3 } as any);
  const r = await fetch(`${url}/otp/gtfs/v1`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query, variables }) });
  const body = (await r.json()) as Json;
  expect(body.errors).toBeUndefined();
  expect(body.data.plan.routingErrors).toEqual([]);
  const its = body.data.plan.itineraries as Json[];
  const rest = (await (await fetch(`${url}/api/v2/routing/otp/plan?${new URLSearchParams({ fromPlace: String(variables.fromPlace), toPlace: String(variables.toPlace), date: trip.date, time: trip.time, numItineraries: "3", mode: "WALK,TRANSIT" })}`)).json()) as Json;
  const restIts = rest.plan.itineraries as Json[];
  expect(rest.plan.streetNetwork).toBe(true);
  expect(its.length).toBe(restIts.length);
  let elevatedSteps = 0, steps = 0;
  its.forEach((it, i) => {
    const o = restIts[i]!;
    expect([it.startTime, it.endTime, it.duration, it.walkTime, it.waitingTime, it.transfers, it.legs.length]).toEqual([o.startTime, o.endTime, o.duration, o.walkTime, o.waitingTime, o.transfers, o.legs.length]);
    const cost = getItineraryCost(it.legs, null, null);
    if (o.fare) expect(Math.round(cost!.amount * 10 ** cost!.currency.digits)).toBe(o.fare.fare.regular.cents);
    else expect(cost).toBeUndefined();
    it.legs.forEach((l: Json, j: number) => {
      const ol = o.legs[j];
      expect([l.mode, l.startTime, l.endTime, l.distance, l.legGeometry.points, l.steps.length, l.transitLeg ? getLegRouteName(l as any) : null]).toEqual([ol.mode, ol.startTime, ol.endTime, ol.distance, ol.legGeometry.points, ol.steps.length, ol.transitLeg ? getLegRouteName(ol as any) : null]);
      l.steps.forEach((s: Json, k: number) => {
        const os = ol.steps[k];
        steps++;
        expect([s.distance, s.relativeDirection, s.absoluteDirection, s.streetName, s.stayOn, s.area, s.lat, s.lon]).toEqual([os.distance, os.relativeDirection, os.absoluteDirection, os.streetName, os.stayOn, os.area, os.lat, os.lon]);
        expect(s.elevationProfile).toEqual((os.elevation ?? []).map((e: Json) => ({ distance: e.first, elevation: e.second })));
        if (s.elevationProfile.length) elevatedSteps++;
      });
    });
  });
  return { itineraries: its.length, elevatedSteps, steps };
}
