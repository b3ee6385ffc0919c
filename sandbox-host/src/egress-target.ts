/**
 * The targets of the egress proxy (egress-proxy.ts; docs/sandbox.md#the-browser-builtin): the
 * outbound rules of `http_request` applied to a target (docs/outbound.md#the-guard: the name
 * rules, resolution of the name, every address public unicast), the connection to exactly the
 * approved addresses (pinned: no second lookup, so DNS rebinding cannot switch the target), and
 * the two ways a target fails: refused by a rule ({@link EgressRefusal}) or unreachable
 * ({@link EgressUnreachable}, docs/outbound.md#failures).
 */
import { lookup } from "node:dns/promises";
import { isIP, type Socket, connect as tcpConnect } from "node:net";
import { checkAddress, describeNetworkError, refusedNameReason } from "@skillgate/sandbox-protocol";

/** Resolves a host name to every address (default: the OS resolver). */
export type EgressResolver = (hostname: string) => Promise<string[]>;

/** The OS resolver (`getaddrinfo`), every address. */
export const osResolver: EgressResolver = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map((e) => e.address);

/** A target the outbound rules refused; the message says which rule. */
export class EgressRefusal extends Error {}

/**
 * Why an allowed target could not be reached: `dns_failed` (the resolver failed: offline, a typo,
 * a name that does not exist) or `connect_failed` (no approved address accepted a connection).
 * The same distinction as `http_request`'s `dns_failed` / `http_failed` (docs/outbound.md#failures).
 */
export type UnreachableCode = "dns_failed" | "connect_failed";

/** A target that passed the outbound rules but could not be reached; never a refusal. */
export class EgressUnreachable extends Error {
  /**
   * @param code why ({@link UnreachableCode}).
   * @param message one line: `Could not resolve <host>: DNS lookup failed (ENOTFOUND)`,
   *   `Could not connect to <host>:<port>: connection refused`.
   */
  constructor(
    readonly code: UnreachableCode,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Checks a target and returns the addresses to connect to.
 * @throws EgressRefusal naming the rule that refused it (a name resolving to no address is
 *   refused, as in `http_request`); EgressUnreachable `dns_failed` when the resolver fails, with
 *   the system code (`Could not resolve <host>: DNS lookup failed (ENOTFOUND)`).
 */
export async function approveTarget(
  hostname: string,
  port: number,
  allowLoopbackPorts: ReadonlySet<number>,
  resolve: EgressResolver,
): Promise<string[]> {
  const host = hostname
    .replace(/^\[|\]$/g, "")
    .replace(/\.$/, "")
    .toLowerCase();
  if (host === "" || !Number.isInteger(port) || port < 1 || port > 65535)
    throw new EgressRefusal("invalid target");
  const judge = (address: string): string => {
    if (address === "127.0.0.1" && allowLoopbackPorts.has(port)) return address;
    const verdict = checkAddress(address);
    if (!verdict.allowed) {
      const via = address === host ? "" : ` (${host} resolves to it)`;
      throw new EgressRefusal(
        `${verdict.address} is not a public unicast address (${verdict.range})${via}`,
      );
    }
    return verdict.address;
  };
  if (isIP(host) !== 0) return [judge(host)];
  const rule = refusedNameReason(host);
  if (rule) throw new EgressRefusal(`${host} is a ${rule}`);
  let addresses: string[];
  try {
    addresses = await resolve(host);
  } catch (err) {
    // Not a refusal: the name did not resolve (offline, a typo). Said so, with the system code.
    const failure = describeNetworkError(err);
    const why = failure.kind === "dns" ? `DNS lookup failed (${failure.code})` : failure.phrase;
    throw new EgressUnreachable("dns_failed", `Could not resolve ${host}: ${why}`);
  }
  if (addresses.length === 0) throw new EgressRefusal(`${host} resolves to no address`);
  return addresses.map(judge);
}

/**
 * Opens a TCP connection to the first approved address that accepts.
 * @throws EgressUnreachable `connect_failed` naming the last address's network cause.
 */
export function dial(host: string, addresses: string[], port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const attempt = (i: number, lastErr?: Error) => {
      const address = addresses[i];
      if (address === undefined) {
        const why = lastErr ? describeNetworkError(lastErr).phrase : "no address";
        reject(
          new EgressUnreachable("connect_failed", `Could not connect to ${host}:${port}: ${why}`),
        );
        return;
      }
      const socket = tcpConnect({ host: address, port });
      socket.once("connect", () => {
        socket.removeAllListeners("error");
        resolve(socket);
      });
      socket.once("error", (err) => attempt(i + 1, err));
    };
    attempt(0);
  });
}

/** `err` as an {@link EgressUnreachable} (a connection failure when it is not one already). */
export function unreachableOf(err: unknown, host: string, port: number): EgressUnreachable {
  if (err instanceof EgressUnreachable) return err;
  const why = describeNetworkError(err).phrase;
  return new EgressUnreachable("connect_failed", `Could not connect to ${host}:${port}: ${why}`);
}
