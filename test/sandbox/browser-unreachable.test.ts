/**
 * A `browser` page whose host name does not resolve is reported as a resolution failure
 * (`dns_failed`, "Could not resolve …"), not as a refusal by the egress rules, through the API's
 * handler, the signed client and a real sandbox host (docs/outbound.md#failures,
 * docs/sandbox.md#the-browser-builtin). The host checks the page URL before starting a container,
 * so these cases need the Docker engine but not the browser image. `.invalid` is reserved
 * (RFC 2606, RFC 6761): it never resolves.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseConfig } from "../../workers/src/config.js";
import {
  type BrowserOutput,
  createBrowserHandlers,
} from "../../workers/src/skills/builtins/browser.js";
import type { BuiltinEnv } from "../../workers/src/skills/builtins/types.js";
import { expectFailure, fakeContext, fakeSkill } from "../support/fakes/handler-context.js";
import { requireDocker, SKIP_DOCKER, startTestHost, type TestHost } from "./helpers.js";

describe.skipIf(SKIP_DOCKER)("browser page that cannot be resolved", () => {
  let t: TestHost;
  let browse: (input: unknown) => Promise<unknown>;

  beforeAll(async () => {
    await requireDocker();
    t = await startTestHost("browser-unreachable");
    const deps = { config: parseConfig({}), sandbox: t.client } as unknown as BuiltinEnv;
    const handler = createBrowserHandlers(deps).browser!;
    const skill = fakeSkill({ id: "builtin-browser", name: "browser", policy: "manual" });
    browse = (input) => handler(input, fakeContext(null, { skill, timeoutMs: 30_000 }));
  }, 60_000);

  afterAll(async () => {
    if (!t) return;
    await t.close();
    expect(await t.containers()).toEqual([]);
  });

  it("ends with dns_failed and a resolution message, blocks nothing, starts no container", async () => {
    const err = await expectFailure(browse({ url: "https://no-such-host.invalid/page" }));
    expect(err.status).toBe("error");
    expect(err.code).toBe("dns_failed");
    expect(err.message).toMatch(
      /^Could not resolve no-such-host\.invalid: DNS lookup failed \((ENOTFOUND|EAI_AGAIN|EAI_NONAME|EAI_FAIL)\)$/,
    );
    expect(err.message).not.toMatch(/refused/i);
    const output = err.output as BrowserOutput;
    expect(output.blocked).toEqual([]);
    expect(output.durationMs).toBe(0);
    expect(await t.containers()).toEqual([]);
  }, 30_000);

  it("still reports a private page address as a refusal by the egress rules", async () => {
    const err = await expectFailure(browse({ url: "http://10.0.0.1/" }));
    expect(err.code).toBe("outbound_blocked");
    expect(err.message).toBe(
      "Outbound request refused: 10.0.0.1 is not a public unicast address (private)",
    );
    expect((err.output as BrowserOutput).blocked).toEqual([
      { target: "http://10.0.0.1/", reason: "10.0.0.1 is not a public unicast address (private)" },
    ]);
  }, 30_000);
});
