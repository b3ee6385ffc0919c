/**
 * What the proxy uses from below the front doors, imported in one place (docs/proxy.md): the
 * wire-format adapters and the types of the tools service's answers. Injection and the execution
 * of owned calls go through the tools service (`services.tools.inject` / `intercept`), never the
 * domain modules directly.
 */
export { getFormatAdapter } from "../formats/index.js";
export { isResponsesCallItem } from "../formats/openai-responses/adapter.js";
export type { ExtractedCall, FormatAdapter, JsonObject, WireFormat } from "../formats/types.js";
export { asArray, isObject } from "../formats/wire.js";
export type {
  InjectedRef,
  InjectResult,
  InterceptResult,
  ToolResult,
} from "../services/tools.js";
