// Walks the explorer in the system's headless Chromium, following a plan of steps (JSON file in
// argv[2]); prints, per step, what the page shows, how long it took, and what it requested.
import { chromium } from "playwright-core";
import { readFileSync } from "node:fs";

const plan = JSON.parse(readFileSync(process.argv[2], "utf8"));
const browser = await chromium.launch({
  executablePath: plan.chromium,
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  // launch() gives every run a fresh temporary profile (a --user-data-dir of its own).
});

function extract() {
  const view = document.getElementById("view");
  const ks = [...view.querySelectorAll("[data-k]")].map((e) => [e.dataset.k, e.textContent.trim(), e.dataset.v ?? null, e.dataset.n ?? null]);
  const error = view.querySelector("[data-error]");
  return {
    hash: location.hash,
    state: view.dataset.state,
    page: view.dataset.page,
    error: error ? error.dataset.error : null,
    errors: [...view.querySelectorAll("[data-error]")].map((e) => e.dataset.error),
    ks,
    txs: [...view.querySelectorAll("[data-tx]")].map((e) => e.dataset.tx),
    blocks: [...view.querySelectorAll("[data-block]")].map((e) => e.dataset.block),
    tokens: [...view.querySelectorAll("[data-token]")].map((e) => e.dataset.token),
    images: [...view.querySelectorAll(".nft img")].map((img) => img.naturalWidth),
    contracts: [...view.querySelectorAll("[data-contract]")].map((e) => e.dataset.contract),
    chartPoints: [...view.querySelectorAll(".chart")].map((e) => Number(e.dataset.points)),
    values: [...view.querySelectorAll("td[data-ts]")].map((e) => [Number(e.dataset.ts), e.dataset.v]),
    text: view.innerText.slice(0, 3000),
    scrollWidth: document.documentElement.scrollWidth,
    clientWidth: document.documentElement.clientWidth,
  };
}

const settled = (page) => page.waitForFunction(() => {
  const v = document.getElementById("view");
  return v && v.dataset.state !== "loading";
}, null, { timeout: 60000 });

const results = {};
let context = null;
let page = null;
for (const step of plan.steps) {
  if (step.fresh || !page) {
    if (context) await context.close();
    context = await browser.newContext({
      viewport: step.viewport || { width: 1280, height: 900 },
      colorScheme: step.dark ? "dark" : "light",
      deviceScaleFactor: 1,
    });
    page = await context.newPage();
    page.requests = [];
    page.consoleErrors = [];
    page.on("console", (m) => { if (m.type() === "error") page.consoleErrors.push(m.text()); });
    page.on("pageerror", (e) => page.consoleErrors.push(String(e)));
    page.on("requestfinished", async (request) => {
      const sizes = await request.sizes().catch(() => null);
      page.requests.push({ url: request.url(), bytes: sizes ? sizes.responseBodySize + sizes.responseHeadersSize + sizes.requestHeadersSize + sizes.requestBodySize : 0 });
    });
    page.on("requestfailed", (request) => page.requests.push({ url: request.url(), bytes: 0, failed: true }));
  }
  page.requests.length = 0;
  const started = Date.now();
  if (step.url) {
    await page.goto((step.base || plan.base) + step.url);
  } else if (step.click) {
    const before = await page.evaluate(() => location.hash);
    await page.click(step.click);
    await page.waitForFunction((old) => location.hash !== old, before, { timeout: 30000 });
  } else if (step.rpc) {
    // Acts on the node from outside the page (e.g. mines a block), as another client would.
    const body = { jsonrpc: "2.0", id: 1, method: step.rpc.method, params: step.rpc.params };
    await fetch(step.rpc.url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  } else if (step.search) {
    const before = await page.evaluate(() => location.hash);
    await page.fill("#q", step.search);
    await page.press("#q", "Enter");
    await page.waitForFunction((old) => location.hash !== old, before, { timeout: 30000 });
  }
  await page.waitForTimeout(30);
  await settled(page);
  const ms = Date.now() - started;
  if (step.idle) await page.waitForLoadState("networkidle");
  if (step.wait) await page.waitForTimeout(step.wait);
  if (step.images) {
    // Images decode after the page is ready; a broken one stays at width 0 and the test says so.
    await page.waitForFunction(() => [...document.querySelectorAll(".nft img")].every((i) => i.complete && i.naturalWidth > 0), null, { timeout: 30000 }).catch(() => {});
  }
  const script = step.script ? await page.evaluate(step.script) : null;
  if (step.shot) await page.screenshot({ path: `${plan.artifacts}/${step.shot}`, fullPage: true });
  results[step.name] = { ...(await page.evaluate(extract)), ms, script, requests: [...page.requests], consoleErrors: [...page.consoleErrors] };
}
await browser.close();
process.stdout.write(JSON.stringify(results));
