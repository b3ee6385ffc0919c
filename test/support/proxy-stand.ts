/**
 * A proxy test stand: the app on real HTTP with a real libSQL file, a scripted provider on
 * 127.0.0.1 as every upstream, an API key, and a handler-backed `lookupWeather` skill (its
 * owned tool) plus a `approveMe` hybrid skill.
 */
import type { AppDeps } from "../../workers/src/deps.js";
import { startTestApp, type TestApp } from "./app.js";
import type { RecordedRequest } from "./fakes/http.js";
import {
  type Script,
  type ScriptedLlm,
  type ScriptStep,
  startScriptedLlm,
} from "./fakes/llm-script.js";

/** Emitted tool names of the stand's skills. */
export const WEATHER = "lookupWeather_v1_0_0";
export const APPROVE = "approveMe_v1_0_0";
/** Temperature the weather handler answers for a city. */
export const tempOf = (city: string) => city.length * 3;

/** A running stand. */
export interface ProxyStand {
  app: TestApp;
  llm: ScriptedLlm;
  key: { key: string; id: string };
  /** Sets the script for the next requests and forgets the recorded ones. */
  script(s: Script): void;
  /** Requests since the last {@link script} call. */
  requests(): { req: RecordedRequest; body: Record<string, unknown> }[];
  close(): Promise<void>;
}

/**
 * Starts a stand; `env` adds configuration (limits), `deps` replaces dependencies of the app (a
 * real sandbox host's client).
 */
export async function startProxyStand(
  env: Record<string, string> = {},
  deps: Partial<AppDeps> = {},
): Promise<ProxyStand> {
  let current: Script = () => ({ kind: "json", status: 500, body: { error: "no script" } });
  let log: { req: RecordedRequest; body: Record<string, unknown> }[] = [];
  const llm = await startScriptedLlm((req, body, n): ScriptStep => {
    log.push({ req, body });
    return current(req, body, n);
  });
  const app = await startTestApp({
    env: {
      UPSTREAM_OPENAI_BASE_URL: `${llm.url}/v1`,
      UPSTREAM_ANTHROPIC_BASE_URL: llm.url,
      UPSTREAM_GEMINI_BASE_URL: llm.url,
      UPSTREAM_OPENAI_API_KEY: "sk-configured-openai",
      UPSTREAM_ANTHROPIC_API_KEY: "sk-configured-anthropic",
      UPSTREAM_GEMINI_API_KEY: "configured-gemini",
      ...env,
    },
    deps,
  });
  app.services.executor.registerHandler("weather-handler", async (input) => {
    const city = String((input as { city?: unknown }).city);
    return { city, tempC: tempOf(city) };
  });
  const key = await app.api.createKey("proxy");
  for (const skill of [
    {
      name: "lookupWeather",
      handlerCode: "weather-handler",
      description: "Current weather for a city",
    },
    {
      name: "approveMe",
      handlerCode: "weather-handler",
      policy: "hybrid",
      description: "Needs approval",
    },
  ]) {
    const res = await app.api.post("/api/skills/install", {
      version: "1.0.0",
      schema: { input: { city: { type: "string", required: true } } },
      apiKeyId: key.id,
      ...skill,
    });
    if (res.status !== 201) throw new Error(`install failed: ${JSON.stringify(res.body)}`);
  }
  return {
    app,
    llm,
    key,
    script(s) {
      current = s;
      log = [];
    },
    requests: () => log,
    close: async () => {
      await app.close();
      await llm.close();
    },
  };
}
