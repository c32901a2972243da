// The metrics dashboard: any metric of operation 17 (and the ICM message counts), any interval
// it supports, any chain or aggregate, over a time range; every page of the series (up to
// 10 × 2,160 points) is charted. It opens on the chain's activity: from the first day with a
// transaction (a devnet's genesis may be years before it: all of that would be zeros).

import { lineChart } from "../chart.js";
import { gwei, html, number, units, utc } from "../fmt.js";
import { register } from "../registry.js";

register("/metrics", { name: "metrics", nav: "metrics", title: () => "Metrics", render });

const ALL = ["hour", "day", "week", "month"];
// The spec's 17 metrics; four of them support every interval, the rest only day.
export const METRICS = {
  activeAddresses: { label: "Active addresses", intervals: ALL },
  activeSenders: { label: "Active senders", intervals: ALL },
  txCount: { label: "Transactions", intervals: ALL },
  gasUsed: { label: "Gas used", intervals: ALL },
  cumulativeTxCount: { label: "Cumulative transactions" },
  cumulativeAddresses: { label: "Cumulative addresses" },
  cumulativeContracts: { label: "Cumulative contracts" },
  cumulativeDeployers: { label: "Cumulative deployers" },
  contracts: { label: "Contracts deployed" },
  deployers: { label: "Deployers" },
  avgTps: { label: "Average TPS" },
  maxTps: { label: "Max TPS" },
  avgGps: { label: "Average gas per second" },
  maxGps: { label: "Max gas per second" },
  avgGasPrice: { label: "Average gas price", format: (v) => gwei(BigInt(Math.round(v))) },
  maxGasPrice: { label: "Max gas price", format: (v) => gwei(BigInt(Math.round(v))) },
  feesPaid: { label: "Fees paid", format: (v) => units(BigInt(Math.round(v)), 18, 6) },
  // Not a chain metric: /v2/icm/timeseries, over the network the chain choice names.
  icmMessages: { label: "ICM messages", intervals: ALL, icm: true },
  // The primary network's stakers per day (/v2/networks/{network}/metrics/{metric}): mainnet
  // when the chain choice is mainnet, else the test network.
  validatorCount: { label: "Validators (primary network)", staking: true },
  validatorWeight: { label: "Validator weight (primary network)", staking: true, format: (v) => units(BigInt(Math.round(v)), 9, 2) },
  delegatorCount: { label: "Delegators (primary network)", staking: true },
  delegatorWeight: { label: "Delegator weight (primary network)", staking: true, format: (v) => units(BigInt(Math.round(v)), 9, 2) },
};
const RANGES = { activity: null, "24h": 86400, "7d": 7 * 86400, "30d": 30 * 86400, "90d": 90 * 86400, "1y": 365 * 86400, all: null, custom: null };
const MAX_PAGES = 10;

function choices(ctx, query) {
  const metric = METRICS[query.metric] ? query.metric : "txCount";
  const intervals = METRICS[metric].intervals || ["day"];
  const interval = intervals.includes(query.interval) ? query.interval : intervals.includes("hour") && !query.interval ? "hour" : "day";
  const chain = query.chain || (ctx.chains.length > 1 ? "total" : String(ctx.chain || "total"));
  const range = RANGES[query.range] !== undefined ? query.range : "activity";
  return { metric, interval, chain, range, intervals };
}

async function window(ctx, choice, query) {
  const now = Math.floor(Date.now() / 1000);
  if (choice.range === "activity") {
    const first = await ctx.api.firstActivity(choice.chain);
    return { startTimestamp: first === null ? now - RANGES["24h"] : first };
  }
  if (choice.range === "custom") {
    const at = (v) => (v ? Math.floor(Date.parse(v + "Z") / 1000) : undefined);
    return { startTimestamp: at(query.from), endTimestamp: at(query.to) };
  }
  return RANGES[choice.range] ? { startTimestamp: now - RANGES[choice.range] } : {};
}

// The ICM counts are per network, not per chain: a chain's own network stands for it.
function icmFilter(chain) {
  return chain === "mainnet" || chain === "testnet" ? { network: chain } : {};
}

