/**
 * MCP content blocks in tool results (docs/custom-skills.md#results-with-images-and-resources):
 * which outputs count as MCP content, and the shape each wire format gives images, PDFs, audio,
 * text resources and resource links.
 */
import { describe, expect, it } from "vitest";
import {
  anthropicToolContent,
  blockText,
  chatToolContent,
  geminiToolContent,
  type McpContentBlock,
  mcpContentOf,
  responsesToolOutput,
} from "../../workers/src/formats/tool-content.js";

const PNG = "iVBORw0KGgo=";
const blocks: McpContentBlock[] = [
  { type: "text", text: "Here it is" },
  { type: "image", data: PNG, mimeType: "image/png" },
  { type: "image", data: "AAAA", mimeType: "image/bmp" },
  { type: "audio", data: "AAAA", mimeType: "audio/wav" },
  {
    type: "resource",
    resource: { uri: "file:///a.pdf", mimeType: "application/pdf", blob: "JVBE" },
  },
  { type: "resource", resource: { uri: "file:///notes.txt", text: "hello" } },
  { type: "resource_link", uri: "file:///x.bin", name: "x" },
];

describe("MCP content in tool results", () => {
  it("recognises an MCP result envelope with a non-text block, and nothing else", () => {
    expect(mcpContentOf({ content: blocks })).toEqual(blocks);
    expect(mcpContentOf({ content: blocks, structuredContent: { a: 1 } })).toEqual(blocks);
    expect(mcpContentOf({ content: [{ type: "text", text: "only text" }] })).toBeUndefined();
    expect(mcpContentOf({ content: blocks, other: 1 })).toBeUndefined();
    expect(mcpContentOf({ content: [{ type: "image", data: 1 }] })).toBeUndefined();
    expect(mcpContentOf({ content: [] })).toBeUndefined();
    expect(mcpContentOf("text")).toBeUndefined();
    expect(mcpContentOf([{ type: "image", data: PNG, mimeType: "image/png" }])).toBeUndefined();
  });

  it("maps images and PDFs to Anthropic image and document blocks, the rest to text", () => {
    expect(anthropicToolContent(blocks)).toEqual([
      { type: "text", text: "Here it is" },
      { type: "image", source: { type: "base64", media_type: "image/png", data: PNG } },
      { type: "text", text: "[image image/bmp, 3 bytes]" },
      { type: "text", text: "[audio audio/wav, 3 bytes]" },
      { type: "document", source: { type: "base64", media_type: "application/pdf", data: "JVBE" } },
      { type: "text", text: "[resource file:///notes.txt]\nhello" },
      { type: "text", text: "[resource link file:///x.bin (x)]" },
    ]);
  });

  it("maps images to Responses input_image and PDFs to input_file data URLs", () => {
    const out = responsesToolOutput(blocks);
    expect(out[1]).toEqual({
      type: "input_image",
      image_url: `data:image/png;base64,${PNG}`,
      detail: "auto",
    });
    expect(out[4]).toEqual({
      type: "input_file",
      filename: "a.pdf",
      file_data: "data:application/pdf;base64,JVBE",
    });
    expect(out[3]).toEqual({ type: "input_text", text: "[audio audio/wav, 3 bytes]" });
  });

  it("gives Gemini inlineData parts for the images and PDFs it takes, and Chat text only", () => {
    const g = geminiToolContent(blocks);
    expect(g.parts).toEqual([
      { inlineData: { mimeType: "image/png", data: PNG } },
      { inlineData: { mimeType: "application/pdf", data: "JVBE" } },
    ]);
    expect(g.text).toContain("Here it is");
    const chat = chatToolContent(blocks);
    expect(chat.every((p) => p.type === "text")).toBe(true);
    expect(chat.map((p) => p.text)).toEqual(blocks.map(blockText));
  });
});
