/**
 * The street gateway's bounds on the work one request may ask of the embedded engine, beyond the
 * spec's per-field limits (schemas/) and the engine's own service limits (embedded.ts
 * serviceLimits). Each is checked before the engine is called when the size of the answer can be
 * known from the request (refused with a Valhalla-form 400); MAX_ANSWER_BYTES catches what cannot.
 * Issue 31: a 1.5 MB locate of 40,000 locations answered 178 MB in 6.8 s, and a 190-byte height
 * with resample_distance 0.0045 answered 35 MB, each holding an engine slot all along.
 * docs/pending/engine.md documents the values.
 */

/**
 * Locations of one locate request. The engine has no limit of its own for locate; 100 is five
 * times a route's (auto max_locations 20) and twice a pedestrian route's (50); a verbose answer is
 * about 4.5 KB per location (issue 31's figures), so at most about 0.5 MB.
 */
export const MAX_LOCATE_LOCATIONS = 100;

/**
 * Heights one request may ask for, counted before the engine resamples (the shape's length over
 * resample_distance, plus its points; the engine resamples before it checks its own skadi.max_shape,
 * which is set to this value too). An answer is at most about 50 bytes per height (with `range`
 * and the resampled shape), so 100,000 heights stay near 5 MB; the engine's default (750,000)
 * allowed the 35 MB answers.
 */
export const MAX_HEIGHT_POINTS = 100_000;

/**
 * Cells (sources × targets) of one matrix: Valhalla's own max_matrix_location_pairs (2,500 for
 * every costing in the configuration the pipeline writes), checked by the gateway before the call
 * so that a bigger one is refused at once with the reason rather than after the locations are
 * searched.
 */
export const MAX_MATRIX_CELLS = 2500;

/**
 * Longest answer relayed (characters of the engine's JSON, which is ASCII: bytes). What cannot be
 * predicted from the request (an expansion's edges, a trace's attributes) is refused with a
 * Valhalla-form 400 once the engine has made it, rather than sent: 16 MB is three times the
 * largest predictable answer above.
 */
export const MAX_ANSWER_BYTES = 16_000_000;