// Staking series are daily (no timeInterval parameter); the range applies as for the others.
function stakingRange(range) {
  const { timeInterval: _ignored, ...rest } = range;
  return rest;
}

async function render(view, ctx, _params, query) {
  const choice = choices(ctx, query);
  const chains = [["total", "All chains (total)"], ["mainnet", "Mainnet chains"], ["testnet", "Test networks"],
    ...ctx.chains.map((c) => [c.chainId, `${c.chainName} (${c.chainId})`])];
  const option = (value, label, selected) => html`<option value="${value}" ${String(value) === String(selected) ? html`selected` : ""}>${label}</option>`;
  view.innerHTML = String(html`
    <div class="head"><h1>Metrics</h1><span class="muted">the metrics API</span></div>
    <section class="panel"><div class="body"><form class="controls" id="controls">
      <label>Metric<select name="metric">${Object.entries(METRICS).map(([k, m]) => option(k, m.label, choice.metric))}</select></label>
      <label>Interval<select name="interval">${choice.intervals.map((i) => option(i, i, choice.interval))}</select></label>
      <label>Chain<select name="chain">${chains.map(([v, l]) => option(v, l, choice.chain))}</select></label>
      <label>Range<select name="range">${Object.keys(RANGES).map((r) => option(r, r, choice.range))}</select></label>
      <label>From (UTC)<input type="datetime-local" name="from" value="${query.from || ""}" ${choice.range === "custom" ? "" : html`disabled`}></label>
      <label>To (UTC)<input type="datetime-local" name="to" value="${query.to || ""}" ${choice.range === "custom" ? "" : html`disabled`}></label>
    </form></div></section>
    <section class="panel"><header><h2>${METRICS[choice.metric].label}</h2><span class="muted" data-k="series">${choice.metric} · ${choice.interval} · ${choice.chain}</span></header>
      <div class="body"><div class="stats" id="stats"></div><div id="chart"></div></div></section>
    <section class="panel"><header><h2>Values</h2><span class="muted">newest first</span></header><div class="scroll" id="table" style="max-height:420px"></div></section>`);
  const form = view.querySelector("#controls");
  form.addEventListener("change", () => {
    const values = Object.fromEntries([...new FormData(form)].filter(([, v]) => v !== ""));
    location.hash = `#/metrics?${new URLSearchParams(values)}`;
  });
  const range = { timeInterval: choice.interval, ...(await window(ctx, choice, query)) };
  const kind = METRICS[choice.metric];
  const points = kind.icm
    ? await ctx.api.icmSeries({ ...range, ...icmFilter(choice.chain) }, MAX_PAGES)
    : kind.staking
      ? await ctx.api.stakingSeries(choice.chain === "mainnet" ? "mainnet" : "fuji", choice.metric, stakingRange(range), MAX_PAGES)
      : await ctx.api.series(choice.chain, choice.metric, range, MAX_PAGES);
  const format = METRICS[choice.metric].format || ((v) => number(v, 4));
  const values = points.map((p) => Number(p.value));
  const stats = points.length ? [
    ["latest", "Latest", format(points[points.length - 1].value)],
    ["min", "Min", format(Math.min(...values))],
    ["max", "Max", format(Math.max(...values))],
    ["points", "Points", number(points.length)],
  ] : [["points", "Points", "0"]];
  view.querySelector("#stats").innerHTML = String(html`${stats.map(([k, label, v]) => html`<div><span>${label}</span><b data-k="${k}">${v}</b></div>`)}`);
  lineChart(view.querySelector("#chart"), points, { format });
  const newest = points.slice(-500).reverse();
  view.querySelector("#table").innerHTML = String(points.length ? html`<table data-k="values"><thead><tr><th>Bucket start (UTC)</th><th class="num">Value</th></tr></thead><tbody>
    ${newest.map((p) => html`<tr><td>${utc(p.timestamp)}</td><td class="num" data-ts="${p.timestamp}" data-v="${p.value}">${format(p.value)}</td></tr>`)}</tbody></table>`
    : html`<div class="empty">No data in this range</div>`);
}
