/**
 * Raw HTTP/1.1 clients for limit tests: a chunked upload through `node:http` (no Content-Length)
 * and hand-written requests over a TCP socket (for a Content-Length that does not match the body).
 */
import { request as httpRequest } from "node:http";
import { connect } from "node:net";

/** Status and decoded JSON body (text when it is not JSON). */
export interface RawResponse {
  status: number;
  body: any;
}

function decode(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * POSTs `head`, then `fillBytes` bytes of `a` in chunks of `chunkBytes`, then `tail`, with
 * `Transfer-Encoding: chunked`. Stops writing once the server has answered (an early 413).
 * A connection the server closed mid-upload before its answer could be read gives status 0.
 */
export function postChunked(
  base: string,
  path: string,
  token: string,
  parts: { head: string; fillBytes: number; tail: string; chunkBytes?: number },
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const url = new URL(path, base);
    const req = httpRequest({
      host: url.hostname,
      port: url.port,
      path: url.pathname + url.search,
      method: "POST",
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": "application/json",
        "transfer-encoding": "chunked",
      },
    });
    let answered = false;
    req.on("response", (res) => {
      answered = true;
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (d: string) => {
        text += d;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: decode(text) }));
    });
    req.on("error", (err: NodeJS.ErrnoException) => {
      if (answered) return;
      // The server may answer early (413) and close while bytes are still being written: the
      // write then fails with EPIPE / ECONNRESET, sometimes before the answer is parsed. That is
      // a refusal too; it is reported as status 0 with the error code.
      if (err.code === "EPIPE" || err.code === "ECONNRESET")
        resolve({ status: 0, body: { closed: err.code } });
      else reject(err);
    });
    const chunk = "a".repeat(parts.chunkBytes ?? 64 * 1024);
    let sent = 0;
    const pump = (): void => {
      while (sent < parts.fillBytes) {
        if (answered || req.destroyed) return;
        const piece = chunk.slice(0, Math.min(chunk.length, parts.fillBytes - sent));
        sent += piece.length;
        if (!req.write(piece)) {
          req.once("drain", pump);
          return;
        }
      }
      req.end(parts.tail);
    };
    req.write(parts.head);
    pump();
  });
}

/**
 * Sends `raw` (a complete HTTP/1.1 request, headers and body as written) over a TCP socket and
 * returns the first response's status line code and body; the socket is closed after it.
 */
export function sendRaw(base: string, raw: string | Buffer): Promise<RawResponse> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    let data = "";
    let settled = false;
    const finish = () => {
      if (settled) return;
      const end = data.indexOf("\r\n\r\n");
      if (end < 0) return;
      const head = data.slice(0, end);
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0);
      const length = /\r\ncontent-length: *(\d+)/i.exec(head);
      const body = data.slice(end + 4);
      if (length && Buffer.byteLength(body) < Number(length[1])) return;
      settled = true;
      socket.destroy();
      resolve({
        status,
        body: decode(length ? body.slice(0, Number(length[1])) : body),
      });
    };
    socket.setEncoding("utf8");
    socket.on("data", (d: string) => {
      data += d;
      finish();
    });
    socket.on("end", finish);
    socket.on("error", (err) => {
      if (!settled) reject(err);
    });
    socket.on("close", () => {
      if (!settled)
        reject(new Error(`connection closed without a response: ${data.slice(0, 200)}`));
    });
    socket.write(raw);
  });
}
