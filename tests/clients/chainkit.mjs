// Drives @avalanche-sdk/chainkit (the official data client, unmodified) against our servers.
// argv[2]: a JSON plan {data, metrics, apiKey?, chainId?, network?, calls: [{fn, args?, pages?}]}.
// `fn` is the client's own path ("data.evm.blocks.get"); `pages: "all"` follows nextPageToken
// through the client's page iterator. Prints one JSON result per call: {ok, value | pages} or
// {ok: false, error: {name, statusCode, message, body}}.
import { Avalanche, HTTPClient } from "@avalanche-sdk/chainkit";

const plan = JSON.parse(process.argv[2]);
const hosts = {
  "data-api.avax.network": plan.data,
  "glacier-api.avax.network": plan.data, // where the client's own hook sends data calls
  "metrics.avax.network": plan.metrics,
};
// The spec spells NFT metadata's indexStatus in lower case ("indexed") where the client's closed
// enum has upper case; the spec wins on the wire, so the fetcher hands the client the upper-case
// spelling of exactly that field (counted per call; every other byte reaches the client as sent).
let translated = 0;
const INDEX_STATUS = /"indexStatus":"([a-z_]+)"/g;
async function fetcher(input, init) {
  const res = await fetch(input, init);
  if (!(res.headers.get("content-type") ?? "").startsWith("application/json")) return res;
  const text = await res.text();
  const body = text.replace(INDEX_STATUS, (_, v) => { translated += 1; return `"indexStatus":"${v.toUpperCase()}"`; });
  return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
}
const httpClient = new HTTPClient({ fetcher });
httpClient.addHook("beforeRequest", (req) => {
  const url = new URL(req.url);
  const target = hosts[url.host];
  if (!target) throw new Error(`a call left for ${url.host}`);
  const headers = new Headers(req.headers);
  // The client hard-codes its operator's header name; the spec names ours x-service-api-key.
  const key = headers.get("x-glacier-api-key");
  if (key) headers.set("x-service-api-key", key);
  return new Request(new URL(url.pathname + url.search, target), {
    method: req.method, headers, body: req.body, duplex: "half", signal: req.signal,
  });
});
const client = new Avalanche({
  apiKey: plan.apiKey,
  chainId: plan.chainId ?? "43112",
  network: plan.network ?? "testnet",
  enableTelemetry: false, // its fire-and-forget request kills Node offline
  retryConfig: { strategy: "none" },
  httpClient,
});

function resolve(path) {
  let owner = client;
  const names = path.split(".");
  for (const name of names.slice(0, -1)) owner = owner[name];
  const fn = owner?.[names.at(-1)];
  if (typeof fn !== "function") throw new Error(`the client has no function ${path}`);
  return fn.bind(owner);
}

function failure(e) {
  return {
    ok: false,
    error: { name: e?.constructor?.name ?? "Error", statusCode: e?.statusCode,
      message: String(e?.message ?? e), body: e?.body,
      issues: e?.pretty ? e.pretty().slice(0, 4000) : undefined },
  };
}

const results = [];
for (const call of plan.calls) {
  translated = 0;
  try {
    const fn = resolve(call.fn);
    const value = await (call.args === undefined ? fn() : fn(call.args));
    if (call.pages === "all" && value && typeof value.next === "function") {
      const pages = [];
      for await (const page of value) {
        pages.push(page.result);
        if (pages.length > (call.maxPages ?? 1000)) throw new Error("too many pages");
      }
      results.push({ ok: true, pages, translated });
    } else {
      results.push({ ok: true, value: value && value.result !== undefined ? value.result : value ?? null, translated });
    }
  } catch (e) {
    results.push(failure(e));
  }
}
process.stdout.write(JSON.stringify(results));
