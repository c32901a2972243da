// The explorer's shell: loads config.json and the chain list, routes #/paths to registered
// pages, runs the search box, and turns every failure into a message people can read.

import { Api, ApiError } from "./api.js";
import { showError } from "./errors.js";
import { resolve, search } from "./registry.js";
import "./pages/overview.js";
import "./pages/block.js";
import "./pages/tx.js";
import "./pages/address.js";
import "./pages/contract.js";
import "./pages/metrics.js";
import "./pages/network.js";
import "./pages/validators.js";
import "./pages/primary.js";
import "./pages/search.js";
import "./pages/webhooks.js";

const view = document.getElementById("view");
let current = null; // the ctx of the page on screen; its timers stop when it leaves

async function boot() {
  let config;
  try {
    const response = await fetch("/explorer/config.json");
    config = await response.json();
  } catch {
    config = { dataApi: "", metricsApi: "", rpc: null, apiKey: null };
  }
  const api = new Api(config);
  let chains = [];
  let chainsError = null;
  try {
    chains = (await api.cached("/v1/chains")).chains;
    await api.discoverRpc(chains);
  } catch (err) {
    chainsError = err;
  }
  document.getElementById("key-state").textContent = config.apiKey ? "API key: configured" : "no API key";
  const app = { api, config, chains, chainsError };
  window.addEventListener("hashchange", () => route(app));
  document.getElementById("search").addEventListener("submit", (event) => {
    event.preventDefault();
    onSearch(app, document.getElementById("q").value.trim());
  });
  await route(app);
}

function defaultChain(app) {
  const served = app.chains.find((c) => app.api.rpcUrl(c.chainId));
  return (served || app.chains[0] || {}).chainId;
}

function makeContext(app) {
  const timers = [];
  return {
    ...app,
    chain: defaultChain(app),
    alive: true,
    /** Calls `fn` every `ms` while the page is on screen and the tab visible. */
    every(ms, fn) {
      timers.push(setInterval(() => { if (!document.hidden) fn(); }, ms));
    },
    stop() {
      this.alive = false;
      timers.forEach(clearInterval);
    },
  };
}

async function route(app) {
  const [path, search = ""] = (location.hash.slice(1) || "/").split("?");
  const query = Object.fromEntries(new URLSearchParams(search));
  if (current) current.stop();
  const ctx = makeContext(app);
  current = ctx;
  const found = resolve(path);
  view.dataset.state = "loading";
  view.dataset.page = found ? found.page.name : "missing";
  view.innerHTML = `<div class="loading">Loading…</div>`;
  document.querySelectorAll("[data-nav]").forEach((a) => a.classList.toggle("on", found && a.dataset.nav === found.page.nav));
  try {
    if (!found) throw new ApiError("notfound", `There is no page at #${path}.`);
    if (app.chainsError && found.page.needsChains !== false) throw app.chainsError;
    document.title = `${found.page.title(found.params)} · snowfield explorer`;
    await found.page.render(view, ctx, found.params, query);
    if (current === ctx) view.dataset.state = "ready";
  } catch (err) {
    if (current !== ctx) return;
    console.error(err);
    showError(view, err);
    view.dataset.state = "error";
  }
  window.scrollTo(0, 0);
}

async function onSearch(app, text) {
  if (!text) return;
  const ctx = makeContext(app);
  view.dataset.state = "loading";
  try {
    const target = (await search(text, ctx)) || `#/search/${encodeURIComponent(text)}`;
    if (target === location.hash) await route(app); // no hashchange: show the page again
    else location.hash = target;
  } catch (err) {
    showError(view, err);
    view.dataset.state = "error";
  }
}

boot();
