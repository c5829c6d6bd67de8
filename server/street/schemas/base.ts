/**
 * BaseRequest: the fields shared by street-routing requests (spec "Street routing: common request"),
 * plus the cross-field rules every request type applies (date_time value, closures conflict).
 */
import polyline from "@mapbox/polyline";
import { z } from "zod";
import { lonLat, num, oneOf, str } from "./common.ts";
import { COSTINGS, CostingOptions } from "./costing.ts";
import { Location } from "./location.ts";

const costingMessage = `must be one of ${COSTINGS.join(", ")}`;

/**
 * costing: `multimodal` is refused because the street graph of this deployment has no transit data;
 * `auto_pedestrian`, listed by the spec, because no engine we run implements it (Valhalla 3.6.1
 * answers 125 "No costing method found"): refused here with the reason rather than forwarded.
 */
export const Costing = z
  .string({ error: costingMessage })
  .refine((c) => c !== "multimodal", {
    error: "multimodal is not available: this deployment has no transit data in the street graph (use the transit plan endpoint)",
  })
  .refine((c) => c !== "auto_pedestrian", {
    error: "auto_pedestrian is listed by the interface but the routing engine (Valhalla 3.6.1) does not implement it: use auto or pedestrian, or the transit plan endpoint for trips that combine modes",
  })
  .pipe(oneOf(COSTINGS));

/** date_time: type 0 current, 1 depart_at, 2 arrive_by, 3 invariant; value required for 1 to 3. */
export const DateTime = z.looseObject(
  {
    type: z.union([z.literal(0), z.literal(1), z.literal(2), z.literal(3)], { error: "must be 0 (current), 1 (depart_at), 2 (arrive_by) or 3 (invariant)" }),
    value: str().optional(),
  },
  { error: "must be an object with type and value" },
);

const LOCAL_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})$/;

/** A real local date and time `YYYY-MM-DDTHH:MM` (2025-02-30T10:00 is refused). */
export function isLocalDateTime(v: string): boolean {
  const m = LOCAL_DATE_TIME.exec(v);
  if (!m) return false;
  const [y, mo, d, h, mi] = m.slice(1).map(Number) as [number, number, number, number, number];
  if (mo < 1 || mo > 12 || h > 23 || mi > 59 || d < 1) return false;
  return d <= new Date(Date.UTC(y, mo, 0)).getUTCDate();
}

/** A closed ring of [lon, lat] positions: at least 4, first equal to last. */
const Ring = z
  .array(lonLat(), { error: "must be a ring: an array of [lon, lat] pairs" })
  .min(4, { error: "must be a closed ring of at least 4 [lon, lat] pairs" })
  .refine((r) => r.length < 4 || (r[0]![0] === r[r.length - 1]![0] && r[0]![1] === r[r.length - 1]![1]), {
    error: "must be a closed ring (first pair equal to the last)",
  });

const PolygonFeature = z.looseObject({
  type: z.literal("Feature", { error: 'must be "Feature"' }),
  geometry: z.looseObject({
    type: z.literal("Polygon", { error: 'must be "Polygon"' }),
    coordinates: z.array(Ring).length(1, { error: "must hold exactly one ring" }),
  }),
  properties: z
    .looseObject({ levels: z.array(z.number().int({ error: "must be an integer level" }), { error: "must be an array of integer levels" }).optional() })
    .nullable()
    .optional(),
});

/** exclude_polygons: array of closed rings, or a FeatureCollection of single-ring Polygons. */
export const ExcludePolygons = z.union(
  [
    z.array(Ring),
    z.looseObject({
      type: z.literal("FeatureCollection"),
      features: z.array(PolygonFeature),
    }),
  ],
  { error: "must be an array of closed [lon, lat] rings or a FeatureCollection of single-ring Polygons" },
);

/** factor: 0.1 to 20, default 1. */
export const CostFactor = num(0.1, 20);

/** A precision-6 encoded polyline that decodes to at least 2 valid points. */
export const Polyline6 = str().refine(
  (s) => {
    try {
      const pts = polyline.decode(s, 6);
      return pts.length >= 2 && pts.every(([la, lo]) => Math.abs(la) <= 90 && Math.abs(lo) <= 180);
    } catch {
      return false;
    }
  },
  { error: "must be an encoded polyline (precision 6) of at least 2 points" },
);

