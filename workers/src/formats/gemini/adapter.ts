/**
 * Google Gemini `generateContent` wire format (docs/injection.md, docs/interception.md; Gemini API
 * docs "Function calling"). Requests come in the REST shape (`contents`, `systemInstruction`,
 * `tools`, `toolConfig`, snake_case accepted on read) or the `@google/genai` SDK shape (the same
 * fields under `config`). Tools are `functionDeclarations` of `{ name, description, parametersJsonSchema }`
 * (docs/schema-adaptation.md); calls are read from `candidates[0].content.parts[].functionCall` (the candidate a client replays;
 * other candidates are alternatives, never run), and from the SDK's `functionCalls` field only when
 * no candidates exist, so no call is counted twice. Results go back as one `user` turn of
 * `functionResponse` parts in call order, names echoed and the provider's ids echoed when present.
 * The response is never changed (no documented splice, and a model turn is replayed exactly as
 * received, `thoughtSignature` included), so calls without an id keep none on the wire.
 */
import type { JsonSchema } from "../../skills/types.js";
import { geminiToolContent, mcpContentOf } from "../tool-content.js";
import type { CallOutcome, ExtractedCall, JsonObject, ToolAdapter, ToolSpec } from "../types.js";
import { asArray, isObject, outcomeValue, uniqueCallIds } from "../wire.js";

/**
 * A function declaration (`FunctionDeclaration`). Parameters go in `parametersJsonSchema`, the
 * JSON Schema field (lowercase types, `anyOf`), rather than the OpenAPI-subset `parameters`.
 */
export interface GeminiFunctionDeclaration {
  name: string;
  description: string;
  parametersJsonSchema?: JsonSchema;
}

/** A `Tool` holding function declarations. */
export interface GeminiTool {
  functionDeclarations: GeminiFunctionDeclaration[];
}

/** One `functionResponse` part (`Part`). */
export interface GeminiFunctionResponsePart {
  functionResponse: { name: string; response: JsonObject; id?: string; parts?: JsonObject[] };
}

/** The follow-up user turn (`Content`). */
export interface GeminiFunctionResponseContent {
  role: "user";
  parts: GeminiFunctionResponsePart[];
}

/** Declaration for one spec; parameters are omitted for a tool that takes none. */
export function geminiDeclaration(spec: ToolSpec): GeminiFunctionDeclaration {
  const decl: GeminiFunctionDeclaration = { name: spec.name, description: spec.description };
  // ToolSpec parameters of the gemini dialect come from toGeminiParameters (see schemaDialect).
  if (spec.parameters) decl.parametersJsonSchema = spec.parameters;
  return decl;
}

/**
 * The `response` object of a `functionResponse` (Gemini docs: an `output` key for the result, an
 * `error` key for failures).
 */
export function geminiResponseValue(outcome: CallOutcome): JsonObject {
  if (outcome.status === "error" || outcome.status === "timeout") {
    const body: JsonObject = { error: outcome.error ?? "Tool call failed", status: outcome.status };
    if (outcome.output !== undefined && outcome.output !== null) body.output = outcome.output;
    return body;
  }
  return { output: outcomeValue(outcome) };
}

/** One user turn with one `functionResponse` part per outcome, in call order (docs/interception.md). */
export function geminiFollowUp(outcomes: readonly CallOutcome[]): GeminiFunctionResponseContent[] {
  if (outcomes.length === 0) return [];
  const parts = outcomes.map((o): GeminiFunctionResponsePart => {
    const fr: GeminiFunctionResponsePart["functionResponse"] = {
      name: o.call.name,
      response: geminiResponseValue(o),
    };
    const blocks = o.status === "success" ? mcpContentOf(o.output) : undefined;
    if (blocks) {
      // Multimodal function response: the text in `response`, images and PDFs as `parts`.
      const { text, parts } = geminiToolContent(blocks);
      fr.response = { output: text };
      if (parts.length > 0) fr.parts = parts;
    }
    // Echo the provider's own id (never an empty or synthesised one): pairing is then by id
    // where ids exist, by order otherwise.
    if (o.call.providerId) fr.id = o.call.providerId;
    return { functionResponse: fr };
  });
  return [{ role: "user", parts }];
}

/** The object holding tools/toolConfig: `config` in the SDK shape, the request itself in REST. */
function toolHolder(request: JsonObject): JsonObject {
  return isObject(request.config) ? request.config : request;
}

function partsText(value: unknown): string {
  if (typeof value === "string") return value;
  if (isObject(value)) {
    if (Array.isArray(value.parts)) return partsText(value.parts);
    return typeof value.text === "string" && value.thought !== true ? value.text : "";
  }
  const out: string[] = [];
  for (const item of asArray(value)) {
    const text = partsText(item);
    if (text) out.push(text);
  }
  return out.join("\n");
}

function contextText(request: JsonObject): string {
  const parts: string[] = [];
  const holder = toolHolder(request);
  const systems = [request.systemInstruction, request.system_instruction];
  if (holder !== request) systems.push(holder.systemInstruction, holder.system_instruction);
  for (const sys of systems) {
    const text = partsText(sys);
    if (text) parts.push(text);
  }
  const contents = request.contents;
  for (const item of Array.isArray(contents) ? contents : [contents]) {
    if (isObject(item) && Array.isArray(item.parts)) {
      const role = item.role ?? "user";
      if (role !== "user" && role !== "model") continue;
    }
    const text = partsText(item);
    if (text) parts.push(text);
  }
  return parts.join("\n");
}

/**
 * The `functionCall`s a client answers: the parts of `candidates[0]` (the candidate it replays;
 * other candidates are alternatives never run), or the SDK's `functionCalls` field when there are
 * no candidates (the SDK fills it from the first candidate).
 */
