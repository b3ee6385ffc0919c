/**
 * The A2A agent inside workerd through the Worker entry: the card, the official SDK client sending
 * `list-capabilities` and `memory_aware_routing`, protocol 0.3 `message/send` and `tasks/get`, and
 * the task stored in the database for the calling key.
 */

import { exports } from "cloudflare:workers";
import { TaskState } from "@a2a-js/sdk";
import { describe, expect, it } from "vitest";
import {
  artifactData,
  connectA2A,
  legacyMessage,
  rawRpc,
  sendForTask,
  skillMessage,
} from "../support/a2a.js";
import { createKey, directDb, ORIGIN } from "./support.js";

const workerFetch = ((input: RequestInfo | URL, init?: RequestInit) =>
  exports.default.fetch(new Request(input, init))) as typeof fetch;

describe("A2A in workerd", () => {
  it("serves the card and runs skills for the SDK client and protocol 0.3 calls", async () => {
    const key = await createKey("workerd-a2a");
    const card = await (await workerFetch(`${ORIGIN}/.well-known/agent-card.json`)).json();
    expect(card.supportedInterfaces[0].url).toBe(`${ORIGIN}/a2a`);
    expect(card.skills.map((s: { id: string }) => s.id)).toContain("memory_aware_routing");

    const client = await connectA2A(ORIGIN, key.key, workerFetch);
    const caps = await sendForTask(client, skillMessage("list-capabilities"));
    expect(caps.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(artifactData(caps).formats).toContain("gemini");
    const routing = await sendForTask(client, skillMessage("memory_aware_routing"));
    expect(artifactData(routing).recommendation).toBeNull();

    const sent = await rawRpc(ORIGIN, key.key, "message/send", legacyMessage("list-capabilities"), {
      fetch: workerFetch,
    });
    expect(sent.body.result.status.state).toBe("completed");
    const got = await rawRpc(
      ORIGIN,
      key.key,
      "tasks/get",
      { id: sent.body.result.id },
      {
        fetch: workerFetch,
      },
    );
    expect(got.body.result.id).toBe(sent.body.result.id);
    const rows = await directDb().execute({
      sql: "select state, api_key_id from a2a_tasks where id = ?",
      args: [sent.body.result.id],
    });
    expect(rows.rows.map((r) => [r.state, r.api_key_id])).toEqual([["completed", key.id]]);
  });
});
