/**
 * Upstreams that do not answer: an unreachable upstream answers 502 and one that stays silent
 * past the time budget answers 504, each in the provider's own error shape, so each SDK raises
 * its own error type; a client that gives up closes the upstream request.
 */
import { createServer } from "node:net";
import Anthropic from "@anthropic-ai/sdk";
import type { ApiError } from "@google/genai";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ask, askStream } from "../support/proxy-clients.js";
import { FORMATS, type Format } from "../support/proxy-fixtures.js";
import { type ProxyStand, startProxyStand } from "../support/proxy-stand.js";

/** A port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

let silent: ProxyStand;
let unreachable: ProxyStand;
/** Default time budget (120 s): only the client's abort can end a hanging call. */
let patient: ProxyStand;
beforeAll(async () => {
  silent = await startProxyStand({ PROXY_TIME_BUDGET_MS: "400" });
  patient = await startProxyStand();
  const dead = `http://127.0.0.1:${await closedPort()}`;
  unreachable = await startProxyStand({
    UPSTREAM_OPENAI_BASE_URL: `${dead}/v1`,
    UPSTREAM_ANTHROPIC_BASE_URL: dead,
    UPSTREAM_GEMINI_BASE_URL: dead,
  });
});
afterAll(async () => {
  await silent.close();
  await unreachable.close();
  await patient.close();
});

function expectStatus(format: Format, err: unknown, status: number) {
  if (format === "anthropic") expect(err).toBeInstanceOf(Anthropic.APIError);
  else if (format === "gemini") {
    expect((err as ApiError).status).toBe(status);
    expect((err as ApiError).message).toContain(
      status === 504 ? "DEADLINE_EXCEEDED" : "UNAVAILABLE",
    );
    return;
  } else expect(err).toBeInstanceOf(OpenAI.APIError);
  expect((err as { status: number }).status).toBe(status);
}

describe.each(FORMATS)("%s", (format: Format) => {
  it("a client that gives up closes the upstream request (non-streaming)", async () => {
    patient.script(() => ({ kind: "hang" }));
    const before = patient.llm.aborted();
    const ac = new AbortController();
    const pending = ask(format, patient.app.url, patient.key.key, "hi", { signal: ac.signal });
    await expect.poll(() => patient.requests().length, { timeout: 5000 }).toBe(1);
    ac.abort();
    await expect(pending).rejects.toBeDefined();
    await expect.poll(() => patient.llm.aborted(), { timeout: 1500 }).toBeGreaterThan(before);
    expect(patient.requests()).toHaveLength(1);
  });

  it("an unreachable upstream answers 502 in the provider's shape", async () => {
    const err = await ask(format, unreachable.app.url, unreachable.key.key, "hi").catch(
      (e: unknown) => e,
    );
    expectStatus(format, err, 502);
  });

  it("a silent upstream answers 504 once the time budget is spent", async () => {
    silent.script(() => ({ kind: "hang" }));
    const err = await ask(format, silent.app.url, silent.key.key, "hi").catch((e: unknown) => e);
    expectStatus(format, err, 504);
    const streamed = await askStream(format, silent.app.url, silent.key.key, "hi").catch(
      (e: unknown) => e,
    );
    expectStatus(format, streamed, 504);
  });
});
