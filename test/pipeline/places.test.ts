/**
 * FEATURE UNDER TEST: pipeline/places/boundaries.ts, the point → Natural Earth admin-1 lookup the
 * import uses for the stops' place: holes (an enclave is its own unit, not the one around it),
 * multi-part units (islands), points no polygon covers, and that the data set is read once.
 */
import { describe, expect, test } from "bun:test";
import { boundariesFrom, loadBoundaries } from "../../pipeline/places/boundaries.ts";

describe("admin-1 lookup", () => {
  test("enclaves (polygon holes) and multi-part units", async () => {
    const b = await loadBoundaries();
    expect(b.lookup(52.52, 13.405)).toEqual({ adm0_name: "Germany", adm0_iso: "DE", adm1_name: "Berlin", adm1_iso: "DE-BE" }); // a hole in Brandenburg
    expect(b.lookup(52.4, 13.06)?.adm1_iso).toBe("DE-BB"); // Potsdam, just outside it
    expect(b.lookup(-29.31, 27.48)?.adm0_iso).toBe("LS"); // Maseru: Lesotho, inside South Africa
    expect(b.lookup(21.31, -157.86)?.adm1_iso).toBe("US-HI"); // Honolulu, on one island of a multi-part unit
    expect(b.lookup(19.71, -155.08)?.adm1_iso).toBe("US-HI"); // Hilo, on another
  });

  test("no place at sea, at 0,0 or for impossible coordinates", async () => {
    const b = await loadBoundaries();
    for (const [lat, lon] of [[0, 0], [30, -40], [-40, -120], [91, 0], [0, 181], [NaN, 0]] as const) expect(b.lookup(lat, lon)).toBeNull();
  });

  test("loaded once per process", async () => {
    expect(loadBoundaries()).toBe(loadBoundaries());
  });

  test("overlapping polygons: the smallest wins; Natural Earth's placeholder codes are null", () => {
    const square = (x0: number, y0: number, d: number) => [[[x0, y0], [x0 + d, y0], [x0 + d, y0 + d], [x0, y0 + d], [x0, y0]]];
    const b = boundariesFrom({
      features: [
        { properties: { admin: "Big", iso_a2: "BG", name: "Outer", iso_3166_2: "BG-01" }, geometry: { type: "Polygon", coordinates: square(0, 0, 10) } },
        { properties: { admin: "Small", iso_a2: "SM", name: "Inner", iso_3166_2: "SM-X01~" }, geometry: { type: "MultiPolygon", coordinates: [square(2, 2, 1), square(5, 5, 1)] } },
      ],
    });
    expect(b.lookup(1, 1)?.adm1_name).toBe("Outer");
    expect(b.lookup(5.5, 5.5)).toEqual({ adm0_name: "Small", adm0_iso: "SM", adm1_name: "Inner", adm1_iso: null });
    expect(b.lookup(11, 11)).toBeNull();
  });
});
