/**
 * Which client headers the proxy forwards upstream (docs/proxy.md#chains-with-other-gateways):
 * the provider's own family, a few general ones, those named by `PROXY_FORWARD_HEADERS` (names
 * or `*` prefixes), and never the client's credentials, whatever the rules say.
 */
import { describe, expect, it } from "vitest";
import { getFormatAdapter } from "../../workers/src/formats/index.js";
import { forwardedHeaders } from "../../workers/src/services/gateway/upstream.js";

const OPENAI = getFormatAdapter("openai-chat");
const ANTHROPIC = getFormatAdapter("anthropic");
const GEMINI = getFormatAdapter("gemini");

const client = new Headers({
  authorization: "Bearer sg_secret",
  "x-api-key": "sg_secret",
  "x-goog-api-key": "sg_secret",
  "x-upstream-api-key": "sk-provider",
  cookie: "s=1",
  "x-portkey-provider": "openai",
  "x-portkey-config": "cfg",
  "helicone-auth": "h",
  "openai-organization": "org",
  "anthropic-beta": "b",
  "x-skillgate-session": "s1",
});

const names = (h: Headers) => [...h.keys()].sort();

describe("forwardedHeaders", () => {
  it("forwards only the provider family and the general headers without rules", () => {
    expect(names(forwardedHeaders(client, OPENAI))).toEqual(["openai-organization"]);
    expect(names(forwardedHeaders(client, ANTHROPIC))).toEqual([
      "anthropic-beta",
      "anthropic-version",
    ]);
  });

  it("adds the headers named by the rules: exact names and * prefixes", () => {
    expect(names(forwardedHeaders(client, OPENAI, ["x-portkey-*", "helicone-auth"]))).toEqual([
      "helicone-auth",
      "openai-organization",
      "x-portkey-config",
      "x-portkey-provider",
    ]);
  });

  it("never forwards the client's credentials, even when a rule matches them", () => {
    const out = forwardedHeaders(client, GEMINI, ["*", "authorization", "x-api-key"]);
    for (const secret of [
      "authorization",
      "x-api-key",
      "x-goog-api-key",
      "x-upstream-api-key",
      "cookie",
    ])
      expect(out.has(secret)).toBe(false);
    expect(out.get("x-skillgate-session")).toBe("s1");
  });
});
