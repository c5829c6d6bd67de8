/** Test preload: a generous default timeout (imports on real feeds, 2 cores) and temp-dir cleanup. */
import { afterAll, setDefaultTimeout } from "bun:test";
import { removeTempDirs } from "./support/dataset.ts";

setDefaultTimeout(120_000);
afterAll(removeTempDirs);
