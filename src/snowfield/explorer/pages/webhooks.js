// Webhooks of the explorer's API key: the list (GET /v1/webhooks) and one webhook with its
// delivery log (our GET /v1/webhooks/{id}/deliveries: status, attempts, latency, the receiver's
// answer), newest block first, paged.

import { ApiError } from "../api.js";
import { blockLink, html, int, utc } from "../fmt.js";
import { pager } from "./parts.js";
import { register } from "../registry.js";

const PAGE = 25;
// What a webhook follows: its addresses (their count), or a validator_activity webhook's key.
const follows = (w) => (w.metadata.addresses ? int(w.metadata.addresses.length) : `${w.metadata.keyType} ${w.metadata.keys[0]}`);
// A P-Chain height (validator_activity) has no block page here: shown plain.
const block = (hook, number) => (hook.eventType === "validator_activity" ? int(number) : blockLink(hook.chainId, number));

register("/webhooks", { name: "webhooks", nav: "webhooks", title: () => "Webhooks", render: renderList });
register("/webhook/:id", { name: "webhook", nav: "webhooks", title: (p) => `Webhook ${p.id}`, render: renderOne });

function needKey(ctx) {
  if (!ctx.api.headers["x-service-api-key"]) {
    throw new ApiError("invalid", "Webhooks belong to an API key: start the explorer's data service with one (serve --explorer-api-key).");
  }
}

async function renderList(view, ctx, _params, query) {
  needKey(ctx);
  const page = await ctx.api.data("/v1/webhooks", { pageSize: PAGE, pageToken: query.page });
  view.innerHTML = String(html`
    <div class="head"><h1>Webhooks</h1></div>
    <section class="panel"><div class="scroll">${page.webhooks.length ? html`<table data-k="webhooks">
      <thead><tr><th>Name</th><th>Chain</th><th>URL</th><th>Status</th><th class="num">Follows</th></tr></thead><tbody>
      ${page.webhooks.map((w) => html`<tr><td><a href="#/webhook/${w.id}" data-k="webhook" data-v="${w.id}">${w.name || w.id}</a></td>
        <td>${w.chainId}</td><td class="mono">${w.url}</td><td>${w.status}</td><td class="num" data-k="follows">${follows(w)}</td></tr>`)}
      </tbody></table>` : html`<div class="empty">No webhooks for this API key</div>`}</div>
      ${pager("#/webhooks", query, page.nextPageToken)}</section>`);
}

const ms = (value) => (value === undefined ? "" : utc(Math.floor(value / 1000)));

async function renderOne(view, ctx, { id }, query) {
  needKey(ctx);
  const [hook, log] = await Promise.all([
    ctx.api.data(`/v1/webhooks/${encodeURIComponent(id)}`),
    ctx.api.data(`/v1/webhooks/${encodeURIComponent(id)}/deliveries`, { pageSize: PAGE, pageToken: query.page }),
  ]);
  const rows = [
    ["Name", hook.name || "—"], ["URL", html`<span class="mono">${hook.url}</span>`], ["Chain", hook.chainId],
    ["Status", html`<span data-k="status">${hook.status}</span>`], ["Event", hook.eventType],
    ["Follows", follows(hook)], ["Created", utc(hook.createdAt)],
  ];
  view.innerHTML = String(html`
    <div class="head"><h1>Webhook ${hook.name || hook.id}</h1></div>
    <section class="panel"><dl class="kv">${rows.map(([k, v]) => html`<dt>${k}</dt><dd>${v}</dd>`)}</dl></section>
    <section class="panel"><header><h2>Delivery log</h2></header><div class="scroll">
      ${log.deliveries.length ? html`<table data-k="deliveries"><thead><tr><th>Message</th><th>Kind</th><th>Block</th>
        <th>Status</th><th class="num">Attempts</th><th class="num">Answer</th><th class="num">Latency</th><th>Delivered</th><th>Next try</th><th>Error</th></tr></thead><tbody>
        ${log.deliveries.map((d) => html`<tr><td class="mono" data-k="delivery" data-v="${d.status}">${d.messageId}</td><td>${d.kind}</td>
          <td>${block(hook, d.blockNumber)}</td><td>${d.status}</td><td class="num">${d.attempts}</td>
          <td class="num">${d.responseStatus ?? ""}</td><td class="num">${d.latencyMs === undefined ? "" : `${d.latencyMs} ms`}</td>
          <td>${ms(d.deliveredAt)}</td><td>${ms(d.nextAttemptAt)}</td><td>${d.error ?? ""}</td></tr>`)}
      </tbody></table>` : html`<div class="empty">Nothing delivered yet</div>`}</div>
      ${pager(`#/webhook/${id}`, query, log.nextPageToken)}</section>`);
}
