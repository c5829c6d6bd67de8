/**
 * Worker threads of readStopTimesOffThread (stop-times-fast.ts), in one of two roles:
 * - "unpack": unpacks stop_times.txt from the zip into a shared buffer (checking it as
 *   extractMember does), publishing how many bytes are in (ctrl[0]) and when it is done (ctrl[1]:
 *   1 done, 2 failed), then says so;
 * - "read": runs the fast reader over the shared buffer as the bytes come in (or over the file,
 *   for a feed given as a folder) and hands the columns back (their buffers transferred).
 * Two threads, so that unpacking and reading overlap.
 */
import { readFileSync } from "node:fs";
import { extractMember } from "../zip.ts";
import { StopTimesReader, type Declined, type FastStopTimes, type StopTimesJob, type WorkerReply } from "./stop-times-fast.ts";

declare const self: Worker;

const reply = (msg: WorkerReply, transfer: ArrayBuffer[] = []) => self.postMessage(msg, transfer);

self.onmessage = async (ev: MessageEvent<StopTimesJob>) => {
  const job = ev.data;
  if (job.role === "unpack") {
    const bytes = new Uint8Array(job.buffer);
    const ctrl = new Int32Array(job.ctrl);
    let at = 0;
    let error: string | undefined;
    try {
      await extractMember(job.member, null, (chunk) => {
        if (at + chunk.length > bytes.length) return; // extractMember rejects the member
        bytes.set(chunk, at);
        at += chunk.length;
        Atomics.store(ctrl, 0, at);
        Atomics.notify(ctrl, 0);
      });
    } catch (e) {
      error = (e as Error).message;
    }
    Atomics.store(ctrl, 1, error === undefined ? 1 : 2);
    Atomics.notify(ctrl, 0);
    reply({ kind: "unpacked", error });
    return;
  }
  let parsed: FastStopTimes | Declined;
  try {
    if ("file" in job) {
      parsed = new StopTimesReader(new Uint8Array(readFileSync(job.file))).finish();
    } else {
      const reader = new StopTimesReader(new Uint8Array(job.buffer));
      const ctrl = new Int32Array(job.ctrl);
      let read = 0;
      for (;;) {
        const filled = Atomics.load(ctrl, 0);
        const state = Atomics.load(ctrl, 1);
        if (filled > read) reader.advance((read = filled));
        if (state !== 0) break;
        if (filled === read) Atomics.wait(ctrl, 0, filled, 100);
      }
      parsed = Atomics.load(ctrl, 1) === 1 ? reader.finish() : { declined: "stop_times.txt could not be unpacked" };
    }
  } catch (e) {
    parsed = { declined: `the fast reader failed: ${(e as Error).message}` };
  }
  const buffers = new Set<ArrayBuffer>();
  if (!("declined" in parsed)) {
    for (const a of [parsed.trip, parsed.stop, parsed.seq, parsed.arr, parsed.dep, parsed.shapeDist, parsed.headsign, ...Object.values(parsed.ints)]) {
      if (a) buffers.add(a.buffer as ArrayBuffer);
    }
  }
  reply({ kind: "parsed", parsed }, [...buffers]);
};
