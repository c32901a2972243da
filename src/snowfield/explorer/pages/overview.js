// Network overview: the chains and their heads, headline metrics and charts, and the latest
// blocks and transactions, refreshed while the page is open.

import { lineChart } from "../chart.js";
import { addressLink, blockLink, hexToNumber, html, int, methodBadge, number, short, txLink, units, when } from "../fmt.js";
import { register } from "../registry.js";
import { showError } from "../errors.js";

const BLOCKS = 8;
const TXS = 10;
const POLL_MS = 2000;

register("/", { name: "overview", nav: "overview", title: () => "Overview", render });

async function render(view, ctx) {
  const scope = ctx.chains.length > 1 ? "total" : ctx.chain || "total";
  view.innerHTML = String(html`
    <div class="head"><h1>Overview</h1><span class="muted">${ctx.chains.length} chain${ctx.chains.length === 1 ? "" : "s"} indexed</span></div>
    <section class="panel"><header><h2>Chains</h2></header><div class="body chains" id="chains"></div></section>
    <section class="grid g4" id="tiles"></section>
    <section class="grid g2">
      <div class="panel"><header><h2>Transactions per second</h2><span class="muted">hourly average, last 7 days</span></header><div class="body"><div id="tps-chart"></div></div></div>
      <div class="panel"><header><h2>Active addresses</h2><span class="muted">per hour, last 7 days</span></header><div class="body"><div id="addr-chart"></div></div></div>
    </section>
    <section class="grid g2">
      <div class="panel"><header><h2>Latest blocks</h2><span class="muted" id="live"></span></header><div class="scroll" id="blocks"></div></div>
      <div class="panel"><header><h2>Latest transactions</h2></header><div class="scroll" id="txs"></div></div>
    </section>`);
  const $ = (id) => view.querySelector(`#${id}`);
  const chainsPart = async () => {
    const heads = await chainHeads(ctx);
    $("chains").innerHTML = String(html`${ctx.chains.map((c) => chainCard(c, heads.get(c.chainId)))}`);
    await latestPart(ctx, $, heads.get(ctx.chain));
  };
  const results = await Promise.allSettled([metricsPart(ctx, scope, $), chainsPart()]);
  if (results[0].status === "rejected") {
    showError($("tiles"), results[0].reason, "Metrics unavailable");
    for (const id of ["tps-chart", "addr-chart"]) $(id).innerHTML = `<div class="chart"><div class="none">No data: the metrics API failed</div></div>`;
  }
  if (results[1].status === "rejected") showError($("blocks"), results[1].reason, "Latest blocks unavailable");
}

async function chainHeads(ctx) {
  const heads = new Map();
  await Promise.all(ctx.chains.map(async (c) => {
    if (!ctx.api.rpcUrl(c.chainId)) return;
    try { heads.set(c.chainId, hexToNumber(await ctx.api.rpc(c.chainId, "eth_blockNumber"))); } catch { heads.set(c.chainId, null); }
  }));
  return heads;
}

