/** Test preload: imports and servers on real feeds take longer than bun's 5 s default on 2 cores. */
import { setDefaultTimeout } from "bun:test";

setDefaultTimeout(120_000);
