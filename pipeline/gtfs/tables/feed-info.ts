/**
 * feed_info.txt → feed_info: its first row (0 or 1 row).
 */
import type { TableModule } from "../build.ts";

export const feedInfo: TableModule = {
  name: "feed_info",
  file: { name: "feed_info.txt", required: false },
  columns: {
    required: [],
    optional: [
      "feed_publisher_name", "feed_publisher_url", "feed_lang", "default_lang", "feed_start_date", "feed_end_date", "feed_version",
      "feed_contact_email", "feed_contact_url",
    ],
  },
  dependsOn: [],
  async build(ctx) {
    const { conn } = ctx;
    await conn.run(`CREATE TABLE feed_info AS SELECT ${ctx.fvid}::INTEGER AS feed_version_id, feed_publisher_name, feed_publisher_url, feed_lang, default_lang,
        gtfs_date(feed_start_date) AS feed_start_date, gtfs_date(feed_end_date) AS feed_end_date, feed_version, feed_contact_email, feed_contact_url FROM raw_feed_info LIMIT 1`);
  },
};
