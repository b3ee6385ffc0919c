/**
 * Custom-skill benchmark (docs/custom-skills.md): the latency Skillgate adds to an HTTP-handler
 * skill over calling its endpoint directly, and to a code skill over `eval_code` with the same
 * program, each pair measured interleaved in one run (median wall time, end to end over HTTP).
 * The code part needs Docker and the local images (`npm run sandbox:images`).
 * Run: `npm run bench -- custom`. Environment: BENCH_CUSTOM_ROUNDS (default 15).
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { startBenchApi } from "./api.js";
import { startHost } from "./sandbox.js";
import { fmt, interleave, median, row } from "./stats.js";

const PROGRAM = 'import json\nprint(json.dumps({"answer": 6 * 7}))';
/** The same program for the code skill: reads its input from stdin first. */
const SKILL_PROGRAM = `import json, sys\njson.load(sys.stdin)\n${PROGRAM}`;

/** Medians in ms. */
export interface CustomBenchResult {
  medianMs: { endpointDirect: number; httpSkill: number; evalCode: number; codeSkill: number };
  addedMs: { httpSkill: number; codeSkillVsEvalCode: number };
  rounds: number;
}

async function startEndpoint(): Promise<{ url: string; close(): void }> {
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ echoed: JSON.parse(body || "null") }));
    });
  });
  server.listen(0, "127.0.0.1");
  await new Promise<void>((r) => server.once("listening", () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => server.close(),
  };
}

/**
 * Runs the benchmark and prints its table.
 * @param rounds interleaved rounds.
 */
export async function runCustomBench(
  rounds = Number(process.env.BENCH_CUSTOM_ROUNDS ?? 15),
): Promise<CustomBenchResult> {
  const endpoint = await startEndpoint();
  const sandbox = await startHost("custom", { SANDBOX_POOL_SIZE: "0" });
  const api = await startBenchApi(
    { SKILLS_HTTP_HANDLER_ALLOWLIST: endpoint.url },
    { sandbox: sandbox.client },
  );
  try {
    const schema = { input: { type: "object" } };
    await api.post("/api/skills/install", {
      name: "bench-http",
      version: "1.0.0",
      schema,
      handler: { type: "http", url: `${endpoint.url}/hook` },
    });
    await api.post("/api/skills/install", {
      name: "bench-code",
      version: "1.0.0",
      schema,
      handler: { type: "code", language: "python", code: SKILL_PROGRAM },
    });
    const input = { text: "hello" };
    const direct = async () => {
      const res = await fetch(`${endpoint.url}/hook`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(input),
      });
      await res.json();
    };
    const run = async (skillName: string, body: unknown, check: (output: unknown) => boolean) => {
      const { execution } = await api.post("/api/skills/executions", { skillName, input: body });
      if (execution.status !== "success" || !check(execution.output))
        throw new Error(`${skillName} failed: ${JSON.stringify(execution)}`);
    };
    const fns = {
      endpointDirect: direct,
      httpSkill: () => run("bench-http", input, (o) => JSON.stringify(o).includes("hello")),
      evalCode: () =>
        run("eval_code", { language: "python", code: PROGRAM }, (o) =>
          String((o as { stdout?: string }).stdout).includes("42"),
        ),
      codeSkill: () => run("bench-code", input, (o) => (o as { answer?: number }).answer === 42),
    };
    for (const fn of Object.values(fns)) await fn();
    const samples = await interleave(fns, rounds, 1);
    const m = {
      endpointDirect: median(samples.endpointDirect!),
      httpSkill: median(samples.httpSkill!),
      evalCode: median(samples.evalCode!),
      codeSkill: median(samples.codeSkill!),
    };
    const result: CustomBenchResult = {
      medianMs: m,
      addedMs: {
        httpSkill: m.httpSkill - m.endpointDirect,
        codeSkillVsEvalCode: m.codeSkill - m.evalCode,
      },
      rounds,
    };
    console.log(`\nCustom skills: ${rounds} interleaved rounds (median wall time, end to end)`);
    row("HTTP endpoint called directly", fmt(m.endpointDirect));
    row(
      "HTTP-handler skill through the API",
      fmt(m.httpSkill),
      `${result.addedMs.httpSkill >= 0 ? "+" : "-"}${fmt(Math.abs(result.addedMs.httpSkill))}`,
    );
    row("eval_code (python) through the API", fmt(m.evalCode));
    row(
      "code skill (same python) through the API",
      fmt(m.codeSkill),
      `${result.addedMs.codeSkillVsEvalCode >= 0 ? "+" : "-"}${fmt(Math.abs(result.addedMs.codeSkillVsEvalCode))}`,
    );
    return result;
  } finally {
    api.close();
    endpoint.close();
    await sandbox.host.close();
  }
}
