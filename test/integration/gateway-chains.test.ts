/**
 * Skillgate chained with a real gateway (docs/proxy.md#chains-with-other-gateways): the Portkey AI
 * gateway (npm `@portkey-ai/gateway`) runs locally, and the official SDKs hold a two-round
 * conversation, JSON and streamed, in all four wire formats, with Skillgate running the owned call
 * in between:
 * - in front: the client talks to Portkey, whose custom host (`x-portkey-custom-host`) is
 *   Skillgate; Skillgate's upstream is the scripted provider;
 * - behind: the client talks to Skillgate, whose upstream base URLs are Portkey; the client's
 *   `x-portkey-*` headers reach Portkey because `PROXY_FORWARD_HEADERS` names them, and Portkey's
 *   custom host is the scripted provider.
 * Gemini goes through Portkey's provider-agnostic `/v1/*` route (its native paths start
 * `/v1beta`), so the Gemini SDK uses API version `v1` when Portkey is in front.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Portkey, startPortkey } from "../support/portkey.js";
import { type AskOptions, ask, askStream } from "../support/proxy-clients.js";
import {
  FORMATS,
  type Format,
  formatOf,
  textTurn,
  toolResults,
  toolTurn,
} from "../support/proxy-fixtures.js";
import { sseOf } from "../support/proxy-sse.js";
import { type ProxyStand, startProxyStand, tempOf, WEATHER } from "../support/proxy-stand.js";

/** Portkey's provider name per format. */
const PROVIDER: Record<Format, string> = {
  "openai-chat": "openai",
  "openai-responses": "openai",
  anthropic: "anthropic",
  gemini: "google",
};

let portkey: Portkey;
/** Skillgate as Portkey's custom host. */
let front: ProxyStand;
/** Skillgate with Portkey as its upstream. */
let behind: ProxyStand;

beforeAll(async () => {
  portkey = await startPortkey();
  front = await startProxyStand();
  behind = await startProxyStand({
    UPSTREAM_OPENAI_BASE_URL: `${portkey.url}/v1`,
    UPSTREAM_ANTHROPIC_BASE_URL: portkey.url,
    // Skillgate appends /v1beta/models/…; Portkey's /v1/* route forwards the rest of the path.
    UPSTREAM_GEMINI_BASE_URL: `${portkey.url}/v1`,
    PROXY_FORWARD_HEADERS: "x-portkey-*",
  });
}, 60_000);

afterAll(async () => {
  await Promise.all([front?.close(), behind?.close()]);
  await portkey?.close();
});

/** One owned weather call, then a final text that counts the results the model was given. */
function script(stand: ProxyStand): void {
  stand.script((req, body, n) => {
    const f = formatOf(req.url.split("?")[0]!);
    const results = toolResults(f, body);
    const turn =
      results.length === 0
        ? toolTurn(f, [{ id: "c1", name: WEATHER, args: { city: "Paris" } }], n)
        : textTurn(f, `Paris: ${results[0]!.text}`, n);
    const streamed = body.stream === true || req.url.includes(":streamGenerateContent");
    return streamed ? { kind: "sse", events: sseOf(f, turn) } : { kind: "json", body: turn };
  });
}

const QUESTION = "Weather in Paris?";

async function run(
  format: Format,
  stream: boolean,
  base: string,
  key: string,
  opts: AskOptions,
): Promise<string> {
  const answer = stream
    ? await askStream(format, base, key, QUESTION, opts)
    : await ask(format, base, key, QUESTION, opts);
  expect(answer.calls).toEqual([]);
  return answer.text;
}

describe.each(FORMATS)("%s", (format: Format) => {
  describe.each([false, true])("stream: %s", (stream: boolean) => {
    it("Portkey in front: Skillgate is its custom host and runs the owned call", async () => {
      script(front);
      const session = `chain-front-${format}-${stream}`;
      const customHost =
        format === "openai-chat" || format === "openai-responses" || format === "anthropic"
          ? `${front.app.url}/v1`
          : `${front.app.url}/v1beta`;
      const text = await run(format, stream, portkey.url, front.key.key, {
        headers: {
          "x-portkey-provider": PROVIDER[format],
          "x-portkey-custom-host": customHost,
          // A Skillgate header, passed on by Portkey because the request names it.
          "x-skillgate-session": session,
          "x-portkey-forward-headers": "x-skillgate-session",
        },
        geminiApiVersion: "v1",
      });
      expect(text).toContain(`"tempC":${tempOf("Paris")}`);
      // Two rounds reached the provider, the second with the owned call's result.
      const rounds = front.requests();
      expect(rounds).toHaveLength(2);
      expect(toolResults(format, rounds[1]!.body)).toHaveLength(1);
      // The execution was recorded for the key, under the session the client named.
      const rows = await front.app.api.get(
        `/api/skills/executions?sessionId=${encodeURIComponent(session)}`,
      );
      expect(rows.body.data.map((e: { skillName: string }) => e.skillName)).toEqual([
        "lookupWeather",
      ]);
    });

    it("Portkey behind: Skillgate's upstream is Portkey, the x-portkey-* headers reach it", async () => {
      script(behind);
      const text = await run(format, stream, behind.app.url, behind.key.key, {
        headers: {
          "x-portkey-provider": PROVIDER[format],
          "x-portkey-custom-host": format === "gemini" ? behind.llm.url : `${behind.llm.url}/v1`,
          "x-upstream-api-key": "sk-provider-key",
        },
      });
      expect(text).toContain(`"tempC":${tempOf("Paris")}`);
      const rounds = behind.requests();
      expect(rounds).toHaveLength(2);
      expect(toolResults(format, rounds[1]!.body)).toHaveLength(1);
      for (const { req } of rounds) {
        // Portkey routed by the forwarded headers and passed on the provider key; the Skillgate
        // key never left Skillgate.
        const sent = JSON.stringify(req.headers);
        expect(sent).toContain("sk-provider-key");
        expect(sent).not.toContain(behind.key.key);
      }
    });
  });
});
