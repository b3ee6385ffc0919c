/**
 * `@modelcontextprotocol/server-everything` (the MCP reference server, stateful Streamable HTTP,
 * started by the test on 127.0.0.1) imported as skills: every connection Skillgate opens ends its
 * session with `DELETE` (the server's own log shows each session initialized and terminated), and
 * a tool's image result keeps its MCP content blocks — in the execution output, on Skillgate's
 * `/mcp` door (SDK client) and in each wire format's tool-result shape (interception).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MGMT_TOKEN, startTestApp, type TestApp } from "../support/app.js";
import { callTool, connectMcp } from "../support/mcp.js";

const ENTRY = join(
  process.cwd(),
  "node_modules/@modelcontextprotocol/server-everything/dist/index.js",
);

let everything: ChildProcess;
let log = "";
let url: string;
let t: TestApp;
let imageTool: string;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

async function waitFor(check: () => boolean, what: string, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}; log:\n${log}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const opened = () => [...log.matchAll(/Session initialized with ID: ([\w-]+)/g)].map((m) => m[1]!);
const closed = () =>
  [...log.matchAll(/Received session termination request for session ([\w-]+)/g)].map((m) => m[1]!);

beforeAll(async () => {
  const port = await freePort();
  everything = spawn(process.execPath, [ENTRY, "streamableHttp"], {
    env: { ...process.env, PORT: String(port) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  everything.stdout!.on("data", (d) => {
    log += String(d);
  });
  everything.stderr!.on("data", (d) => {
    log += String(d);
  });
  await waitFor(() => log.includes(`listening on port ${port}`), "server-everything to listen");
  url = `http://127.0.0.1:${port}/mcp`;
  t = await startTestApp({ env: { SKILLS_HTTP_HANDLER_ALLOWLIST: `http://127.0.0.1:${port}` } });
  const added = await t.api.post("/api/mcp-servers", { name: "everything", url });
  expect(added.status).toBe(201);
  const names = added.body.skills.map((s: { name: string }) => s.name);
  expect(names).toEqual(expect.arrayContaining(["everything__echo", "everything__get-tiny-image"]));
  const image = added.body.skills.find(
    (s: { name: string }) => s.name === "everything__get-tiny-image",
  );
  expect((await t.api.put(`/api/skills/${image.id}`, { mode: "on" })).status).toBe(200);
  const injected = await t.api.post("/api/skills/inject", {
    format: "openai-chat",
    include: ["everything__get-tiny-image"],
    request: { model: "gpt-4o", messages: [{ role: "user", content: "Show me the tiny image" }] },
  });
  imageTool = injected.body.injected.find(
    (i: { name: string }) => i.name === "everything__get-tiny-image",
  ).toolName;
}, 60_000);
afterAll(async () => {
  await t?.close();
  everything?.kill("SIGTERM");
});

describe("server-everything imported as skills", () => {
  it("ends every session it opens with DELETE: five executions leave no session open", async () => {
    const before = new Set(opened());
    for (let i = 0; i < 5; i++) {
      const res = await t.api.post("/api/skills/executions", {
        skillName: "everything__echo",
        input: { message: `hello ${i}` },
      });
      expect(res.body.execution).toMatchObject({ status: "success" });
      expect(JSON.stringify(res.body.execution.output)).toContain(`hello ${i}`);
    }
    const mine = () => opened().filter((id) => !before.has(id));
    await waitFor(() => mine().length >= 5, "five new sessions");
    await waitFor(
      () => mine().every((id) => closed().includes(id)),
      "every new session to be terminated",
    );
    expect(mine()).toHaveLength(5);
    // The listing at import time ended its session as well.
    expect(opened().every((id) => closed().includes(id))).toBe(true);
  });

  it("keeps the image block of a result in the execution output and on the /mcp door", async () => {
    const res = await t.api.post("/api/skills/executions", {
      skillName: "everything__get-tiny-image",
      input: {},
    });
    const content = res.body.execution.output.content as { type: string; mimeType?: string }[];
    expect(content.map((c) => c.type)).toContain("image");
    expect(content.find((c) => c.type === "image")?.mimeType).toBe("image/png");

    const client = await connectMcp(t.url, MGMT_TOKEN);
    try {
      const result = await callTool(client, imageTool);
      expect(result.isError).toBeFalsy();
      const image = result.content.find((c) => c.type === "image") as
        | { type: "image"; data: string; mimeType: string }
        | undefined;
      expect(image?.mimeType).toBe("image/png");
      expect(image?.data.startsWith("iVBORw0KGgo")).toBe(true);
      expect(result.content.some((c) => c.type === "text")).toBe(true);
    } finally {
      await client.close();
    }
  });

  it("carries the image in each format's tool-result shape", async () => {
    const intercept = (format: string, response: unknown) =>
      t.api.post("/api/skills/intercept", { format, injected: [imageTool], response });

    const anthropic = await intercept("anthropic", {
      id: "msg_1",
      type: "message",
      role: "assistant",
      model: "claude-sonnet-4-5",
      content: [{ type: "tool_use", id: "toolu_1", name: imageTool, input: {} }],
      stop_reason: "tool_use",
    });
    expect(anthropic.status).toBe(200);
    const block = anthropic.body.messages[0].content[0];
    expect(block.type).toBe("tool_result");
    const image = block.content.find((b: { type: string }) => b.type === "image");
    expect(image.source).toMatchObject({ type: "base64", media_type: "image/png" });
    expect(block.content.some((b: { type: string }) => b.type === "text")).toBe(true);

    const responses = await intercept("openai-responses", {
      id: "resp_1",
      object: "response",
      output: [
        { type: "function_call", id: "fc_1", call_id: "call_1", name: imageTool, arguments: "{}" },
      ],
    });
    const output = responses.body.messages[0].output as { type: string; image_url?: string }[];
    expect(output.find((o) => o.type === "input_image")?.image_url).toMatch(
      /^data:image\/png;base64,iVBORw0KGgo/,
    );

    const gemini = await intercept("gemini", {
      candidates: [
        { content: { role: "model", parts: [{ functionCall: { name: imageTool, args: {} } }] } },
      ],
    });
    const fr = gemini.body.messages[0].parts[0].functionResponse;
    expect(fr.parts[0].inlineData.mimeType).toBe("image/png");
    expect(typeof fr.response.output).toBe("string");

    const chat = await intercept("openai-chat", {
      id: "chatcmpl-1",
      object: "chat.completion",
      created: 1,
      model: "gpt-4o",
      choices: [
        {
          index: 0,
          finish_reason: "tool_calls",
          message: {
            role: "assistant",
            content: null,
            tool_calls: [
              { id: "call_1", type: "function", function: { name: imageTool, arguments: "{}" } },
            ],
          },
        },
      ],
    });
    const parts = chat.body.messages[0].content as { type: string; text: string }[];
    expect(parts.every((p) => p.type === "text")).toBe(true);
    expect(parts.map((p) => p.text).join("\n")).toMatch(/\[image image\/png, \d+ bytes\]/);
  });
});
