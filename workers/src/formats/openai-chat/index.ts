/** The Chat Completions wire format (OpenAI `POST /v1/chat/completions`): one folder, one adapter. */
import type { FormatAdapter } from "../types.js";
import { openaiChatTools } from "./adapter.js";
import { openaiChatGateway } from "./gateway.js";

/** Chat Completions: injection and interception ({@link openaiChatTools}) and the gateway facet. */
export const openaiChat: FormatAdapter = { ...openaiChatTools, ...openaiChatGateway };
export * from "./adapter.js";
