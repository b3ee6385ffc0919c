/**
 * The learning curve of selection (docs/scoring.md#measured-learning): a selection set's
 * questions are split in two (a fixed shuffle); the first part — up to 1,000 questions — is
 * replayed as traffic through the real API over HTTP (`POST /api/skills/inject`, then
 * `POST /api/skills/intercept` with the `selectionId` inject returned), with a scripted model
 * that calls each ground-truth tool: directly when it was offered, otherwise after finding it
 * with a search (the tools service's `noteSearchFound`, the call `skill_search` makes). The other
 * questions are then measured, before and after the traffic: the share whose every tool is
 * offered directly (among the injected), the share found within two model rounds when the model
 * searches for what it was not offered (the scripted model of selection-search.ts, through the
 * same endpoints with a session id), recall@1 of one-tool questions, and the tools an off-topic
 * question gets.
 */
import { uniformInt } from "pure-rand/distribution/uniformInt";
import { xoroshiro128plus } from "pure-rand/generator/xoroshiro128plus";
import type { JsonObject } from "../workers/src/formats/types.js";
import { learningFeatures } from "../workers/src/skills/learning/features.js";
import type { Skill } from "../workers/src/skills/types.js";
import { type BenchApi, startBenchApi } from "./api.js";
import { searchCall } from "./selection-search.js";

/** A selection set (see selection.ts). */
interface LearningSet {
  functions: { name: string; description?: string; tags?: string[]; parameters?: JsonObject }[];
  cases: { query: string; tools: string[] }[];
}

/** Most questions replayed as traffic. */
export const MAX_TRAFFIC = 1_000;

/** Figures of one measurement of the held-out questions. */
export interface HeldOutFigures {
  offered: number;
  /** Share whose every tool is offered directly or after one `skill_search` (two rounds). */
  withSearch: number;
  recall1: number;
  offTopicTools: number;
}

/** The learning curve of one set. */
export interface LearningCurve {
  traffic: number;
  heldOut: number;
  searched: number;
  before: HeldOutFigures;
  after: HeldOutFigures;
}

/** A deterministic Fisher–Yates shuffle (xoroshiro128+ of the `pure-rand` package). */
function shuffled<T>(items: readonly T[], seed: number): T[] {
  const g = xoroshiro128plus(seed);
  const out = items.slice();
  for (let i = out.length - 1; i > 0; i--) {
    const j = uniformInt(g, 0, i);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** A skill name the registry accepts for a set's function name. */
function skillName(name: string, taken: Set<string>): string {
  let base = name.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 60);
  if (!/^[A-Za-z0-9_]/.test(base)) base = `f${base}`;
  let out = base;
  for (let i = 2; taken.has(out); i++) out = `${base.slice(0, 56)}_${i}`;
  taken.add(out);
  return out;
}

const chat = (text: string): JsonObject => ({
  model: "gpt-4.1",
  messages: [{ role: "user", content: text }],
});

/** Measures the learning curve of `set` on a fresh API. */
export async function learningCurve(
  set: LearningSet,
  offTopic: readonly string[],
): Promise<LearningCurve> {
  const api: BenchApi = await startBenchApi();
  try {
    const taken = new Set<string>();
    const names = new Map<string, string>();
    const skills = new Map<string, Skill>();
    for (const f of set.functions) {
      if (names.has(f.name)) continue;
      const name = skillName(f.name, taken);
      names.set(f.name, name);
      const skill = await api.services.skills.install({
        name,
        version: "1.0.0",
        description: f.description ?? "",
        tags: f.tags ?? [],
        schema: { input: f.parameters ?? { type: "object", properties: {} } },
        handlerCode: "echo-handler",
        mode: "auto",
        apiKeyId: null,
      });
      skills.set(name, skill);
    }
    const created = await api.post("/api/keys", { name: "bench-traffic" });
    const key = created.apiKey.id as string;
    const asKey = async (path: string, body: unknown) => {
      const res = await fetch(api.url + path, {
        method: "POST",
        headers: { authorization: `Bearer ${created.key}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
      return res.json() as Promise<any>;
    };
    const inject = (text: string, sessionId?: string) =>
      asKey("/api/skills/inject", {
        format: "openai-chat",
        request: chat(text),
        ...(sessionId ? { sessionId } : {}),
      }) as Promise<{
        injected: { name: string; toolName: string; mode: string }[];
        selectionId?: string;
      }>;

    const cases = shuffled(
      set.cases.filter((c) => c.tools.length > 0 && c.tools.every((t) => names.has(t))),
      20_260_601,
    );
    const traffic = cases.slice(0, Math.min(MAX_TRAFFIC, Math.floor(cases.length / 2)));
    const heldOut = cases.slice(traffic.length);

    const measure = async (phase: string): Promise<HeldOutFigures> => {
      let offered = 0;
      let withSearch = 0;
      let ones = 0;
      let top1 = 0;
      for (const [i, c] of heldOut.entries()) {
        const sessionId = `held-${phase}-${i}`;
        const first = await inject(c.query, sessionId);
        const got = first.injected.filter((t) => t.mode === "auto").map((t) => t.name);
        const want = c.tools.map((t) => names.get(t)!);
        if (want.every((w) => got.includes(w))) {
          offered++;
          withSearch++;
        } else if (first.injected.some((t) => t.name === "skill_search")) {
          await asKey("/api/skills/intercept", {
            format: "openai-chat",
            sessionId,
            injected: first.injected.map((t) => t.toolName),
            response: searchCall(c.query),
          });
          const second = (await inject(c.query, sessionId)).injected.map((t) => t.name);
          if (want.every((w) => second.includes(w))) withSearch++;
        }
        if (want.length === 1) {
          ones++;
          if (got[0] === want[0]) top1++;
        }
      }
      let tools = 0;
      for (const q of offTopic) tools += (await inject(q)).injected.length;
      return {
        offered: offered / heldOut.length,
        withSearch: withSearch / heldOut.length,
        recall1: ones ? top1 / ones : Number.NaN,
        offTopicTools: tools / offTopic.length,
      };
    };

    const before = await measure("before");
    let searched = 0;
    for (const [i, c] of traffic.entries()) {
      const got = await inject(c.query);
      const linkId = got.selectionId ?? `bench-${i}`;
      const calls: { id: string; name: string; args: JsonObject }[] = [];
      const found: Skill[] = [];
      for (const [j, tool] of c.tools.entries()) {
        const name = names.get(tool)!;
        const offered = got.injected.find((t) => t.name === name);
        if (!offered) found.push(skills.get(name)!);
        calls.push({ id: `call_${j}`, name: offered?.toolName ?? `${name}@1.0.0`, args: {} });
      }
      if (found.length > 0) {
        searched++;
        await api.services.tools.feedback.noteSearchFound(
          key,
          { ids: [linkId] },
          learningFeatures(c.query),
          found,
        );
      }
      await asKey("/api/skills/intercept", {
        format: "openai-chat",
        selectionId: linkId,
        response: {
          id: `chatcmpl-${i}`,
          object: "chat.completion",
          created: 1,
          model: "gpt-4.1",
          choices: [
            {
              index: 0,
              finish_reason: "tool_calls",
              message: {
                role: "assistant",
                content: null,
                tool_calls: calls.map((call) => ({
                  id: call.id,
                  type: "function",
                  function: { name: call.name, arguments: "{}" },
                })),
              },
            },
          ],
        },
      });
    }
    const after = await measure("after");
    return { traffic: traffic.length, heldOut: heldOut.length, searched, before, after };
  } finally {
    api.close();
  }
}
