/**
 * Run by test/planner/core-utils.test.ts in a child process with another TZ: the clock times
 * OTP-UI's core-utils 4 shows for plan itineraries (getTimeZoneOffset + formatTime, the way
 * otp-react-redux formats a leg's times), in this process's timezone. Argument: a JSON file of
 * itineraries. Prints { tz, times: [[start, end] per leg] per itinerary }.
 */
import { getTimeZoneOffset } from "core-utils-4/lib/itinerary.js";
import { formatTime } from "core-utils-4/lib/time.js";

const its = JSON.parse(await Bun.file(process.argv[2]!).text()) as { legs: { startTime: number; endTime: number }[] }[];
const times = its.map((it) => {
  const offset = getTimeZoneOffset(it);
  return it.legs.map((l) => [formatTime(l.startTime, { offset, format: "HH:mm" }), formatTime(l.endTime, { offset, format: "HH:mm" })]);
});
console.log(JSON.stringify({ tz: Intl.DateTimeFormat().resolvedOptions().timeZone, times }));
