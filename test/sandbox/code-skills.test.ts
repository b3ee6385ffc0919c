/**
 * Code skills run on a real sandbox host with the local images: the input arrives as JSON on
 * stdin, stdout is the output, and each execution row records the program's SHA-256.
 */
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.js";
import { requireDocker, SKIP_DOCKER, startTestHost, type TestHost } from "./helpers.js";

const PY_DOUBLE = [
  "import json, sys",
  "data = json.load(sys.stdin)",
  'print(json.dumps({"doubled": data["n"] * 2, "lang": "python"}))',
].join("\n");

const NODE_DOUBLE = [
  'const fs = require("node:fs");',
  "const data = JSON.parse(fs.readFileSync(0, 'utf8'));",
  "console.log(JSON.stringify({ doubled: data.n * 2, lang: 'node' }));",
].join("\n");

const NODE_STREAM = [
  "let text = '';",
  "process.stdin.setEncoding('utf8');",
  "process.stdin.on('data', (c) => { text += c; });",
  "process.stdin.on('end', () => { const d = JSON.parse(text); process.stdout.write('hello ' + d.name); });",
].join("\n");

const schema = { input: { type: "object" } };

describe.skipIf(SKIP_DOCKER)("code skills on the sandbox host", () => {
  let host: TestHost;
  let t: TestApp;
  beforeAll(async () => {
    await requireDocker();
    host = await startTestHost("code-skills");
    t = await startTestApp({ deps: { sandbox: host.client } });
  });
  afterAll(async () => {
    await t?.close();
    await host?.close();
  });

  async function install(name: string, handler: Record<string, unknown>) {
    const res = await t.api.post("/api/skills/install", {
      name,
      version: "1.0.0",
      schema,
      handler: { type: "code", ...handler },
    });
    expect(res.status).toBe(201);
    return res.body.skill;
  }

  const run = (name: string, input: unknown) =>
    t.api.post("/api/skills/executions", { skillName: name, input });

  it("python: JSON in on stdin, JSON out; the code and its hash are shown and recorded", async () => {
    const skill = await install("py-double", { language: "python", code: PY_DOUBLE });
    const sha = createHash("sha256").update(PY_DOUBLE).digest("hex");
    expect(skill).toMatchObject({
      policy: "auto",
      handlerCode: "code-handler",
      handler: { type: "code", language: "python", code: PY_DOUBLE, sha256: sha },
    });
    const res = await run("py-double", { n: 21 });
    expect(res.body.execution).toMatchObject({
      status: "success",
      output: { doubled: 42, lang: "python" },
      codeSha256: sha,
    });
    const row = await t.api.get(`/api/skills/executions/${res.body.execution.id}`);
    expect(row.body.execution.codeSha256).toBe(sha);
  });

  it("node: JSON in through fs.readFileSync(0) and through process.stdin events", async () => {
    await install("node-double", { language: "node", code: NODE_DOUBLE });
    const res = await run("node-double", { n: 5 });
    expect(res.body.execution).toMatchObject({
      status: "success",
      output: { doubled: 10, lang: "node" },
    });
    await install("node-stream", { language: "node", code: NODE_STREAM });
    const text = await run("node-stream", { name: "sandbox" });
    // Not JSON: the text is the output.
    expect(text.body.execution).toMatchObject({ status: "success", output: "hello sandbox" });
  });

  it("an error exit is an error with stdout, stderr and the exit code as output", async () => {
    await install("py-fail", {
      language: "python",
      code: "import sys\nprint('partial')\nsys.stderr.write('broken\\n')\nsys.exit(4)",
    });
    const res = await run("py-fail", {});
    expect(res.body.execution).toMatchObject({ status: "error", errorCode: "nonzero_exit" });
    expect(res.body.execution.output).toMatchObject({
      exitCode: 4,
      stdout: "partial\n",
      stderr: "broken\n",
    });
    await install("node-throw", { language: "node", code: "throw new Error('no way')" });
    const thrown = await run("node-throw", {});
    expect(thrown.body.execution.status).toBe("error");
    expect(thrown.body.execution.output.stderr).toContain("no way");
  });

  it("stops a program at the skill's time limit", async () => {
    await install("node-spin", { language: "node", code: "for (;;) {}", timeoutMs: 1500 });
    const res = await run("node-spin", {});
    expect(res.body.execution).toMatchObject({
      status: "timeout",
      errorMessage: "Skill execution timed out after 1500 ms",
    });
  });

  it("kills a program over the skill's memory limit", async () => {
    await install("py-hog", {
      language: "python",
      code: "blocks = []\nwhile True:\n    blocks.append(bytearray(8 * 1024 * 1024))",
      memoryMb: 48,
    });
    const res = await run("py-hog", {});
    expect(res.body.execution).toMatchObject({ status: "error", errorCode: "oom_killed" });
  });

  it("refuses a time limit over the host's maximum at install", async () => {
    const res = await t.api.post("/api/skills/install", {
      name: "py-long",
      version: "1.0.0",
      schema,
      handler: { type: "code", language: "python", code: "print(1)", timeoutMs: 120_000 },
    });
    expect(res.status).toBe(400);
  });
});
