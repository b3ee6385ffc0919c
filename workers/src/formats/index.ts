/**
 * Registry of the supported wire formats: `openai-chat`, `openai-responses`, `anthropic`,
 * `gemini`, each one folder `formats/<f>/` (its adapter, gateway facet and stream translator)
 * mapped to its {@link FormatAdapter} by one line below (docs/architecture.md#wire-formats).
 */
import { anthropic } from "./anthropic/index.js";
import { gemini } from "./gemini/index.js";
import { openaiChat } from "./openai-chat/index.js";
import { openaiResponses } from "./openai-responses/index.js";
import type { FormatAdapter, WireFormat } from "./types.js";

export type * from "./types.js";

/** The registered formats: one line each, the name a request gives and the folder's adapter. */
const ADAPTERS = {
  "openai-chat": openaiChat,
  "openai-responses": openaiResponses,
  anthropic,
  gemini,
} satisfies Record<string, FormatAdapter>;

/** The name of a registered format ({@link WireFormat} is this type). */
export type RegisteredFormat = keyof typeof ADAPTERS;

/** Every supported format, in registration order (used by request validation). */
export const WIRE_FORMATS = Object.keys(ADAPTERS) as [RegisteredFormat, ...RegisteredFormat[]];

/** True when `value` names a supported format. */
export function isWireFormat(value: unknown): value is WireFormat {
  return typeof value === "string" && Object.hasOwn(ADAPTERS, value);
}

/** The adapter of `format` (a supported format; validate untrusted input with {@link isWireFormat}). */
export function getFormatAdapter(format: WireFormat): FormatAdapter {
  return ADAPTERS[format];
}
