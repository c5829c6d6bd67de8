/**
 * The worker thread of readStopTimesOffThread (fast.ts): unpacks stop_times.txt from
 * the zip into memory (or reads the file, for a feed given as a folder), says whether that worked
 * (a member: size and CRC-32 checked), runs the fast reader over it and hands back the columns and
 * the bytes (their buffers transferred: the importer writes the bytes to disk if DuckDB is to read
 * the file after all).
 */
import { readFileSync } from "node:fs";
import { unpackMemberSync } from "../../zip.ts";
import { parseStopTimes, type Declined, type FastStopTimes, type StopTimesJob, type WorkerReply } from "./fast.ts";

declare const self: Worker;

const reply = (msg: WorkerReply, transfer: ArrayBuffer[] = []) => self.postMessage(msg, transfer);

self.onmessage = (ev: MessageEvent<StopTimesJob>) => {
  const job = ev.data;
  let bytes: Uint8Array;
  let parsed: FastStopTimes | Declined;
  if ("member" in job) {
    try {
      bytes = unpackMemberSync(job.member);
    } catch (e) {
      reply({ kind: "unpacked", error: (e as Error).message });
      return;
    }
    reply({ kind: "unpacked" });
  } else {
    try {
      bytes = new Uint8Array(readFileSync(job.file));
    } catch (e) {
      reply({ kind: "parsed", parsed: { declined: `stop_times.txt could not be read (${(e as Error).message})` } });
      return;
    }
  }
  try {
    parsed = parseStopTimes(bytes);
  } catch (e) {
    parsed = { declined: `the fast reader failed: ${(e as Error).message}` };
  }
  const buffers = new Set<ArrayBuffer>();
  if (!("declined" in parsed)) {
    for (const a of [parsed.trip, parsed.stop, parsed.seq, parsed.arr, parsed.dep, parsed.shapeDist, parsed.headsign, ...Object.values(parsed.ints)]) {
      if (a) buffers.add(a.buffer as ArrayBuffer);
    }
  }
  // a member's bytes go back (for the file DuckDB may have to read); a file is on disk already
  if ("member" in job) buffers.add(bytes.buffer as ArrayBuffer);
  reply({ kind: "parsed", parsed, bytes: "member" in job ? bytes : undefined }, [...buffers]);
};
