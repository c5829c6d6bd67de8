/**
 * The worker thread of readStopTimesOffThread (fast.ts): unpacks stop_times.txt from
 * the zip into memory (or reads the file, for a feed given as a folder), whole or, when it is larger
 * than WHOLE_FILE_LIMIT, a piece at a time as the reader goes, says whether that worked
 * (a member: size and CRC-32 checked), runs the fast reader over it and hands back the columns and
 * the bytes when it declined the file (their buffers transferred: the importer writes the bytes to
 * disk for DuckDB to read).
 */
import { closeSync, openSync, readFileSync, readSync, statSync } from "node:fs";
import { unpackMemberPieces, unpackMemberSync } from "../../zip.ts";
import { parseStopTimes, StopTimesReader, WHOLE_FILE_LIMIT, type Declined, type FastStopTimes, type StopTimesJob, type WorkerReply } from "./fast.ts";

declare const self: Worker;

const reply = (msg: WorkerReply, transfer: ArrayBuffer[] = []) => self.postMessage(msg, transfer);

/** The columns' buffers, to transfer. */
function columnBuffers(parsed: FastStopTimes | Declined): Set<ArrayBuffer> {
  const buffers = new Set<ArrayBuffer>();
  if (!("declined" in parsed)) {
    for (const a of [parsed.trip, parsed.stop, parsed.seq, parsed.arr, parsed.dep, parsed.shapeDist, parsed.headsign, ...Object.values(parsed.ints)]) {
      if (a) buffers.add(a.buffer as ArrayBuffer);
    }
  }
  return buffers;
}

/**
 * A file larger than the job's limit, unpacked (or read) and read a piece at a time: never whole
 * in memory, and no bytes go back (when the reader declines it, the importer unpacks the member
 * to disk for DuckDB; a file is there already).
 */
async function readInPieces(job: StopTimesJob, size: number): Promise<void> {
  const reader = new StopTimesReader(new Uint8Array(PIECE * 2), size);
  if ("member" in job) {
    try {
      await unpackMemberPieces(job.member, (piece) => reader.push(piece));
    } catch (e) {
      reply({ kind: "unpacked", error: (e as Error).message });
      return;
    }
    reply({ kind: "unpacked" });
  } else {
    const piece = new Uint8Array(PIECE);
    let fd = -1;
    try {
      fd = openSync(job.file, "r");
      for (let n; (n = readSync(fd, piece, 0, PIECE, null)) > 0;) reader.push(piece.subarray(0, n));
    } catch (e) {
      reply({ kind: "parsed", parsed: { declined: `stop_times.txt could not be read (${(e as Error).message})` } });
      return;
    } finally {
      if (fd >= 0) closeSync(fd);
    }
  }
  let parsed: FastStopTimes | Declined;
  try {
    parsed = reader.finish();
  } catch (e) {
    parsed = { declined: `the fast reader failed: ${(e as Error).message}` };
  }
  reply({ kind: "parsed", parsed }, [...columnBuffers(parsed)]);
}

/** bytes read from a file at a time, when it is read in pieces */
const PIECE = 4 << 20;

self.onmessage = async (ev: MessageEvent<StopTimesJob>) => {
  const job = ev.data;
  let size = -1;
  try {
    size = "member" in job ? job.member.size : statSync(job.file).size;
  } catch { /* (reading it says why) */ }
  if (size > (job.wholeLimit ?? WHOLE_FILE_LIMIT)) return readInPieces(job, size);
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
  const buffers = columnBuffers(parsed);
  // a declined member's bytes go back (for the file DuckDB reads then); a file is on disk already,
  // and with the columns nothing reads the bytes (should the importer refuse the columns after
  // all, it unpacks the member again: holding the bytes would cost the file's size in memory)
  const back = "member" in job && "declined" in parsed ? bytes : undefined;
  if (back) buffers.add(back.buffer as ArrayBuffer);
  reply({ kind: "parsed", parsed, bytes: back }, [...buffers]);
};
