/**
 * The contract of a per-format stream translator (docs/proxy.md#streaming): it reads the
 * upstream events of each round, forwards text as it arrives, withholds tool calls and terminal
 * events, assembles the round's complete response for interception, and at the end writes the
 * client's calls and one terminal sequence, so the client sees one coherent stream.
 */
import type { ErrorCode } from "@skillgate/errors";
import type { SseEvent } from "./sse-frame.js";
import type { JsonObject } from "./types.js";

/** What an upstream event meant for the round. */
export type EventOutcome = "continue" | "end" | "error";

/** One translator per client stream. */
export interface StreamTranslator {
  /** Starts a round (the first one included). */
  beginRound(): void;
  /**
   * Handles one upstream event: forwards what the client should see now, accumulates the rest.
   * @returns `end` on the round's terminal event, `error` after an upstream error event (already
   *   written to the client in its format).
   */
  onEvent(ev: SseEvent): EventOutcome;
  /** True when the upstream stream has ended on its own terminal marker. */
  roundEnded(): boolean;
  /** The round's complete response, in the format's non-streaming shape. */
  roundResponse(): JsonObject;
  /**
   * Writes the withheld calls at `clientCalls` (positions among the round's calls) and the
   * terminal events, with usage summed over the rounds.
   */
  finish(clientCalls: ReadonlySet<number>): void;
  /**
   * Writes the format's own keep-alive while owned calls run (docs/proxy.md#streaming): Chat an
   * empty delta chunk, Responses a `response.in_progress` event with the response so far,
   * Anthropic a `ping` event, Gemini a chunk
   * with one empty text part. Every SDK reads it and adds nothing to the answer.
   */
  keepAlive(): void;
  /**
   * Writes an error in the format's stream shape (the stream then ends); `code` (a code of the
   * error registry) goes where the shape has a code field.
   */
  fail(status: number, message: string, code?: ErrorCode): void;
  /**
   * Characters of the longest tool-call arguments accumulated so far this round, for translators
   * that join argument pieces (Chat, Anthropic); the proxy stops the round past
   * `PROXY_MAX_TOOL_ARGUMENTS_CHARS`. Formats that send calls whole need none.
   */
  longestArguments?(): number;
}

/** Writes text to the client. */
export type Emit = (text: string) => void;