function rawCalls(response: JsonObject): JsonObject[] {
  const candidates = asArray(response.candidates);
  if (candidates.length > 0) {
    const first = candidates[0];
    if (!isObject(first) || !isObject(first.content)) return [];
    return asArray(first.content.parts)
      .filter((part): part is JsonObject => isObject(part) && isObject(part.functionCall))
      .map((part) => part.functionCall as JsonObject);
  }
  return asArray(response.functionCalls).filter(isObject);
}

/**
 * Every call of the replayed candidate. Gemini calls often carry no id: such a call (or one whose
 * id is empty or repeats an earlier call's) is reported as `fc_<index>`; the follow-up echoes the
 * provider's id only when it has one, and Gemini pairs responses with calls by order.
 */
function calls(response: JsonObject): ExtractedCall[] {
  const raw = rawCalls(response);
  const ids = uniqueCallIds(
    raw.map((fc) => fc.id),
    "fc_",
    "",
  );
  return raw.map((fc, index): ExtractedCall => {
    const name = typeof fc.name === "string" ? fc.name : "";
    return {
      callId: ids[index]!,
      providerId: typeof fc.id === "string" ? fc.id : undefined,
      name,
      input: fc.args ?? {},
      index,
      ...(name === "" ? { clientOnly: true as const } : {}),
    };
  });
}

function declaredNames(tools: unknown): Set<string> {
  const names = new Set<string>();
  for (const t of asArray(tools)) {
    if (!isObject(t)) continue;
    for (const d of [...asArray(t.functionDeclarations), ...asArray(t.function_declarations)]) {
      if (isObject(d) && typeof d.name === "string") names.add(d.name);
    }
  }
  return names;
}

function addTools(request: JsonObject, specs: readonly ToolSpec[]): JsonObject {
  if (specs.length === 0) return request;
  const decls = specs.map(geminiDeclaration);
  const holder = toolHolder(request);
  const tools = [...asArray(holder.tools)];
  const at = tools.findIndex(
    (t) =>
      isObject(t) &&
      (Array.isArray(t.functionDeclarations) || Array.isArray(t.function_declarations)),
  );
  if (at >= 0) {
    const tool = tools[at] as JsonObject;
    const key = Array.isArray(tool.functionDeclarations)
      ? "functionDeclarations"
      : "function_declarations";
    tools[at] = { ...tool, [key]: [...asArray(tool[key]), ...decls] };
  } else {
    const added: GeminiTool = { functionDeclarations: decls };
    tools.push(added);
  }
  return holder === request ? { ...request, tools } : { ...request, config: { ...holder, tools } };
}

function modeNone(config: unknown): boolean {
  if (!isObject(config)) return false;
  const fcc = config.functionCallingConfig ?? config.function_calling_config;
  return isObject(fcc) && typeof fcc.mode === "string" && fcc.mode.toUpperCase() === "NONE";
}

/** `config` with a function calling mode `ANY` turned to `AUTO` (allowed names dropped), or undefined. */
function relaxedConfig(config: unknown): JsonObject | undefined {
  if (!isObject(config)) return undefined;
  const key = isObject(config.functionCallingConfig)
    ? "functionCallingConfig"
    : isObject(config.function_calling_config)
      ? "function_calling_config"
      : undefined;
  if (!key) return undefined;
  const fcc = config[key] as JsonObject;
  if (typeof fcc.mode !== "string" || fcc.mode.toUpperCase() !== "ANY") return undefined;
  // Gemini docs "Function calling": allowed function names may only be set with mode ANY.
  const { allowedFunctionNames: _a, allowed_function_names: _b, ...rest } = fcc;
  return { ...config, [key]: { ...rest, mode: "AUTO" } };
}

/**
 * `request` with a forced function calling mode (`ANY`) relaxed to `AUTO`, in the REST shape
 * (`toolConfig` / `tool_config`) or the SDK shape (`config.toolConfig`).
 */
function relaxToolChoice(request: JsonObject): JsonObject {
  let out = request;
  for (const key of ["toolConfig", "tool_config"] as const) {
    const relaxed = relaxedConfig(out[key]);
    if (relaxed) out = { ...out, [key]: relaxed };
  }
  if (isObject(out.config)) {
    let config = out.config;
    for (const key of ["toolConfig", "tool_config"] as const) {
      const relaxed = relaxedConfig(config[key]);
      if (relaxed) config = { ...config, [key]: relaxed };
    }
    if (config !== out.config) out = { ...out, config };
  }
  return out;
}

/** The Gemini adapter. */
export const geminiTools: ToolAdapter = {
  format: "gemini",
  responseFields: ["candidates", "functionCalls"],
  provider: "google",
  schemaDialect: "gemini",
  contextText,
  toolsDisabled(request) {
    const holder = toolHolder(request);
    return (
      modeNone(holder.toolConfig) || modeNone(holder.tool_config) || modeNone(request.toolConfig)
    );
  },
  relaxToolChoice,
  clientToolNames(request) {
    const names = declaredNames(toolHolder(request).tools);
    for (const n of declaredNames(request.tools)) names.add(n);
    return names;
  },
  addTools,
  extractCalls: calls,
  followUp: geminiFollowUp,
  splice(response) {
    return response;
  },
  replayTurn(response) {
    const candidates = asArray(response.candidates);
    const cand = candidates[0];
    if (isObject(cand) && isObject(cand.content)) return [cand.content];
    if (candidates.length > 0) return [];
    const fcs = asArray(response.functionCalls).filter(isObject);
    return fcs.length > 0
      ? [{ role: "model", parts: fcs.map((fc) => ({ functionCall: fc })) }]
      : [];
  },
};
