/**
 * The `browser` builtin end to end: the API's handler → the signed client → a real sandbox host →
 * a real browser container (the local image `skillgate-local/browser`, `npm run sandbox:images`)
 * → the host's egress proxy → pages served by this test on 127.0.0.1
 * (docs/sandbox.md#the-browser-builtin). One loopback port (the site) is allowed through
 * `SANDBOX_BROWSER_ALLOW_LOOPBACK_PORTS`; a second local server stands for a private service and
 * must never receive a request.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseConfig } from "../../workers/src/config.js";
import {
  type BrowserOutput,
  browserDefinitions,
  createBrowserHandlers,
} from "../../workers/src/skills/builtins/browser.js";
import type { BuiltinEnv } from "../../workers/src/skills/builtins/types.js";
import { startTestApp } from "../support/app.js";
import { expectFailure, fakeContext, fakeSkill } from "../support/fakes/handler-context.js";
import { docker, requireDocker, SKIP_DOCKER, startTestHost, type TestHost } from "./helpers.js";

const BROWSER_IMAGE = "skillgate-local/browser:latest";

interface LocalServer {
  server: Server;
  port: number;
  /** Request paths received, in order. */
  hits: string[];
}

async function serve(
  handle: (req: IncomingMessage, res: ServerResponse, port: number) => void,
): Promise<LocalServer> {
  const hits: string[] = [];
  let port = 0;
  const server = createServer((req, res) => {
    hits.push(req.url ?? "");
    handle(req, res, port);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  port = (server.address() as AddressInfo).port;
  return { server, port, hits };
}

const html = (res: ServerResponse, body: string, status = 200) => {
  res.writeHead(status, { "content-type": "text/html; charset=utf-8" });
  res.end(body);
};

describe.skipIf(SKIP_DOCKER)("browser builtin against a real sandbox host", () => {
  let t: TestHost;
  let site: LocalServer;
  let internal: LocalServer;
  let browse: (input: unknown, timeoutMs?: number) => Promise<unknown>;

  beforeAll(async () => {
    await requireDocker();
    try {
      await docker.getImage(BROWSER_IMAGE).inspect();
    } catch {
      throw new Error(`Image ${BROWSER_IMAGE} is missing; run \`npm run sandbox:images\``);
    }
    internal = await serve((_req, res) => html(res, "<title>internal</title>secret"));
    site = await serve((req, res, port) => {
      const url = new URL(req.url ?? "/", `http://127.0.0.1:${port}`);
      switch (url.pathname) {
        case "/text":
          return html(
            res,
            `<title>Text page</title><h1>Hello browser</h1><p>Second paragraph</p>
             <script>const p = document.createElement("p"); p.textContent = "Written by script"; document.body.append(p);</script>`,
          );
        case "/form":
          return html(
            res,
            `<title>Search</title><form action="/result" method="get">
               <input id="q" name="q"><button id="go" type="submit">Go</button></form>`,
          );
        case "/result":
          return html(
            res,
            `<title>Result</title><p id="out">You searched: ${url.searchParams.get("q") ?? ""}</p>`,
          );
        case "/to-metadata":
          res.writeHead(302, { location: "http://169.254.169.254/latest/meta-data/" });
          return res.end();
        case "/to-internal":
          res.writeHead(302, { location: `http://127.0.0.1:${internal.port}/admin` });
          return res.end();
        case "/image":
          return html(
            res,
            `<title>Image page</title><p>Picture below</p>
             <img src="http://127.0.0.1:${internal.port}/pixel.png">
             <img src="http://10.0.0.1/tracker.gif">`,
          );
        case "/slow":
          // The page's image never answers, so the load event never fires.
          return html(res, `<title>Slow</title><p>waiting</p><img src="/never">`);
        case "/never":
          return; // no answer at all
        default:
          return html(res, "not found", 404);
      }
    });
    t = await startTestHost("browser", {
      SANDBOX_BROWSER_ALLOW_LOOPBACK_PORTS: String(site.port),
    });
    const deps = { config: parseConfig({}), sandbox: t.client } as unknown as BuiltinEnv;
    const handler = createBrowserHandlers(deps).browser!;
    const skill = fakeSkill({ id: "builtin-browser", name: "browser", policy: "manual" });
    browse = (input, timeoutMs = 45_000) => handler(input, fakeContext(null, { skill, timeoutMs }));
  }, 60_000);

  afterAll(async () => {
    site?.server.closeAllConnections();
    site?.server.close();
    internal?.server.close();
    if (!t) return;
    await t.close();
    expect(await t.containers()).toEqual([]);
  });

  const page = (path: string) => `http://127.0.0.1:${site.port}${path}`;

  it("is declared disabled: mode off, policy manual", () => {
    expect(browserDefinitions[0]).toMatchObject({
      name: "browser",
      enabled: false,
      mode: "off",
      policy: "manual",
    });
  });

  it("through the API: seeded disabled (409 skill_disabled), runs once an operator enables it", async () => {
    const app = await startTestApp({ deps: { sandbox: t.client } });
    try {
      const listed = await app.api.get("/api/skills?source=builtin");
      const seeded = listed.body.data.find((s: { name: string }) => s.name === "browser");
      expect(seeded).toMatchObject({ enabled: false, mode: "off", policy: "manual" });
      const call = () =>
        app.api.post("/api/skills/executions", {
          skillName: "browser",
          input: { url: page("/text") },
        });
      const refused = await call();
      expect(refused.status).toBe(409);
      expect(refused.body.error.code).toBe("skill_disabled");
      const enabled = await app.api.put(`/api/skills/${seeded.id}`, { enabled: true });
      expect(enabled.status).toBe(200);
      const ran = await call();
      expect(ran.body.execution).toMatchObject({
        status: "success",
        output: { title: "Text page", url: page("/text"), truncated: false },
      });
      expect(ran.body.execution.output.text).toContain("Hello browser");
    } finally {
      await app.close();
    }
  }, 60_000);

  it("returns the final URL, title and the rendered text of a page", async () => {
    const out = (await browse({ url: page("/text") })) as BrowserOutput;
    expect(out.url).toBe(page("/text"));
    expect(out.title).toBe("Text page");
    expect(out.httpStatus).toBe(200);
    expect(out.text).toContain("Hello browser");
    expect(out.text).toContain("Second paragraph");
    expect(out.text).toContain("Written by script");
    expect(out.truncated).toBe(false);
    expect(out.blocked).toEqual([]);
  }, 60_000);

  it("fills and submits a form, then reads the result page", async () => {
    const out = (await browse({
      url: page("/form"),
      actions: [{ fill: "#q", value: "sandboxed chromium" }, { click: "#go" }, { waitFor: "#out" }],
    })) as BrowserOutput;
    expect(out.url).toBe(page("/result?q=sandboxed+chromium"));
    expect(out.title).toBe("Result");
    expect(out.text).toContain("You searched: sandboxed chromium");
    expect(site.hits).toContain("/result?q=sandboxed+chromium");
  }, 60_000);

  it("returns HTML and a PNG screenshot when asked", async () => {
    const h = (await browse({ url: page("/text"), extract: "html" })) as BrowserOutput;
    expect(h.html).toContain("<h1>Hello browser</h1>");
    expect(h.text).toBeUndefined();
    const s = (await browse({ url: page("/text"), extract: "screenshot" })) as BrowserOutput;
    const png = Buffer.from(s.screenshot ?? "", "base64");
    expect(png.subarray(0, 8)).toEqual(
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    );
    expect(png.length).toBeGreaterThan(1000);
  }, 90_000);

  it("refuses a redirect to the metadata address", async () => {
    const err = await expectFailure(browse({ url: page("/to-metadata") }));
    expect(err.code).toBe("outbound_blocked");
    expect(err.message).toContain("169.254.169.254");
    const out = err.output as BrowserOutput;
    expect(out.blocked.map((b) => b.target)).toContain("http://169.254.169.254/latest/meta-data/");
  }, 60_000);

  it("refuses a redirect to a loopback port that is not allowed; the target gets no request", async () => {
    const before = internal.hits.length;
    const err = await expectFailure(browse({ url: page("/to-internal") }));
    expect(err.code).toBe("outbound_blocked");
    expect((err.output as BrowserOutput).blocked[0]?.reason).toContain("loopback");
    expect(internal.hits.length).toBe(before);
  }, 60_000);

  it("loads a page but refuses its private-address images; the private server gets no request", async () => {
    const before = internal.hits.length;
    const out = (await browse({ url: page("/image") })) as BrowserOutput;
    expect(out.title).toBe("Image page");
    expect(out.text).toContain("Picture below");
    const targets = out.blocked.map((b) => b.target);
    expect(targets).toContain(`http://127.0.0.1:${internal.port}/pixel.png`);
    expect(targets).toContain("http://10.0.0.1/tracker.gif");
    expect(internal.hits.length).toBe(before);
  }, 60_000);

  it("refuses a private page URL without starting a browser", async () => {
    const before = internal.hits.length;
    const err = await expectFailure(browse({ url: `http://127.0.0.1:${internal.port}/` }));
    expect(err.code).toBe("outbound_blocked");
    expect((err.output as BrowserOutput).durationMs).toBe(0);
    expect(internal.hits.length).toBe(before);
  }, 30_000);

  it("ends a page that never finishes loading with a timeout, container removed", async () => {
    const err = await expectFailure(browse({ url: page("/slow"), timeoutMs: 6_000 }, 6_000));
    expect(err.status).toBe("timeout");
    expect(err.code).toBe("timeout");
    expect(site.hits).toContain("/never");
    expect(await t.containers()).toEqual([]);
  }, 60_000);

  it("refuses bad input with invalid_input before or at the host", async () => {
    const local = await expectFailure(browse({ url: page("/text"), actions: [{ hover: "#x" }] }));
    expect(local.code).toBe("invalid_input");
    const scheme = await expectFailure(browse({ url: "file:///etc/passwd" }));
    expect(scheme.code).toBe("invalid_input");
    expect(scheme.message).toContain("file:");
  }, 30_000);
});
