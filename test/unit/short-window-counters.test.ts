/**
 * The in-process short-window counters (the Node entry's) keep the same contract as the Worker's
 * per-key Durable Object (test/workerd/key-limiter.test.ts runs the same suite there): two
 * callers of one process share one set of counters.
 */
import { InProcessWindows } from "../../workers/src/skills/execution/limit-counters.js";
import { shortWindowContract } from "../support/short-window-contract.js";

const shared = new InProcessWindows();
shortWindowContract("in process (Node)", () => shared);
