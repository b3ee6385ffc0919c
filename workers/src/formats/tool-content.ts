/**
 * MCP content blocks in tool results (docs/custom-skills.md#results-with-images-and-resources):
 * an imported MCP tool's result keeps its content blocks (MCP specification 2025-11-25, "Tools" →
 * "Tool Result": `text`, `image`, `audio`, `resource_link`, embedded `resource`), and each wire
 * format carries them in the provider's own tool-result shape where it has one:
 * - Anthropic `tool_result.content`: `text`, `image` (base64 PNG/JPEG/GIF/WebP) and `document`
 *   (base64 PDF) blocks (Anthropic docs "Tool use" → tool results with images and documents);
 * - OpenAI Responses `function_call_output.output`: `input_text`, `input_image` and `input_file`
 *   items with data URLs (OpenAI API reference, "function_call_output");
 * - Gemini `functionResponse.parts`: `inlineData` for images and PDFs beside the `response` object
 *   (Gemini docs "Function calling" → multimodal function responses);
 * - OpenAI Chat `tool` messages take text parts only: every block is described as text.
 * A block a format cannot carry becomes a text line naming it (kind, MIME type, size, URI).
 */
import type { JsonObject } from "./types.js";
import { isObject } from "./wire.js";

/** One MCP content block, as a tool result carries it. */
export type McpContentBlock =
  | { type: "text"; text: string }
  | { type: "image"; data: string; mimeType: string }
  | { type: "audio"; data: string; mimeType: string }
  | { type: "resource_link"; uri: string; name?: string; mimeType?: string; description?: string }
  | {
      type: "resource";
      resource: { uri: string; mimeType?: string; text?: string; blob?: string };
    };

const str = (v: unknown): v is string => typeof v === "string";

function isBlock(b: unknown): b is McpContentBlock {
  if (!isObject(b)) return false;
  switch (b.type) {
    case "text":
      return str(b.text);
    case "image":
    case "audio":
      return str(b.data) && str(b.mimeType);
    case "resource_link":
      return str(b.uri);
    case "resource":
      return isObject(b.resource) && str(b.resource.uri);
    default:
      return false;
  }
}

/**
 * The content blocks of a tool output that is an MCP result envelope `{ content: [...] }`
 * (optionally with `structuredContent`) holding at least one block that is not text.
 * @returns undefined for anything else: such outputs keep their JSON rendering.
 */
export function mcpContentOf(output: unknown): McpContentBlock[] | undefined {
  if (!isObject(output) || !Array.isArray(output.content)) return undefined;
  if (Object.keys(output).some((k) => k !== "content" && k !== "structuredContent"))
    return undefined;
  const blocks = output.content;
  if (blocks.length === 0 || !blocks.every(isBlock)) return undefined;
  return blocks.some((b) => b.type !== "text") ? blocks : undefined;
}

/** Bytes a base64 string decodes to (approximate for malformed input). */
function base64Bytes(data: string): number {
  const pad = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - pad);
}

/** A text rendering of a block: its text, or a line naming what it is. */
export function blockText(b: McpContentBlock): string {
  switch (b.type) {
    case "text":
      return b.text;
    case "image":
    case "audio":
      return `[${b.type} ${b.mimeType}, ${base64Bytes(b.data)} bytes]`;
    case "resource_link":
      return `[resource link ${b.uri}${b.name ? ` (${b.name})` : ""}${b.mimeType ? `, ${b.mimeType}` : ""}]`;
    case "resource": {
      const r = b.resource;
      if (str(r.text)) return `[resource ${r.uri}]\n${r.text}`;
      const size = str(r.blob) ? `, ${base64Bytes(r.blob)} bytes` : "";
      return `[resource ${r.uri}${r.mimeType ? `, ${r.mimeType}` : ""}${size}]`;
    }
  }
}

/** Image types Anthropic takes in an `image` block. */
const ANTHROPIC_IMAGES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);

/** Base64 PDF of an embedded resource block, if it is one. */
function pdfOf(b: McpContentBlock): { data: string; uri: string } | undefined {
  if (b.type !== "resource") return undefined;
  const r = b.resource;
  return r.mimeType === "application/pdf" && str(r.blob) ? { data: r.blob, uri: r.uri } : undefined;
}

/** A block of Anthropic's `tool_result.content` (`TextBlockParam`, `ImageBlockParam`, `DocumentBlockParam`). */
export type AnthropicToolContentBlock =
  | { type: "text"; text: string }
  | {
      type: "image";
      source: {
        type: "base64";
        media_type: "image/png" | "image/jpeg" | "image/gif" | "image/webp";
        data: string;
      };
    }
  | { type: "document"; source: { type: "base64"; media_type: "application/pdf"; data: string } };

/** An item of a Responses `function_call_output.output` list. */
export type ResponsesToolOutputItem =
  | { type: "input_text"; text: string }
  | { type: "input_image"; image_url: string; detail: "auto" }
  | { type: "input_file"; filename: string; file_data: string };

/** Anthropic `tool_result.content` blocks for MCP content. */
export function anthropicToolContent(
  blocks: readonly McpContentBlock[],
): AnthropicToolContentBlock[] {
  return blocks.map((b): AnthropicToolContentBlock => {
    if (b.type === "image" && ANTHROPIC_IMAGES.has(b.mimeType)) {
      const media_type = b.mimeType as "image/png" | "image/jpeg" | "image/gif" | "image/webp";
      return { type: "image", source: { type: "base64", media_type, data: b.data } };
    }
    const pdf = pdfOf(b);
    if (pdf) {
      return {
        type: "document",
        source: { type: "base64", media_type: "application/pdf", data: pdf.data },
      };
    }
    return { type: "text", text: blockText(b) };
  });
}

/** OpenAI Responses `function_call_output.output` items for MCP content. */
export function responsesToolOutput(blocks: readonly McpContentBlock[]): ResponsesToolOutputItem[] {
  return blocks.map((b): ResponsesToolOutputItem => {
    if (b.type === "image") {
      return {
        type: "input_image",
        image_url: `data:${b.mimeType};base64,${b.data}`,
        detail: "auto",
      };
    }
    const pdf = pdfOf(b);
    if (pdf) {
      const filename = pdf.uri.split("/").pop() || "document.pdf";
      return {
        type: "input_file",
        filename,
        file_data: `data:application/pdf;base64,${pdf.data}`,
      };
    }
    return { type: "input_text", text: blockText(b) };
  });
}

/** OpenAI Chat `tool` message content parts for MCP content (text only). */
export function chatToolContent(
  blocks: readonly McpContentBlock[],
): { type: "text"; text: string }[] {
  return blocks.map((b) => ({ type: "text" as const, text: blockText(b) }));
}

/** Types Gemini takes as `inlineData` in a function response. */
const GEMINI_INLINE = new Set(["image/png", "image/jpeg", "image/webp", "application/pdf"]);

/**
 * Gemini's split of MCP content: the text of every block for the `response` object, and
 * `inlineData` parts for the images and PDFs it takes.
 */
export function geminiToolContent(blocks: readonly McpContentBlock[]): {
  text: string;
  parts: JsonObject[];
} {
  const parts: JsonObject[] = [];
  for (const b of blocks) {
    if (b.type === "image" && GEMINI_INLINE.has(b.mimeType)) {
      parts.push({ inlineData: { mimeType: b.mimeType, data: b.data } });
    }
    const pdf = pdfOf(b);
    if (pdf) parts.push({ inlineData: { mimeType: "application/pdf", data: pdf.data } });
  }
  return { text: blocks.map(blockText).join("\n"), parts };
}
