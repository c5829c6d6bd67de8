/**
 * FEATURE UNDER TEST: an engine answer with a number Valhalla's writer left out (a NaN or an
 * infinity: `"heading":,`, valhalla/valhalla#6142) is answered as JSON, the hole as null; answers
 * without a hole, and strings that merely look like one, are passed on unchanged.
 */
import { describe, expect, test } from "bun:test";
import { fillMissingValues } from "../../server/street/json-repair.ts";

describe("filling the holes of non-finite numbers in engine answers", () => {
  test("a member's missing value, last or not, becomes null", () => {
    const broken = '{"percent_along":0.0,"distance":85.6,"heading":,"outbound_reach":100,"edge":{"speed":}}';
    expect(() => JSON.parse(broken)).toThrow();
    expect(JSON.parse(fillMissingValues(broken))).toEqual({ percent_along: 0, distance: 85.6, heading: null, outbound_reach: 100, edge: { speed: null } });
  });

  test("an array's missing items, first, middle and last, become null; an empty array stays empty", () => {
    expect(JSON.parse(fillMissingValues('{"a":[,1.5,,2,],"b":[],"c":[[,]]}'))).toEqual({ a: [null, 1.5, null, 2, null], b: [], c: [[null, null]] });
  });

  test("answers without a hole are returned as they are, also when a string holds the shapes of one", () => {
    for (const ok of ['{"a":1,"b":[1,2],"c":[]}', '{"name":"a\\":,b,,c[,d,]","x":[","]}', "[]", '{"s":"\\\\","t":1}']) {
      expect(fillMissingValues(ok)).toBe(ok);
    }
    // a string with a hole's shape and a real hole beside it: only the real one is filled
    expect(JSON.parse(fillMissingValues('{"name":"x\\":,y","v":,"w":[",,"]}'))).toEqual({ name: 'x":,y', v: null, w: [",,"] });
  });
});
