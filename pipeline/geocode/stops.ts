/**
 * A feed version's places for the geocoder, written at feed import beside its Parquet tables: its
 * stations (location_type 1, layer `stations`) and its stops that belong to no station
 * (location_type 0 without parent_station, layer `stops`); platforms of a station are found
 * through their station. Source `gtfs`, source_id `<feed onestop id>:<stop_id>`; region and
 * country from the stops' admin-1 columns (pipeline/gtfs/tables/places.ts).
 */
import { join } from "node:path";
import type { DuckDBConnection } from "@duckdb/node-api";
import { GEOCODE_FILE } from "../schema/geocode.ts";
import { writeFileDurable } from "../store/durable.ts";
import { buildGeocodeIndex, type GeocodeBuildReport, type GeoDoc } from "./build.ts";

/** The version's stops and stations as geocoder places (from the DuckDB `stops` table of an import). */
export async function stopPlaces(conn: DuckDBConnection, feedOnestopId: string): Promise<GeoDoc[]> {
  const rows = (await conn.runAndReadAll(`
    SELECT stop_id, stop_name, stop_code, stop_lat, stop_lon, coalesce(location_type, 0), adm0_name, adm0_iso, adm1_name, adm1_iso, onestop_id
    FROM stops
    WHERE stop_lat IS NOT NULL AND stop_lon IS NOT NULL AND stop_name IS NOT NULL AND stop_name <> ''
      AND (coalesce(location_type, 0) = 1 OR (coalesce(location_type, 0) = 0 AND (parent_station IS NULL OR parent_station = '')))
    ORDER BY id`)).getRows();
  const docs: GeoDoc[] = [];
  for (const [stopId, name, code, lat, lon, type, country, countryIso, region, regionIso, onestop] of rows) {
    const props: GeoDoc["props"] = { name: String(name), source_id: `${feedOnestopId}:${String(stopId)}` };
    if (region) props.region = String(region);
    if (regionIso) props.region_a = String(regionIso).replace(/^[A-Z]{2}-/, "");
    if (country) props.country = String(country);
    if (countryIso) props.country_code = String(countryIso);
    props.addendum = { gtfs: { feed_onestop_id: feedOnestopId, stop_id: String(stopId), ...(code ? { stop_code: String(code) } : {}), ...(onestop ? { onestop_id: String(onestop) } : {}) } };
    docs.push({ layer: Number(type) === 1 ? "stations" : "stops", source: "gtfs", lon: Number(lon), lat: Number(lat), props, ...(code ? { otherNames: [String(code)] } : {}) });
  }
  return docs;
}

/** Writes the version's geocoder index into its folder (durably); returns what it holds. */
export async function writeStopsGeocode(conn: DuckDBConnection, versionDir: string, feedOnestopId: string): Promise<GeocodeBuildReport> {
  const { bytes, report } = buildGeocodeIndex(await stopPlaces(conn, feedOnestopId));
  writeFileDurable(join(versionDir, GEOCODE_FILE), bytes);
  return report;
}
