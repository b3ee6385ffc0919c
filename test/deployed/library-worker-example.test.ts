/**
 * The library's Worker example (examples/worker-handlers/worker.ts, built on `skillgate/worker`)
 * bundled and started by `wrangler dev`: its in-process handler runs a skill installed over the
 * REST API.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DeployedWorker, startDeployedWorker } from "./wrangler-dev.js";

let worker: DeployedWorker;

beforeAll(async () => {
  worker = await startDeployedWorker({}, "examples/worker-handlers/worker.ts");
});
afterAll(async () => {
  await worker?.close();
});

async function post(path: string, body: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(worker.url + path, {
    method: "POST",
    headers: { authorization: `Bearer ${worker.mgmtToken}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

describe("the Worker example built on the library", () => {
  it("runs a skill through the handler the example registers", async () => {
    const installed = await post("/api/skills/install", {
      name: "reverse-text",
      version: "1.0.0",
      schema: {
        input: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
      },
      handlerCode: "reverse-text",
    });
    expect(installed.status).toBe(201);
    const run = await post("/api/skills/executions", {
      skillName: "reverse-text",
      input: { text: "worker" },
    });
    expect(run.body.execution).toMatchObject({ status: "success", output: { text: "rekrow" } });
  });
});
