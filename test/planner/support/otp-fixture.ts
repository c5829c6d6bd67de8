/**
 * The dataset of the OTP1-fidelity tests (otp-fields.test.ts, core-utils.test.ts): BART 2019 (its
 * 01_shp does not reach Antioch), Caltrain 2023 (stop codes, zones, trip short names) and Google's
 * sample feed (blocks: a stay-seated transfer), imported by the real pipeline once per test process.
 */
export const OTP_FIELDS_DATASET = { name: "otp-fields", feeds: ["bart", "caltrain", "google-sample-feed"] };
/** Onestop IDs of the feeds, the prefix of their feed-scoped ids */
export const BART = "f-9q9-bayarearapidtransit";
export const CALTRAIN = "f-9q9-caltrain";
