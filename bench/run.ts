/**
 * `npm run bench`: every benchmark in one run, each printing medians (and p99 where it matters)
 * beside its reference figure measured side by side: registry and REST listing,
 * injection and interception, execution rows (interception with and without them, 200
 * concurrent REST executions, round trips to a libSQL server), builtins, sandbox end to end and custom skills (both
 * need Docker and the local images), the gateway proxy's added time per round and to first byte,
 * dashboard pages with 1,000 skills and 100,000 executions, retention (a 100,000-row delete
 * beside running executions), MCP
 * `tools/list` and `tools/call` beside the REST execute endpoint, and selection quality per
 * ranker, and `/api/health` while hostile inputs are in flight (availability). Pick some with arguments: `npm run bench -- registry sandbox`; selection sets are
 * given by path: `npm run bench -- selection path/to/set.json`.
 */
import { runAvailabilityBench } from "./availability.js";
import { runBuiltinsBench } from "./builtins.js";
import { runCliBench } from "./cli.js";
import { runCustomBench } from "./custom.js";
import { runDashboardBench } from "./dashboard.js";
import { runExecutionsBench } from "./executions.js";
import { runInjectionBench } from "./injection.js";
import { runMcpBench } from "./mcp.js";
import { runProxyBench } from "./proxy.js";
import { runRegistryBench } from "./registry.js";
import { runRetentionBench } from "./retention.js";
import { runSandboxBench } from "./sandbox.js";
import { runSelectionBench } from "./selection.js";

const BENCHES: Record<string, () => Promise<unknown>> = {
  registry: () => runRegistryBench(),
  injection: () => runInjectionBench(),
  executions: () => runExecutionsBench(),
  builtins: () => runBuiltinsBench(),
  sandbox: () => runSandboxBench(),
  proxy: () => runProxyBench(),
  dashboard: () => runDashboardBench(),
  custom: () => runCustomBench(),
  retention: () => runRetentionBench(),
  mcp: () => runMcpBench(),
  selection: () => runSelectionBench(setPaths),
  availability: () => runAvailabilityBench(),
  cli: () => runCliBench(),
};

/** Selection sets given by path (arguments ending in `.json`), for the selection benchmark. */
const setPaths = process.argv.slice(2).filter((a) => a.endsWith(".json"));

async function main(): Promise<void> {
  const picked = process.argv.slice(2).filter((a) => !a.endsWith(".json"));
  for (const name of picked) {
    if (!(name in BENCHES))
      throw new Error(`unknown benchmark "${name}" (have: ${Object.keys(BENCHES).join(", ")})`);
  }
  const names = picked.length ? picked : Object.keys(BENCHES);
  console.log(`Skillgate benchmarks on Node ${process.version}: ${names.join(", ")}`);
  for (const name of names) await BENCHES[name]!();
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
