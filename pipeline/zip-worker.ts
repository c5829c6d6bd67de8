/**
 * Worker side of extractMemberOffThread (pipeline/zip.ts): unpacks one member to its file, so the
 * inflater's output (checksum, writes) is handled off the importer's main thread.
 */
import { extractMember, type ZipMember } from "./zip.ts";

declare const self: Worker;

self.onmessage = async (ev: MessageEvent<{ member: ZipMember; path: string }>) => {
  try {
    await extractMember(ev.data.member, ev.data.path);
    self.postMessage({ ok: true });
  } catch (e) {
    self.postMessage({ ok: false, message: (e as Error).message });
  }
};
