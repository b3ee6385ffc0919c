/**
 * Node's resolver and connector for `http_request` (docs/outbound.md#the-guard). The connector
 * connects to the addresses the guard approved through a `lookup` function that returns only them,
 * while the request keeps the original host name for the `Host` header and TLS SNI; so no second
 * DNS lookup happens and DNS rebinding cannot switch the target. Imports `node:` modules: only the
 * Node entry (and tests) may import this file, never code bundled into the Worker.
 */
import { lookup as dnsLookup } from "node:dns/promises";
import * as http from "node:http";
import * as https from "node:https";
import { isIP, type LookupFunction } from "node:net";
import type { HostResolver } from "../../deps.js";
import type { OutboundConnector, OutboundResponse } from "../../outbound/types.js";

/** Resolves a name with the operating system's resolver (`getaddrinfo`), every address. */
export const nodeResolver: HostResolver = async (hostname) => {
  const entries = await dnsLookup(hostname, { all: true, verbatim: true });
  return entries.map((e) => e.address);
};

/**
 * A `lookup` for `net.connect` that answers with the pinned addresses only, honouring a requested
 * family and the `all` form used by Happy Eyeballs (`autoSelectFamily`).
 */
export function pinnedLookup(addresses: readonly string[]): LookupFunction {
  return (hostname, options, callback) => {
    const family = typeof options === "number" ? options : (options?.family ?? 0);
    const want = family === "IPv4" ? 4 : family === "IPv6" ? 6 : Number(family) || 0;
    const list = addresses
      .map((address) => ({ address, family: isIP(address) }))
      .filter((e) => want === 0 || e.family === want);
    const first = list[0];
    if (!first) {
      const err = Object.assign(new Error(`no approved address for ${hostname}`), {
        code: "ENOTFOUND",
      });
      callback(err, "", 0);
      return;
    }
    if (typeof options === "object" && options?.all) {
      (callback as unknown as (e: null, a: typeof list) => void)(null, list);
    } else {
      callback(null, first.address, first.family);
    }
  };
}

/**
 * Builds the Node connector: `node:http` / `node:https` with `agent: false` (no pooled
 * connection can be reused for another name), the pinned `lookup`, `Host` set to the URL's host,
 * SNI set to the host name. Redirects are never followed (node:http does not follow them).
 * @returns a connector rejecting on network errors and on abort.
 */
export function createNodeConnector(): OutboundConnector {
  return (req) =>
    new Promise<OutboundResponse>((resolve, reject) => {
      const { url } = req;
      const https_ = url.protocol === "https:";
      const hostname = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
      const headers: Record<string, string | string[]> = {};
      for (const [name, value] of req.headers) {
        const key = name.toLowerCase();
        const prev = headers[key];
        headers[key] = prev === undefined ? value : ([] as string[]).concat(prev, value);
      }
      headers.host = url.host;
      const options: https.RequestOptions = {
        method: req.method,
        host: hostname,
        port: url.port === "" ? (https_ ? 443 : 80) : Number(url.port),
        path: `${url.pathname}${url.search}`,
        headers,
        agent: false,
        signal: req.signal,
      };
      if (req.addresses && isIP(hostname) === 0) options.lookup = pinnedLookup(req.addresses);
      if (https_ && isIP(hostname) === 0) options.servername = hostname.replace(/\.$/, "");
      const client = (https_ ? https : http).request(options, (res) => {
        const pairs: Array<[string, string]> = [];
        for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) {
          pairs.push([String(res.rawHeaders[i]).toLowerCase(), String(res.rawHeaders[i + 1])]);
        }
        resolve({
          status: res.statusCode ?? 0,
          statusText: res.statusMessage ?? "",
          headers: pairs,
          body: req.method === "HEAD" ? null : (res as AsyncIterable<Uint8Array>),
          cancel() {
            res.destroy();
            client.destroy();
          },
        });
      });
      client.on("error", reject);
      client.end(req.body);
    });
}

/** The Node pair for `AppDeps.outbound`: OS resolver plus the pinning connector. */
export function createNodeOutbound(): { resolve: HostResolver; connect: OutboundConnector } {
  return { resolve: nodeResolver, connect: createNodeConnector() };
}
