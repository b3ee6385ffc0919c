/**
 * Registry of the supported wire formats: `openai-chat`, `openai-responses`,
 * `anthropic`, `gemini`, each mapped to its {@link ProviderAdapter}.
 */
import { anthropic } from "./anthropic.js";
import { gemini } from "./gemini.js";
import { openaiChat } from "./openai-chat.js";
import { openaiResponses } from "./openai-responses.js";
import type { ProviderAdapter, ProviderFormat } from "./types.js";

export type * from "./types.js";

/** Every supported format, in a stable order (used by request validation). */
export const PROVIDER_FORMATS = ["openai-chat", "openai-responses", "anthropic", "gemini"] as const;

const ADAPTERS: Record<ProviderFormat, ProviderAdapter> = {
  "openai-chat": openaiChat,
  "openai-responses": openaiResponses,
  anthropic,
  gemini,
};

/** True when `value` names a supported format. */
export function isProviderFormat(value: unknown): value is ProviderFormat {
  return typeof value === "string" && Object.hasOwn(ADAPTERS, value);
}

/** The adapter of `format` (a supported format; validate untrusted input with {@link isProviderFormat}). */
export function getProvider(format: ProviderFormat): ProviderAdapter {
  return ADAPTERS[format];
}