const LinearCostFactorShape = z.looseObject({ shape: Polyline6, factor: CostFactor.default(1) });
const LinearCostFactorGeoJson = z.looseObject({
  type: z.literal("Feature", { error: 'must be "Feature"' }),
  geometry: z.looseObject({
    type: z.literal("LineString", { error: 'must be "LineString"' }),
    coordinates: z.array(lonLat()).min(2, { error: "must hold at least 2 [lon, lat] pairs" }),
  }),
  properties: z.looseObject({ factor: CostFactor }),
});

/** linear_cost_factors: each entry a shape variant or a GeoJSON variant. */
export const LinearCostFactor = z.unknown().superRefine((v, ctx) => {
  const isFeature = typeof v === "object" && v !== null && "type" in v;
  const r = (isFeature ? LinearCostFactorGeoJson : LinearCostFactorShape).safeParse(v, { reportInput: true });
  if (!r.success) for (const i of r.error.issues) ctx.addIssue({ ...i, path: i.path } as never);
});

export const UNITS = ["km", "kilometers", "miles", "mi"] as const;
export const FORMATS = ["json", "gpx", "osrm", "pbf", "geotiff"] as const;
export const DIRECTIONS_TYPES = ["none", "maneuvers", "instructions"] as const;

/** BCP 47 language tag, e.g. en-US, de, zh-Hant-TW. */
const Bcp47 = str().regex(/^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$/, { error: "must be a BCP 47 language tag such as en-US" });

export function baseFields(opts: { costingRequired: boolean }) {
  return {
    costing: opts.costingRequired ? Costing : Costing.optional(),
    costing_options: CostingOptions.optional(),
    date_time: DateTime.optional(),
    exclude_locations: z.array(Location, { error: "must be an array of locations" }).optional(),
    exclude_polygons: ExcludePolygons.optional(),
    format: oneOf(FORMATS).default("json"),
    id: str().optional(),
    language: Bcp47.default("en-US"),
    linear_cost_factors: z.array(LinearCostFactor, { error: "must be an array of linear cost factors" }).optional(),
    units: oneOf(UNITS).default("km"),
    directions_type: oneOf(DIRECTIONS_TYPES).default("instructions"),
    // meters between elevation samples along a route: 0 for none; a tiny one made the engine sample
    // without end (optimized_route with 1e-24 did not answer in 30 s; found by test/fuzz)
    elevation_interval: num(0, 10_000, "m")
      .refine((v) => v === 0 || v >= 1, { error: "must be 0 (no elevation samples) or at least 1 m" })
      .optional(),
  };
}

interface RuleInput {
  costing?: string;
  costing_options?: Record<string, unknown>;
  date_time?: { type: number; value?: string };
  locations?: Array<{ search_filter?: { exclude_closures?: boolean } }>;
}

const MISSING_VALUE_CODE: Record<number, number> = { 1: 160, 2: 161, 3: 165 };

/** Cross-field rules of the spec, reported with the engine's codes. */
export function requestRules(req: RuleInput, ctx: z.RefinementCtx): void {
  const dt = req.date_time;
  if (dt && dt.type !== 0) {
    if (dt.value === undefined) {
      ctx.addIssue({ code: "custom", path: ["date_time", "value"], message: `is required for date_time type ${dt.type} (format YYYY-MM-DDTHH:MM)`, params: { engineCode: MISSING_VALUE_CODE[dt.type] } });
    } else if (!isLocalDateTime(dt.value)) {
      ctx.addIssue({ code: "custom", path: ["date_time", "value"], message: `must be a local date and time YYYY-MM-DDTHH:MM, got ${JSON.stringify(dt.value)}`, params: { engineCode: 162 } });
    }
  } else if (dt?.value !== undefined && !isLocalDateTime(dt.value)) {
    ctx.addIssue({ code: "custom", path: ["date_time", "value"], message: `must be a local date and time YYYY-MM-DDTHH:MM, got ${JSON.stringify(dt.value)}`, params: { engineCode: 162 } });
  }
  const opts = req.costing && (req.costing_options?.[req.costing] as { ignore_closures?: boolean } | undefined);
  if (opts && opts.ignore_closures === true) {
    req.locations?.forEach((l, i) => {
      if (l.search_filter?.exclude_closures === true) {
        ctx.addIssue({
          code: "custom",
          path: ["locations", i, "search_filter", "exclude_closures"],
          message: `cannot be set together with costing_options.${req.costing}.ignore_closures`,
          params: { engineCode: 143 },
        });
      }
    });
  }
}

