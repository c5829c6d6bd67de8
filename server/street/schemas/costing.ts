/**
 * Costing options, one schema per table of the spec ("Costing options"): base options (all
 * costings, hard exclusions included), auto options (auto, bus, taxi), bicycle options (bicycle).
 * Pedestrian, motor_scooter, motorcycle and truck fields are "not shown" in the spec: they get the
 * base options, and their own fields pass through to the engine unchecked.
 * Defaults that depend on the costing are noted in comments and left to the engine.
 */
import { z } from "zod";
import { bool, factor, int, num, oneOf, penalty, str, unit01 } from "./common.ts";

export const COSTINGS = ["auto", "bicycle", "pedestrian", "truck", "bus", "taxi", "motor_scooter", "motorcycle", "bikeshare", "auto_pedestrian"] as const;
export type Costing = (typeof COSTINGS)[number];

/** Speed sources (the spec names predicted, current and free-flow; values as the engine spells them). */
export const SPEED_TYPES = ["freeflow", "constrained", "predicted", "current"] as const;

/** Hard exclusions: honoured only with --allow-hard-exclusions, otherwise dropped with warning 208. */
export const HARD_EXCLUSIONS = ["exclude_bridges", "exclude_ferries", "exclude_highways", "exclude_tolls", "exclude_tunnels"] as const;

export const baseCostingFields = {
  alley_penalty: penalty().optional(), // 60 for bicycle, 5 otherwise
  closure_factor: num(1, 10).default(9),
  country_crossing_cost: penalty().default(600),
  country_crossing_penalty: penalty().default(0),
  destination_only_penalty: penalty().default(600),
  disable_hierarchy_pruning: bool().default(false),
  ferry_cost: penalty().default(300),
  fixed_speed: int(0, 252, "km/h").default(0),
  gate_cost: penalty().default(30),
  gate_penalty: penalty().optional(), // 300 for bicycle, 30 otherwise
  ignore_access: bool().default(false),
  ignore_closures: bool().default(false),
  ignore_oneways: bool().default(false),
  ignore_restrictions: bool().optional(),
  maneuver_penalty: penalty().default(5),
  name: str().optional(),
  private_access_penalty: penalty().optional(), // 600 for pedestrian, 450 otherwise
  rail_ferry_cost: penalty().default(300),
  service_factor: factor().default(1),
  service_penalty: penalty().optional(), // 0 truck/pedestrian, 75 auto/bus/taxi, 15 otherwise
  shortest: bool().default(false),
  speed_penalty_factor: unit01().default(0.05),
  speed_types: z
    .array(oneOf(SPEED_TYPES), { error: `must be an array of ${SPEED_TYPES.join(", ")}` })
    .max(4, { error: "must hold at most 4 speed types" })
    .refine((a) => new Set(a).size === a.length, { error: "must not repeat a speed type" })
    .optional(), // all available types
  toll_booth_cost: penalty().default(15),
  toll_booth_penalty: penalty().default(0),
  use_ferry: unit01().default(0.5),
  use_living_streets: unit01().optional(), // 0 truck, 0.5 bicycle, 0.6 pedestrian, 0.1 otherwise
  use_rail_ferry: unit01().default(0.4),
  use_tracks: unit01().optional(), // 0 auto/truck, 0.5 otherwise
  // hard exclusions (experimental)
  exclude_bridges: bool().default(false),
  exclude_ferries: bool().default(false),
  exclude_highways: bool().default(false),
  exclude_tolls: bool().default(false),
  exclude_tunnels: bool().default(false),
};

const objectError = { error: "must be an object of costing options" };

export const BaseCostingOptions = z.looseObject(baseCostingFields, objectError);

export const AutoCostingOptions = z.looseObject(
  {
    ...baseCostingFields,
    alley_factor: factor().default(1),
    height: num(0, undefined, "m").default(1.6),
    include_hot: bool().default(false),
    include_hov2: bool().default(false),
    include_hov3: bool().default(false),
    length: num(0, undefined, "m").default(2.7),
    restriction_probability: int(0, 100, "%").default(100),
    top_speed: int(10, 252, "km/h").default(140),
    use_distance: unit01().default(0),
    use_highways: unit01().default(0.5),
    use_tolls: unit01().default(0.5),
    weight: num(0, undefined, "t").default(0.8),
    width: num(0, undefined, "m").default(1.9),
  },
  objectError,
);

const BICYCLE_TYPES = ["road", "hybrid", "city", "cross", "mountain"] as const;

export const BicycleCostingOptions = z.looseObject(
  {
    ...baseCostingFields,
    avoid_bad_surfaces: unit01().default(0.25),
    // the engine's own docs capitalise these ("Hybrid"); accept either case
    bicycle_type: z
      .string({ error: `must be one of ${BICYCLE_TYPES.join(", ")}` })
      .refine((v) => (BICYCLE_TYPES as readonly string[]).includes(v.toLowerCase()), { error: `must be one of ${BICYCLE_TYPES.join(", ")}` })
      .default("hybrid"),
    bss_rent_penalty: penalty().default(0),
    bss_return_cost: penalty().default(120),
    cycling_speed: num(5, undefined, "km/h").optional(), // depends on bicycle_type
    use_hills: unit01().default(0.25),
    use_roads: unit01().default(0.25),
  },
  objectError,
);

/** Pedestrian options: fields not shown in the spec, so the base options apply. */
export const PedestrianCostingOptions = BaseCostingOptions;

/** Which options table each costing_options key uses (spec: BaseRequest.costing_options). */
export const OPTIONS_BY_COSTING: Record<Costing, z.ZodType> = {
  auto: AutoCostingOptions,
  bus: AutoCostingOptions,
  taxi: AutoCostingOptions,
  bicycle: BicycleCostingOptions,
  pedestrian: PedestrianCostingOptions,
  bikeshare: PedestrianCostingOptions,
  motor_scooter: BaseCostingOptions,
  motorcycle: BaseCostingOptions,
  truck: BaseCostingOptions,
  auto_pedestrian: BaseCostingOptions,
};

/** costing_options: keyed by costing name; unknown keys pass through. */
export const CostingOptions = z.looseObject(
  Object.fromEntries(COSTINGS.map((c) => [c, OPTIONS_BY_COSTING[c].optional()])) as Record<Costing, z.ZodOptional<z.ZodType>>,
  { error: "must be an object keyed by costing name" },
);
