/**
 * Scoped keys at the proxy endpoints: a key without the `inject` scope is refused with 403 in the
 * provider's own error shape (each SDK raises its permission error) before any upstream call; a
 * key holding `inject` goes through.
 */
import Anthropic from "@anthropic-ai/sdk";
import type { ApiError } from "@google/genai";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ask } from "../support/proxy-clients.js";
import { FORMATS, type Format, formatOf, textTurn } from "../support/proxy-fixtures.js";
import { type ProxyStand, startProxyStand } from "../support/proxy-stand.js";

let stand: ProxyStand;
let readOnly: string;
let injectOnly: string;
beforeAll(async () => {
  stand = await startProxyStand();
  const create = async (name: string, scopes: string[]) => {
    const res = await stand.app.api.post("/api/keys", { name, scopes });
    expect(res.status).toBe(201);
    return res.body.key as string;
  };
  readOnly = await create("proxy-read-only", ["read"]);
  injectOnly = await create("proxy-inject-only", ["inject"]);
});
afterAll(async () => {
  await stand.close();
});

describe.each(FORMATS)("%s", (format: Format) => {
  it("refuses a key without the inject scope with 403, calling no upstream", async () => {
    const before = stand.requests().length;
    const err = await ask(format, stand.app.url, readOnly, "hi").catch((e: unknown) => e);
    if (format === "anthropic") expect(err).toBeInstanceOf(Anthropic.PermissionDeniedError);
    else if (format === "gemini") expect((err as ApiError).status).toBe(403);
    else expect(err).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect(String((err as Error).message)).toContain("inject");
    expect(stand.requests().length).toBe(before);
  });

  it("lets a key holding only the inject scope through", async () => {
    stand.script((req, _b, n) => ({
      kind: "json",
      body: textTurn(formatOf(req.url.split("?")[0]!), "scoped hello", n),
    }));
    const before = stand.requests().length;
    const answer = await ask(format, stand.app.url, injectOnly, "hi");
    expect(answer.text).toBe("scoped hello");
    expect(stand.requests().length).toBe(before + 1);
  });
});
