/** The Gemini wire format (`POST /v1beta/models/{model}:generateContent`): one folder, one adapter. */
import type { FormatAdapter } from "../types.js";
import { geminiTools } from "./adapter.js";
import { geminiGateway } from "./gateway.js";

/** Gemini: injection and interception ({@link geminiTools}) and the gateway facet. */
export const gemini: FormatAdapter = { ...geminiTools, ...geminiGateway };
export * from "./adapter.js";
