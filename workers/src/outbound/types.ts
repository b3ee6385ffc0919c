/**
 * The connection layer of `http_request` (docs/outbound.md). The guard decides what may be reached;
 * a connector performs one HTTP exchange. Two connectors exist: the Node one connects to the
 * addresses the guard checked (no second lookup), the fetch one is for the Worker, where the
 * platform resolves names itself. Both are chosen by the entry point, never by a request.
 */

/** One outgoing HTTP exchange, already approved by the guard. */
export interface OutboundRequest {
  /** The parsed target URL (http or https, no userinfo). */
  url: URL;
  /** Upper-case method from the allowlist. */
  method: string;
  /** Header pairs to send, already filtered. */
  headers: Array<[string, string]>;
  body?: Uint8Array<ArrayBuffer>;
  /**
   * Addresses the guard resolved and approved. A connector that can, connects only to these.
   * Null when the runtime resolves names itself (Worker) and only literal checks applied.
   */
  addresses: string[] | null;
  /** Aborts connecting and reading (time limit, executor cancellation). */
  signal: AbortSignal;
}

/** The response head and a body stream; redirects are never followed by a connector. */
export interface OutboundResponse {
  status: number;
  statusText: string;
  /** Header pairs as received (names lower-cased). */
  headers: Array<[string, string]>;
  /** Body chunks; null when there is none (e.g. HEAD). */
  body: AsyncIterable<Uint8Array> | null;
  /** Stops the transfer and releases the connection (idempotent). */
  cancel(): void;
}

/** Performs one approved exchange. Rejects on network errors and on abort. */
export type OutboundConnector = (request: OutboundRequest) => Promise<OutboundResponse>;
