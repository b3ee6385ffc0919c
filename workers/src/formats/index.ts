/**
 * Registry of the supported wire formats: `openai-chat`, `openai-responses`,
 * `anthropic`, `gemini`, each mapped to its {@link FormatAdapter}.
 */
import { anthropic } from "./anthropic.js";
import { gemini } from "./gemini.js";
import { openaiChat } from "./openai-chat.js";
import { openaiResponses } from "./openai-responses.js";
import type { FormatAdapter, WireFormat } from "./types.js";

export type * from "./types.js";

/** Every supported format, in a stable order (used by request validation). */
export const WIRE_FORMATS = ["openai-chat", "openai-responses", "anthropic", "gemini"] as const;

const ADAPTERS: Record<WireFormat, FormatAdapter> = {
  "openai-chat": openaiChat,
  "openai-responses": openaiResponses,
  anthropic,
  gemini,
};

/** True when `value` names a supported format. */
export function isWireFormat(value: unknown): value is WireFormat {
  return typeof value === "string" && Object.hasOwn(ADAPTERS, value);
}

/** The adapter of `format` (a supported format; validate untrusted input with {@link isWireFormat}). */
export function getFormatAdapter(format: WireFormat): FormatAdapter {
  return ADAPTERS[format];
}