function chainCard(chain, head) {
  const down = head === null || chain.status !== "OK";
  return html`<div class="chain" data-chain="${chain.chainId}">
    <span class="dot ${down ? "down" : ""}" title="${down ? "unreachable" : "up"}"></span>
    <div><div class="name">${chain.chainName}</div>
      <div class="muted">id ${chain.chainId} · ${chain.networkToken.symbol} · ${chain.isTestnet ? "testnet" : "mainnet"}</div></div>
    <div class="head-no">${head === undefined ? html`<span class="muted">no RPC</span>`
      : head === null ? html`<span class="muted">node down</span>`
      : html`<div class="muted">head</div><a data-k="head" data-v="${head}" href="#/chain/${chain.chainId}/block/${head}">#${int(head)}</a>`}</div>
  </div>`;
}

const sum = (points) => points.reduce((total, p) => total + Number(p.value), 0);
const latest = (body) => (body.results[0] ? body.results[0].value : 0);

async function metricsPart(ctx, scope, $) {
  const week = Math.floor(Date.now() / 1000) - 7 * 86400;
  const [txs, addresses, total, today, contracts] = await Promise.all([
    ctx.api.series(scope, "txCount", { timeInterval: "hour", startTimestamp: week }, 1),
    ctx.api.series(scope, "activeAddresses", { timeInterval: "hour", startTimestamp: week }, 1),
    ctx.api.metric(scope, "cumulativeTxCount", { pageSize: 1 }),
    ctx.api.metric(scope, "activeAddresses", { timeInterval: "day", pageSize: 1 }),
    ctx.api.metric(scope, "contracts", { pageSize: 1 }),
  ]);
  const tiles = [
    ["total-txs", "Transactions (all time)", latest(total)],
    ["txs-24h", "Transactions (24 h)", sum(txs.slice(-24))],
    ["active-today", "Active addresses (today)", latest(today)],
    ["contracts-today", "Contracts deployed (today)", latest(contracts)],
  ];
  $("tiles").innerHTML = String(html`${tiles.map(([key, label, value]) => html`
    <div class="panel tile"><div class="label">${label}</div><div class="value" data-k="${key}" data-v="${value}">${number(value)}</div></div>`)}`);
  const domain = [week, Math.floor(Date.now() / 1000)];
  lineChart($("tps-chart"), txs.map((p) => ({ timestamp: p.timestamp, value: p.value / 3600 })), { format: (v) => `${number(v, 4)} tx/s`, domain });
  lineChart($("addr-chart"), addresses, { format: (v) => `${number(v)} addresses`, domain });
}

async function latestPart(ctx, $, head) {
  const chain = ctx.chain;
  if (head === undefined || head === null) {
    const why = head === null ? "the node does not answer" : "no JSON-RPC endpoint is configured";
    $("blocks").innerHTML = String(html`<div class="empty">Latest blocks need the node's JSON-RPC: ${why}.</div>`);
    $("txs").innerHTML = $("blocks").innerHTML;
    return;
  }
  const state = { head: -1, blocks: [], txs: [] };
  const refresh = async () => {
    const now = hexToNumber(await ctx.api.rpc(chain, "eth_blockNumber"));
    if (now === state.head || !ctx.alive) return;
    const from = Math.max(0, now - Math.max(BLOCKS, TXS) + 1, state.head + 1);
    const numbers = [];
    for (let n = now; n >= from; n--) numbers.push(n);
    const headers = await ctx.api.rpcBatch(chain, numbers.map((n) => ["eth_getBlockByNumber", ["0x" + n.toString(16), false]]));
    const fresh = headers.filter(Boolean);
    const txs = await latestTxs(ctx, chain, fresh);
    const first = state.head < 0;
    state.head = now;
    state.blocks = [...fresh, ...state.blocks].slice(0, BLOCKS);
    state.txs = [...txs, ...state.txs].slice(0, TXS);
    if (!ctx.alive) return;
    $("blocks").innerHTML = String(blocksTable(chain, state.blocks, first ? 0 : fresh.length));
    $("txs").innerHTML = String(txsTable(chain, state.txs, first ? 0 : txs.length));
    $("live").textContent = `live · updated ${new Date().toLocaleTimeString()}`;
    const card = $("chains").querySelector(`[data-chain="${chain}"] [data-k=head]`);
    if (card) {
      card.dataset.v = String(now);
      card.textContent = `#${int(now)}`;
      card.href = `#/chain/${chain}/block/${now}`;
    }
  };
  await refresh();
  ctx.every(POLL_MS, () => refresh().catch(() => { $("live").textContent = "live updates paused: node unreachable"; }));
}

/** Transactions of the newest blocks (operation 9), newest first; blocks not yet indexed are skipped. */
async function latestTxs(ctx, chain, headers) {
  const withTxs = headers.filter((b) => b.transactions.length).slice(0, TXS);
  const pages = await Promise.all(withTxs.map((b) =>
    ctx.api.data(`/v1/chains/${chain}/blocks/${hexToNumber(b.number)}/transactions`, { pageSize: 0 }).catch(() => ({ transactions: [] }))));
  return pages.flatMap((page) => [...page.transactions].reverse()).slice(0, TXS);
}

function blocksTable(chain, blocks, freshCount) {
  if (!blocks.length) return html`<div class="empty">No blocks yet</div>`;
  return html`<table><thead><tr><th>Block</th><th>Age</th><th class="num">Txs</th><th class="num hide-sm">Gas used</th><th class="hide-sm">Hash</th></tr></thead><tbody>
    ${blocks.map((b, i) => html`<tr class="${i < freshCount ? "fresh" : ""}" data-block="${hexToNumber(b.number)}">
      <td>${blockLink(chain, hexToNumber(b.number))}</td><td>${when(hexToNumber(b.timestamp))}</td>
      <td class="num">${b.transactions.length}</td><td class="num hide-sm">${int(BigInt(b.gasUsed))}</td>
      <td class="mono hide-sm"><a href="#/chain/${chain}/block/${b.hash}">${short(b.hash)}</a></td></tr>`)}
  </tbody></table>`;
}

function txsTable(chain, txs, freshCount) {
  if (!txs.length) return html`<div class="empty">No transactions in the latest blocks</div>`;
  return html`<table><thead><tr><th>Transaction</th><th>From / To</th><th class="num">Value</th></tr></thead><tbody>
    ${txs.map((t, i) => html`<tr class="${i < freshCount ? "fresh" : ""}" data-tx="${t.txHash}">
      <td><div>${txLink(chain, t.txHash)}</div><div class="sub">${methodBadge(t.method)} ${when(t.blockTimestamp)}</div></td>
      <td><div><span class="muted">From</span> ${addressLink(chain, t.from)}</div><div><span class="muted">To</span> ${addressLink(chain, t.to)}</div></td>
      <td class="num">${units(t.value)}</td></tr>`)}
  </tbody></table>`;
}
