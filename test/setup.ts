/** Test preload: a generous default timeout (imports on real feeds, 2 cores), one server process per server, temp-dir cleanup. */
import { afterAll, setDefaultTimeout } from "bun:test";
import { removeTempDirs } from "./support/dataset.ts";

setDefaultTimeout(120_000);
// `interchange serve` defaults to one worker per core (--workers): every server a test starts, in
// its process or as a child (children inherit this environment), is one process unless it asks
// for more (test/ops/workers.test.ts passes --workers 2, which wins over the variable)
process.env.INTERCHANGE_WORKERS ??= "1";
afterAll(removeTempDirs);
