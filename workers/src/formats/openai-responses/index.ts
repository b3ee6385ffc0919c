/** The Responses wire format (OpenAI `POST /v1/responses`): one folder, one adapter. */
import type { FormatAdapter } from "../types.js";
import { openaiResponsesTools } from "./adapter.js";
import { openaiResponsesGateway } from "./gateway.js";

/** Responses: injection and interception ({@link openaiResponsesTools}) and the gateway facet. */
export const openaiResponses: FormatAdapter = {
  ...openaiResponsesTools,
  ...openaiResponsesGateway,
};
export * from "./adapter.js";
