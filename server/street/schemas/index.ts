/** The request schema of each street-routing action (status takes none). */
import type { z } from "zod";
import { CentroidRequest } from "./centroid.ts";
import { ExpansionRequest } from "./expansion.ts";
import { HeightRequest } from "./height.ts";
import { IsochroneRequest } from "./isochrone.ts";
import { LocateRequest } from "./locate.ts";
import { RouteRequest } from "./route.ts";

export const ACTIONS = ["route", "isochrone", "expansion", "height", "locate", "centroid", "status"] as const;
export type StreetAction = (typeof ACTIONS)[number];

export const REQUEST_SCHEMAS: Record<Exclude<StreetAction, "status">, z.ZodType> = {
  route: RouteRequest,
  isochrone: IsochroneRequest,
  expansion: ExpansionRequest,
  height: HeightRequest,
  locate: LocateRequest,
  centroid: CentroidRequest,
};

export const isAction = (s: string): s is StreetAction => (ACTIONS as readonly string[]).includes(s);
