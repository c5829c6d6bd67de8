/** The fuzzer's shared shapes: a request it sends, the keys it authenticates with, the ids it draws from. */

export interface FuzzRequest {
  /** what made it: the operation ("GET /api/v2/rest/stops") or the hostile case */
  readonly label: string;
  readonly method: string;
  /** path, percent-encoded as sent */
  readonly path: string;
  /** query string without "?" (encoded), "" for none */
  readonly query: string;
  readonly headers: Record<string, string>;
  readonly body?: string | Uint8Array;
}

/** Real keys of the dataset, so requests reach past "not found". */
export interface KeyPools {
  routeKeys: string[];
  stopKeys: string[];
  tripIds: string[];
  feedOnestopIds: string[];
  versionSha1s: string[];
  routeOnestopIds: string[];
  stopIds: string[];
  tripGtfsIds: string[];
}

export interface Keys {
  valid: string;
  /** an account with a tiny rate limit: its requests are soon refused (429) */
  limited: string;
}
