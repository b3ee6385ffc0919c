/** The Anthropic Messages wire format (`POST /v1/messages`): one folder, one adapter. */
import type { FormatAdapter } from "../types.js";
import { anthropicTools } from "./adapter.js";
import { anthropicGateway } from "./gateway.js";

/** Anthropic Messages: injection and interception ({@link anthropicTools}) and the gateway facet. */
export const anthropic: FormatAdapter = { ...anthropicTools, ...anthropicGateway };
export * from "./adapter.js";
