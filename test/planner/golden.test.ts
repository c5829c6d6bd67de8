/**
 * FEATURE UNDER TEST: the OTP1 plan API's answers stay byte-identical (issue 32). The answers
 * recorded by test/planner/golden/record.ts (BART 2023 + Caltrain; rnv with its streets; the MTA
 * subway; BART 2019 with its recorded trip updates and alerts; a server without a timetable: 734
 * requests with arriveBy, modes, realtime options and every OTP error) are asked again of the real
 * server over the same datasets, and each status, content-type, x-interchange-warning header and
 * body must equal the recorded bytes. No field varies between runs (the server's clock is fixed;
 * elevationMetadata is constant), so nothing is compared structurally. The subway's answers are
 * replayed only where bench/.mta holds the very zip they were recorded from (its sha1).
 */
import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { ask, DATASETS, readGolden, sha1Of } from "./golden/datasets.ts";

for (const d of DATASETS) {
  const golden = readGolden(d.name);
  const missingInput = d.extraInput !== undefined && (!existsSync(d.extraInput) || sha1Of(d.extraInput) !== golden?.inputSha1);
  describe.skipIf(missingInput)(`golden OTP1 answers: ${d.name}`, () => {
    test(`${golden?.answers.length ?? 0} recorded plan answers, byte for byte`, async () => {
      expect(golden).not.toBeNull();
      const { server } = await d.start();
      try {
        const diffs: string[] = [];
        for (const want of golden!.answers) {
          const got = await ask(server, want.q);
          if (got.status !== want.status || got.contentType !== want.contentType || got.warning !== want.warning || got.body !== want.body) {
            let at = 0;
            while (at < got.body.length && got.body[at] === want.body[at]) at++;
            diffs.push(`${want.q}: status ${got.status}/${want.status}, warning ${got.warning === want.warning ? "same" : "differs"}, body from char ${at}: got …${got.body.slice(Math.max(0, at - 80), at + 120)}… want …${want.body.slice(Math.max(0, at - 80), at + 120)}…`);
          }
        }
        expect(diffs.slice(0, 5)).toEqual([]);
        expect(diffs.length).toBe(0);
      } finally {
        await server.stop();
      }
      // rnv's street dataset is built first (Valhalla tiles, footpaths on the streets): minutes on a busy host
    }, 900_000);
  });
}
