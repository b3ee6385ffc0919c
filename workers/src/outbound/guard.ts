/**
 * The outbound guard of `http_request` (docs/outbound.md#the-guard): decides whether a
 * user-supplied URL may be fetched, on the URL as the WHATWG parser understands it and on the
 * addresses its host resolves to, before any connection is made.
 *
 * Runtime behaviour:
 * - Node (a resolver is injected through `AppDeps.outbound.resolve`): the host is resolved once,
 *   every address must be public unicast, and the Node connector then connects to exactly those
 *   addresses (no second lookup), so DNS rebinding cannot switch the target.
 * - Worker (no DNS API, no resolver): IP literals are checked as above; names are subject to the
 *   name rules below and then to the platform's own egress rules: a deployed Worker's subrequests
 *   leave from Cloudflare's network, not from the operator's, so the operator's loopback and
 *   private networks are not reachable by address at all; private services are reachable only
 *   through explicit bindings (service bindings, VPC services / Tunnel), which `http_request`
 *   never uses. Under `wrangler dev` a Worker can reach the developer's machine, which is why the
 *   literal checks always apply.
 */
import { describeNetworkError } from "@skillgate/sandbox-protocol";
import type { HostResolver } from "../deps.js";
import { ExecutionFailure } from "../errors.js";
import {
  type AddressVerdict,
  checkAddress,
  isIpLiteral,
  refusedNameReason,
} from "./address-policy.js";

/** Longest URL accepted, in characters. */
export const MAX_URL_LENGTH = 8192;

/** A refused target. `reason` is a stable tag; `address` names the offending address if any. */
export class OutboundBlockedError extends ExecutionFailure {
  /**
   * @param reason `invalid_url`, `scheme`, `userinfo`, `name`, `address`, `no_address`.
   * @param message human-readable explanation.
   * @param address the refused address with its range, when an address decided.
   */
  constructor(
    readonly reason: string,
    message: string,
    readonly address?: AddressVerdict,
  ) {
    super(`Outbound request refused: ${message}`, {
      code: reason === "invalid_url" ? "invalid_url" : "outbound_blocked",
    });
    this.name = "OutboundBlockedError";
  }
}

/** What the guard approved. */
export interface GuardedTarget {
  url: URL;
  /** Host name without IPv6 brackets and without a trailing dot. */
  hostname: string;
  /** The approved addresses; null when names are left to the platform (Worker). */
  addresses: string[] | null;
  /** Verdicts on every address that was checked. */
  verdicts: AddressVerdict[];
}

/** Options of {@link guardOutboundUrl}. */
export interface GuardOptions {
  /** Resolver for names; absent in the Worker (literal checks and name rules only). */
  resolve?: HostResolver;
  /** Aborts a pending resolution. */
  signal?: AbortSignal;
}

function refuseAddress(v: AddressVerdict, hostname: string): OutboundBlockedError {
  const via = v.address === hostname ? "" : ` (${hostname} resolves to it)`;
  const inner = v.embeddedIPv4 ? `, embedding ${v.embeddedIPv4}` : "";
  return new OutboundBlockedError(
    "address",
    `${v.address} is not a public unicast address (${v.range}${inner})${via}`,
    v,
  );
}

async function withAbort<T>(promise: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return promise;
  signal.throwIfAborted();
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener("abort", onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener("abort", onAbort);
        reject(e);
      },
    );
  });
}

/**
 * Parses and checks a URL for `http_request`.
 * Rules: WHATWG URL parse (which canonicalises every IPv4 notation it accepts: hex, octal,
 * shortened, integer, full-width digits, percent-encoded); scheme http or https; no username or
 * password; the name rules above; an IP literal must be public unicast ({@link checkAddress});
 * a name is resolved when a resolver is given and must yield at least one address, every one
 * public unicast.
 * @returns the approved target, with the addresses the connector must use.
 * @throws OutboundBlockedError (ExecutionFailure, code `invalid_url` or `outbound_blocked`);
 *   ExecutionFailure `dns_failed` when the resolver fails.
 */
export async function guardOutboundUrl(
  raw: string,
  opts: GuardOptions = {},
): Promise<GuardedTarget> {
  if (raw.length > MAX_URL_LENGTH) {
    throw new OutboundBlockedError("invalid_url", `URL longer than ${MAX_URL_LENGTH} characters`);
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new OutboundBlockedError("invalid_url", "not an absolute URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new OutboundBlockedError("scheme", `scheme ${url.protocol} is not allowed (http, https)`);
  }
  if (url.username !== "" || url.password !== "") {
    throw new OutboundBlockedError("userinfo", "credentials in the URL are not allowed");
  }
  const bracketed = url.hostname.startsWith("[");
  const hostname = bracketed ? url.hostname.slice(1, -1) : url.hostname.replace(/\.$/, "");
  if (hostname === "") throw new OutboundBlockedError("invalid_url", "URL has no host");

  if (bracketed || isIpLiteral(hostname)) {
    const verdict = checkAddress(hostname);
    if (!verdict.allowed) throw refuseAddress(verdict, hostname);
    return { url, hostname, addresses: [verdict.address], verdicts: [verdict] };
  }
  const rule = refusedNameReason(hostname);
  if (rule) throw new OutboundBlockedError("name", `${hostname} is a ${rule}`);
  if (!opts.resolve) return { url, hostname, addresses: null, verdicts: [] };

  let resolved: string[];
  try {
    resolved = await withAbort(opts.resolve(hostname), opts.signal);
  } catch (err) {
    if (opts.signal?.aborted) throw err;
    // Not a refusal: the name did not resolve (offline, a typo). Said so, with the system code.
    const failure = describeNetworkError(err);
    const why = failure.kind === "dns" ? `DNS lookup failed (${failure.code})` : failure.phrase;
    throw new ExecutionFailure(`Could not resolve ${hostname}: ${why}`, {
      code: "dns_failed",
      cause: err,
    });
  }
  if (resolved.length === 0) {
    throw new OutboundBlockedError("no_address", `${hostname} resolves to no address`);
  }
  const verdicts = resolved.map(checkAddress);
  const bad = verdicts.find((v) => !v.allowed);
  if (bad) throw refuseAddress(bad, hostname);
  return { url, hostname, addresses: verdicts.map((v) => v.address), verdicts };
}
