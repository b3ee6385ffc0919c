/**
 * The domain functions and wire-format adapters the proxy uses, imported in one place
 * (docs/proxy.md): injection, interception and the provider adapters.
 */
export { getProvider } from "../providers/index.js";
export type {
  ExtractedCall,
  JsonObject,
  ProviderAdapter,
  ProviderFormat,
} from "../providers/types.js";
export { asArray, isObject } from "../providers/wire.js";
export { type InjectOptions, injectSkills } from "../skills/injection.js";
export {
  type InterceptionExecutor,
  interceptToolCalls,
  type ToolResult,
} from "../skills/interception.js";
