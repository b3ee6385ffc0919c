/**
 * MCP benchmark (docs/mcp.md): latency over real HTTP on 127.0.0.1 of `tools/list` and of a skill
 * `tools/call` (the `echo-handler` skill) at `/mcp`, beside the same execution through the REST
 * execute endpoint (`POST /api/skills/executions`), interleaved in one run so that machine noise
 * hits all of them alike. Each MCP request is a standalone POST (the server is stateless), as an
 * MCP client sends it after `initialize`. Target: a skill call within 1.5× of REST.
 */
import { startBenchApi } from "./api.js";
import { fmt, interleave, median, percentile, row } from "./stats.js";

/** Global skills besides the measured one, so that tools/list has a realistic size. */
const OTHER_SKILLS = 100;
const MCP_VERSION = "2025-11-25";

/** Runs the MCP benchmark and prints its table. @returns the medians in ms. */
export async function runMcpBench(): Promise<Record<string, number>> {
  const api = await startBenchApi();
  try {
    const created = await api.post("/api/keys", { name: "bench-mcp" });
    const key: string = created.key;
    await api.post("/api/skills/install", {
      name: "bench-echo",
      version: "1.0.0",
      description: "Echoes its input",
      schema: { input: { text: { type: "string", required: true } } },
      handlerCode: "echo-handler",
      apiKeyId: created.apiKey.id,
    });
    for (let i = 0; i < OTHER_SKILLS; i++) {
      await api.post("/api/skills/install", {
        name: `bench-global-${i}`,
        version: "1.0.0",
        description: `Global skill number ${i}`,
        schema: { input: { q: "string" } },
        handlerCode: "echo-handler",
        mode: "auto",
      });
    }
    const auth = { authorization: `Bearer ${key}`, "content-type": "application/json" };
    const mcpHeaders = {
      ...auth,
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": MCP_VERSION,
    };
    const post = async (path: string, headers: Record<string, string>, body: unknown) => {
      const res = await fetch(api.url + path, {
        method: "POST",
        headers,
        body: JSON.stringify(body),
      });
      const json = await res.json();
      if (!res.ok) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
      return json;
    };
    const fns = {
      restExecute: (i: number) =>
        post("/api/skills/executions", auth, {
          skillName: "bench-echo",
          input: { text: `rest ${i}` },
        }),
      mcpToolsCall: async (i: number) => {
        const answer = await post("/mcp", mcpHeaders, {
          jsonrpc: "2.0",
          id: i,
          method: "tools/call",
          params: { name: "bench-echo_v1_0_0", arguments: { text: `mcp ${i}` } },
        });
        if (answer.result?.structuredContent?.status !== "success")
          throw new Error(`tools/call failed: ${JSON.stringify(answer)}`);
      },
      mcpToolsList: async (i: number) => {
        const answer = await post("/mcp", mcpHeaders, {
          jsonrpc: "2.0",
          id: i,
          method: "tools/list",
        });
        if (!Array.isArray(answer.result?.tools)) throw new Error("tools/list failed");
      },
    };
    await interleave(fns, 2, 20); // warm-up
    const samples = await interleave(fns, 10, 30);
    const medians = {
      restExecute: median(samples.restExecute!),
      mcpToolsCall: median(samples.mcpToolsCall!),
      mcpToolsList: median(samples.mcpToolsList!),
    };
    const tools = (await post("/mcp", mcpHeaders, { jsonrpc: "2.0", id: 0, method: "tools/list" }))
      .result.tools.length;
    console.log(
      `\nMCP over HTTP (${tools} tools listed, ${samples.restExecute!.length} samples each, interleaved)`,
    );
    row("", "median", "p95");
    for (const [name, label] of [
      ["restExecute", "REST POST /api/skills/executions (echo)"],
      ["mcpToolsCall", "MCP tools/call of the same skill"],
      ["mcpToolsList", "MCP tools/list"],
    ] as const) {
      row(label, fmt(medians[name]), fmt(percentile(samples[name]!, 95)));
    }
    const ratio = medians.mcpToolsCall / medians.restExecute;
    row("tools/call ÷ REST execute (target ≤ 1.5×)", `${ratio.toFixed(2)}×`);
    return { ...medians, ratio };
  } finally {
    api.close();
  }
}
