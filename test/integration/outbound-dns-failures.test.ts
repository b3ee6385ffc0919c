/**
 * A name that does not resolve is not a refusal by policy (docs/outbound.md#failures): the
 * `http_request` builtin ends `dns_failed` saying the DNS lookup failed, an MCP server whose host
 * does not resolve answers 502 `mcp_unreachable` (not 400 `url_not_allowed`), while a URL the
 * guard refuses by policy still reads "Outbound request refused".
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.js";

let t: TestApp;
beforeEach(async () => {
  t = await startTestApp();
});
afterEach(async () => {
  await t.close();
});

describe("DNS failures are not refusals", () => {
  it("http_request to a name that does not resolve ends dns_failed; a private address is still refused", async () => {
    const res = await t.api.post("/api/skills/executions", {
      skillName: "http_request",
      input: { url: "http://api.no-such-host.invalid/data" },
    });
    const execution = res.body.execution ?? res.body.error?.details?.execution;
    expect(execution.status).toBe("error");
    expect(execution.errorCode).toBe("dns_failed");
    expect(execution.errorMessage).toBe(
      "Could not resolve api.no-such-host.invalid: DNS lookup failed (ENOTFOUND)",
    );
    expect(execution.errorMessage).not.toMatch(/refused/i);
    // A refusal by policy still reads as one.
    const refused = await t.api.post("/api/skills/executions", {
      skillName: "http_request",
      input: { url: "http://10.0.0.1/data" },
    });
    const blocked = refused.body.execution ?? refused.body.error?.details?.execution;
    expect(blocked.errorCode).toBe("outbound_blocked");
    expect(blocked.errorMessage).toMatch(/^Outbound request refused: 10\.0\.0\.1 /);
  });

  it("an MCP server whose host does not resolve answers 502 mcp_unreachable", async () => {
    const res = await t.api.post("/api/mcp-servers", {
      name: "offline",
      url: "https://mcp.no-such-host.invalid/mcp",
    });
    expect(res.status).toBe(502);
    expect(res.body.error.code).toBe("mcp_unreachable");
    expect(res.body.error.message).toContain("DNS lookup failed");
    expect((await t.api.get("/api/mcp-servers")).body.data).toEqual([]);
  });
});
