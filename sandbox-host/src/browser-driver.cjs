// Driver of the `browser` builtin (docs/sandbox.md#the-browser-builtin). Runs INSIDE the browser
// container (`node -`, this text on stdin followed by `main(<input>)`): Node's playwright-core
// launches Debian's Chromium headless and drives it over CDP. The container has no network: a
// forwarder on 127.0.0.1 passes every connection of Chromium's proxy setting to the host's egress
// proxy through its Unix socket (mounted below /run/skillgate-egress; the input's `egressSocket`
// says where), and Chromium is told to send loopback through the proxy too. Prints one JSON line
// (the result without runId, blocked and durationMs) on stdout.
"use strict";
const net = require("node:net");
const { chromium } = require("/opt/playwright-core");

const CHROMIUM = "/usr/lib/chromium/chromium";
const BLOCKED_HEADER = "x-skillgate-blocked";
// A target the proxy could not reach (not a refusal): the message and its code (egress-proxy.ts).
const UNREACHABLE_HEADER = "x-skillgate-unreachable";
const UNREACHABLE_CODE_HEADER = "x-skillgate-unreachable-code";
const UNREACHABLE_CODES = new Set(["dns_failed", "connect_failed"]);

/** Listens on 127.0.0.1 (a free port) and pipes each connection to the egress socket. */
function startForwarder(egressSocket) {
  return new Promise((resolve, reject) => {
    const server = net.createServer((client) => {
      const upstream = net.connect(egressSocket);
      const end = () => {
        client.destroy();
        upstream.destroy();
      };
      client.on("error", end);
      upstream.on("error", end);
      client.on("close", end);
      upstream.on("close", end);
      client.pipe(upstream);
      upstream.pipe(client);
    });
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve(server));
  });
}

class BrowseFailure extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

function firstLine(err) {
  return String(err?.message || err)
    .split("\n")[0]
    .slice(0, 500);
}

async function main(input) {
  const deadline = Date.now() + input.budgetMs;
  const left = () => Math.max(1, deadline - Date.now());
  const out = {
    status: "ok",
    url: input.url,
    title: "",
    httpStatus: null,
    extract: input.extract,
    truncated: false,
  };
  let browser;
  let page;
  let lastMain = null;
  let step = "browser_failed";
  try {
    const forwarder = await startForwarder(input.egressSocket);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      chromiumSandbox: false,
      timeout: left(),
      args: [
        "--disable-dev-shm-usage",
        "--disable-gpu",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-domain-reliability",
        "--disable-client-side-phishing-detection",
        "--no-pings",
        "--disable-features=OptimizationHints,OptimizationGuideModelDownloading,MediaRouter,Translate,AutofillServerCommunication,CertificateTransparencyComponentUpdater,NetworkTimeServiceQuerying",
        "--component-updater=disable-background-downloads,disable-delta-updates",
      ],
      // playwright-core adds `<-loopback>` to the bypass list, so loopback goes through it too.
      // Only the page's requests answer the proxy's 407 challenge with these credentials, so
      // Chromium's own background requests (component updates, ...) are refused.
      proxy: {
        server: `http://127.0.0.1:${forwarder.address().port}`,
        username: "skillgate",
        password: input.proxyPassword,
      },
    });
    const context = await browser.newContext({
      acceptDownloads: false,
      serviceWorkers: "block",
      viewport: { width: 1280, height: 800 },
    });
    page = await context.newPage();
    page.on("response", (response) => {
      if (response.request().isNavigationRequest() && response.frame() === page.mainFrame())
        lastMain = response;
    });
    const refusedPage = () => {
      const headers = lastMain?.headers() ?? {};
      const reason = headers[BLOCKED_HEADER];
      if (reason)
        throw new BrowseFailure("outbound_blocked", `Outbound request refused: ${reason}`);
      // Only the proxy's own 502 names these codes; anything else is the page's own answer.
      const code = headers[UNREACHABLE_CODE_HEADER];
      if (lastMain?.status() === 502 && UNREACHABLE_CODES.has(code))
        throw new BrowseFailure(
          code,
          headers[UNREACHABLE_HEADER] || "The page could not be reached",
        );
    };
    step = "navigation_failed";
    await page.goto(input.url, { waitUntil: "load", timeout: left() });
    refusedPage();
    step = "action_failed";
    for (const [i, action] of (input.actions || []).entries()) {
      const timeout = left();
      try {
        if ("click" in action) await page.click(action.click, { timeout });
        else if ("fill" in action) await page.fill(action.fill, action.value, { timeout });
        else if ("waitFor" in action)
          await page.waitForSelector(action.waitFor, { state: "visible", timeout });
        else if (action.selector) await page.press(action.selector, action.press, { timeout });
        else await page.keyboard.press(action.press);
      } catch (err) {
        err.message = `action ${i + 1} (${Object.keys(action)[0]}): ${firstLine(err)}`;
        throw err;
      }
    }
    if ((input.actions || []).length > 0) {
      step = "navigation_failed";
      await page.waitForLoadState("load", { timeout: left() });
      refusedPage();
    }
    step = "browser_failed";
    if (input.extract === "screenshot") {
      const png = await page.screenshot({ type: "png", timeout: left() });
      if (png.length > input.maxScreenshotBytes) out.truncated = true;
      else out.screenshot = png.toString("base64");
    } else {
      const content =
        input.extract === "html"
          ? await page.content()
          : // biome-ignore lint/performance/useDomNodeTextContent: the rendered text is wanted (no scripts, styles or hidden elements)
            await page.evaluate(() => (document.body ? document.body.innerText : ""));
      out.truncated = content.length > input.maxChars;
      out[input.extract] = out.truncated ? content.slice(0, input.maxChars) : content;
    }
  } catch (err) {
    if (err instanceof BrowseFailure) {
      out.status = "error";
      out.error = { code: err.code, message: err.message };
    } else if (err?.name === "TimeoutError") {
      out.status = "timeout";
      out.error = { code: "timeout", message: firstLine(err) };
    } else {
      out.status = "error";
      out.error = { code: step, message: firstLine(err) };
    }
  }
  if (page) {
    out.url = page.url() === "about:blank" ? input.url : page.url();
    out.title = await Promise.race([
      page.title().catch(() => ""),
      new Promise((r) => setTimeout(() => r(""), 500)),
    ]);
  }
  if (lastMain) out.httpStatus = lastMain.status();
  process.stdout.write(`${JSON.stringify(out)}\n`, () => process.exit(0));
  if (browser) browser.close().catch(() => {});
}

module.exports = { main };
