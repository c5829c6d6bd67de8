/**
 * What the catalog service answers with (no HTTP): documents, either all of them (bounded pages)
 * or batches pulled while the answer is written (bulk geojsonl, bodies with shapes), plus the
 * cursor of the next page. routes.ts renders a Listing as json, geojson or geojsonl (render.ts).
 */

/**
 * One record (Stop, Trip) as JSON text: the catalog assembles its documents from pieces DuckDB
 * rendered at load, so they stay text rather than objects. render.ts closes the object for json
 * or wraps it in a GeoJSON Feature.
 */
export interface Item {
  /** the record's JSON object without its closing brace: every field but a top-level geometry */
  props: string;
  /** its GeoJSON geometry ("null" when none) */
  geometry: string;
  /** the json format ends the object with `"geometry"` (stops); trips carry theirs inside `shape` */
  geometryInJson: boolean;
}

export interface Listing {
  /** every document, or batches of them (the iterator holds the dataset until it ends or is returned) */
  items: Item[] | AsyncIterableIterator<Item[]>;
  /** cursor of the next page (meta.after), or null on the last page and for lookups by key */
  after: number | null;
}

/**
 * The batches of `make(end)`, a generator that calls `end` when it finishes (in its `finally`:
 * ended, failed or returned); `end` also runs when the iterator is returned before its first batch
 * (a generator's body, and so its `finally`, only runs once started). `release` runs exactly once.
 */
export function holding<T>(make: (end: () => void) => AsyncGenerator<T>, release: () => void): AsyncIterableIterator<T> {
  let open = true;
  const end = () => {
    if (open) {
      open = false;
      release();
    }
  };
  const source = make(end);
  return {
    next: () => source.next(),
    async return(value?: unknown) {
      try {
        return await source.return(value as never);
      } finally {
        end();
      }
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}

/**
 * Documents rendered in batches of `size` as the response stream pulls them (large bodies, bulk
 * export); `end` runs when the stream finishes, however it ends.
 */
export async function* renderedInBatches<T>(refs: Iterable<T>, render: (ref: T) => Item, size: number, end?: () => void): AsyncGenerator<Item[]> {
  try {
    let items: Item[] = [];
    for (const r of refs) {
      items.push(render(r));
      if (items.length === size) {
        yield items;
        items = [];
      }
    }
    if (items.length) yield items;
  } finally {
    end?.();
  }
}
