/**
 * Origins and destinations of an analysis: points with an id, a latitude and a longitude, and for
 * destinations any numeric opportunity columns (jobs, people, ...), from CSV or Parquet (read by
 * DuckDB) or GeoJSON (Point features). Column names: id; lat or latitude; lon, lng or longitude;
 * every other numeric column is an opportunity column.
 */
import { readFileSync } from "node:fs";
import { extname } from "node:path";
import type { DuckDBConnection } from "@duckdb/node-api";
import { sqlString } from "../../shared/sql.ts";
import type { AnalysisPoint } from "../planner/analysis/travel-times.ts";

export interface PointSet {
  points: AnalysisPoint[];
  /** opportunity columns, in the file's order: name and one value per point (0 for a missing value) */
  opportunities: { name: string; values: Float64Array }[];
}

const LAT = ["lat", "latitude"];
const LON = ["lon", "lng", "longitude"];
const NUMERIC = /^(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|FLOAT|DOUBLE|DECIMAL.*)$/;
const quoteIdent = (s: string) => `"${s.replaceAll('"', '""')}"`;

/** Reads a points file by its extension (.csv, .parquet, .geojson or .json). Throws naming the file and what is wrong. */
export async function readPoints(conn: DuckDBConnection, file: string): Promise<PointSet> {
  const ext = extname(file).toLowerCase();
  if (ext === ".geojson" || ext === ".json") return geojsonPoints(file);
  if (ext !== ".csv" && ext !== ".parquet" && ext !== ".tsv") throw new Error(`${file}: points must be .csv, .parquet or .geojson`);
  const source = ext === ".parquet" ? `read_parquet(${sqlString(file)})` : `read_csv(${sqlString(file)}, header = true)`;
  let desc: Record<string, unknown>[];
  try {
    desc = (await conn.runAndReadAll(`DESCRIBE SELECT * FROM ${source}`)).getRowObjectsJS() as Record<string, unknown>[];
  } catch (e) {
    throw new Error(`${file}: ${(e as Error).message.split("\n")[0]}`);
  }
  const cols = desc.map((r) => ({ name: String(r.column_name), type: String(r.column_type) }));
  const find = (names: string[]) => cols.find((c) => names.includes(c.name.toLowerCase()));
  const id = find(["id"]), lat = find(LAT), lon = find(LON);
  if (!id || !lat || !lon) throw new Error(`${file}: needs columns id, lat and lon (has ${cols.map((c) => c.name).join(", ")})`);
  const opp = cols.filter((c) => c !== id && c !== lat && c !== lon && NUMERIC.test(c.type));
  const sql = `SELECT CAST(${quoteIdent(id.name)} AS VARCHAR) AS id, CAST(${quoteIdent(lat.name)} AS DOUBLE) AS lat, CAST(${quoteIdent(lon.name)} AS DOUBLE) AS lon${opp.map((c, j) => `, CAST(${quoteIdent(c.name)} AS DOUBLE) AS o${j}`).join("")} FROM ${source}`;
  const rows = (await conn.runAndReadAll(sql)).getRowObjectsJS() as Record<string, unknown>[];
  const points: AnalysisPoint[] = [];
  const values = opp.map(() => new Float64Array(rows.length));
  rows.forEach((r, i) => {
    const p = { id: r.id == null ? "" : String(r.id), lat: Number(r.lat), lon: Number(r.lon) };
    checkPoint(file, i + 1, p);
    points.push(p);
    opp.forEach((_, j) => (values[j]![i] = r[`o${j}`] == null ? 0 : Number(r[`o${j}`])));
  });
  return { points: unique(file, points), opportunities: opp.map((c, j) => ({ name: c.name, values: values[j]! })) };
}

function checkPoint(file: string, row: number, p: AnalysisPoint): void {
  if (!p.id) throw new Error(`${file}: row ${row} has no id`);
  if (!(Number.isFinite(p.lat) && Math.abs(p.lat) <= 90 && Number.isFinite(p.lon) && Math.abs(p.lon) <= 180)) throw new Error(`${file}: row ${row} (id ${p.id}) has no valid lat/lon`);
}

function unique(file: string, points: AnalysisPoint[]): AnalysisPoint[] {
  const seen = new Set<string>();
  for (const p of points) {
    if (seen.has(p.id)) throw new Error(`${file}: id ${p.id} appears twice`);
    seen.add(p.id);
  }
  return points;
}

/** GeoJSON Point features: id from the feature's id or properties.id; numeric properties are opportunities. */
function geojsonPoints(file: string): PointSet {
  let doc: { type?: string; features?: { id?: unknown; geometry?: { type?: string; coordinates?: number[] }; properties?: Record<string, unknown> }[] };
  try {
    doc = JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    throw new Error(`${file}: not JSON: ${(e as Error).message}`);
  }
  if (doc.type !== "FeatureCollection" || !Array.isArray(doc.features)) throw new Error(`${file}: not a GeoJSON FeatureCollection`);
  const names: string[] = [];
  for (const f of doc.features) for (const [k, v] of Object.entries(f.properties ?? {})) if (k !== "id" && typeof v === "number" && !names.includes(k)) names.push(k);
  const values = names.map(() => new Float64Array(doc.features!.length));
  const points = doc.features.map((f, i) => {
    if (f.geometry?.type !== "Point" || !Array.isArray(f.geometry.coordinates)) throw new Error(`${file}: feature ${i + 1} is not a Point`);
    const rawId = f.id ?? f.properties?.id;
    const p = { id: rawId == null ? "" : String(rawId), lon: Number(f.geometry.coordinates[0]), lat: Number(f.geometry.coordinates[1]) };
    checkPoint(file, i + 1, p);
    names.forEach((n, j) => {
      const v = f.properties?.[n];
      values[j]![i] = typeof v === "number" ? v : 0;
    });
    return p;
  });
  return { points: unique(file, points), opportunities: names.map((name, j) => ({ name, values: values[j]! })) };
}
