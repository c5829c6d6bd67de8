/**
 * The GTFS GraphQL API's scalars as planning reads and writes them: OffsetDateTime (ISO 8601 with
 * an offset, e.g. "2019-06-04T08:00:00-07:00"), Duration (ISO 8601, e.g. "PT1H30M"), and the
 * errors of the planning fields, mapped in one place (planFailure). OTP's scalars come from an
 * introspection result, so graphql-js passes their values through untouched: they are checked here.
 */
import { GraphQLError } from "graphql";
import { AppError } from "../../errors.ts";
import { tzOffsetMs } from "../../planner/public.ts";

export const badInput = (message: string, field?: string) => new GraphQLError(message, { extensions: { code: "BAD_USER_INPUT", ...(field ? { field } : {}) } });

const pad = (n: number, w = 2) => String(Math.abs(n)).padStart(w, "0");
const TWO = Array.from({ length: 60 }, (_, i) => pad(i));

/** "2019-06-04T" of a day since the epoch, and "-07:00" of an offset in seconds: cached (a plan's times share a few days and offsets) */
const dayPrefixes = new Map<number, string>();
const zones = new Map<number, string>();
function dayPrefix(day: number): string {
  let v = dayPrefixes.get(day);
  if (v === undefined) {
    const d = new Date(day * 86400_000);
    v = `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}T`;
    if (dayPrefixes.size > 4096) dayPrefixes.clear();
    dayPrefixes.set(day, v);
  }
  return v;
}
function zoneOf(off: number): string {
  let v = zones.get(off);
  if (v === undefined) {
    v = off === 0 ? "Z" : `${off < 0 ? "-" : "+"}${pad(Math.floor(Math.abs(off) / 3600))}:${pad(Math.floor((Math.abs(off) % 3600) / 60))}`;
    if (zones.size > 4096) zones.clear();
    zones.set(off, v);
  }
  return v;
}

/** The local day (since the epoch) and the seconds into it of an instant (Unix seconds) in a time zone, from the OTP1 renderer's offset cache (one Intl call per 15 minutes of a zone). */
export function localDaySec(unixSec: number, tz: string): { day: number; sec: number } {
  const local = unixSec + Math.round(tzOffsetMs(tz, unixSec * 1000) / 1000);
  const day = Math.floor(local / 86400);
  return { day, sec: local - day * 86400 };
}

/** An instant (Unix seconds) as OTP's OffsetDateTime in a time zone: "2019-06-04T08:03:00-07:00". */
export function offsetDateTime(unixSec: number, tz: string): string {
  // the zone's offset from the OTP1 renderer's cache (one Intl call per 15 minutes of a zone)
  const off = Math.round(tzOffsetMs(tz, unixSec * 1000) / 1000);
  const local = unixSec + off;
  const day = Math.floor(local / 86400), sec = local - day * 86400;
  const h = Math.floor(sec / 3600), m = Math.floor((sec % 3600) / 60), s = sec % 60;
  // whole seconds (the plan's times are): two-digit parts from the table; anything else as before
  const time = Number.isInteger(sec) && h < 24 ? `${TWO[h]}:${TWO[m]}:${TWO[s]}` : `${pad(h)}:${pad(m)}:${pad(s)}`;
  return `${dayPrefix(day)}${time}${zoneOf(off)}`;
}

const OFFSET_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/;

/** OffsetDateTime -> Unix seconds; BAD_USER_INPUT naming `field` when it is not one (an offset is required). */
export function parseOffsetDateTime(v: unknown, field: string): number {
  const m = typeof v === "string" ? OFFSET_DATE_TIME.exec(v.trim()) : null;
  const ms = m ? Date.parse(v as string) : Number.NaN;
  if (!m || !Number.isFinite(ms) || Number(m[2]) > 12 || Number(m[3]) > 31 || Number(m[4]) > 23 || Number(m[5]) > 59) {
    throw badInput(`${field}: ${JSON.stringify(v)?.slice(0, 80)} is not an OffsetDateTime (ISO 8601 with an offset, e.g. 2019-06-04T08:00:00-07:00)`, field);
  }
  return Math.floor(ms / 1000);
}

const DURATION = /^(-)?P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$/i;

/** Duration (ISO 8601 "PT1H30M", "P1D", "PT90S"; a number: seconds) -> whole seconds; BAD_USER_INPUT when not one. */
export function parseDuration(v: unknown, field: string): number {
  if (typeof v === "number" && Number.isFinite(v)) return Math.round(v);
  const m = typeof v === "string" ? DURATION.exec(v.trim()) : null;
  if (!m || v === "P" || /T$/i.test(String(v).trim())) throw badInput(`${field}: ${JSON.stringify(v)?.slice(0, 80)} is not an ISO 8601 duration (e.g. PT1H30M)`, field);
  const s = Number(m[2] ?? 0) * 86400 + Number(m[3] ?? 0) * 3600 + Number(m[4] ?? 0) * 60 + Number(m[5] ?? 0);
  return Math.round(m[1] ? -s : s);
}

/** Whole seconds as an ISO 8601 duration: "PT1H", "PT2M30S", "PT0S", "-PT5M". */
export function isoDuration(sec: number): string {
  const a = Math.abs(Math.round(sec));
  const h = Math.floor(a / 3600), m = Math.floor((a % 3600) / 60), s = a % 60;
  const body = `${h ? `${h}H` : ""}${m ? `${m}M` : ""}${s || (!h && !m) ? `${s}S` : ""}`;
  return `${sec < 0 ? "-" : ""}PT${body}`;
}

/**
 * Every failure of a planning field as the GraphQL error the client sees (the one place they are
 * mapped): a parameter the planner refuses is BAD_USER_INPUT (its message names it), no loaded
 * timetable UNAVAILABLE; a GraphQLError passes; anything else is masked by the server.
 */
export function planFailure(err: unknown): unknown {
  if (err instanceof GraphQLError) return err;
  if (err instanceof AppError && err.code === "INVALID_PARAMETER") return badInput(err.message, typeof err.details.parameter === "string" ? err.details.parameter : undefined);
  if (err instanceof AppError && err.code === "UNAVAILABLE") return new GraphQLError(`the trip planner is not available${err.message ? ` (${err.message})` : ""}`, { extensions: { code: "UNAVAILABLE" } });
  return err;
}
