// The P-Chain's validators: the network's totals (getNetworkDetails), the validators by status
// (listValidators, paged) and one node's validations with its delegators (getSingleValidator-
// Details, listDelegators). Everything from the data API.

import { ApiError } from "../api.js";
import { html, int, number, units, utc } from "../fmt.js";
import { pager } from "./parts.js";
import { register } from "../registry.js";

const PAGE = 25;
const STATUSES = ["active", "pending", "completed", "removed"];
const network = (ctx) => (ctx.chains.length && ctx.chains.every((c) => c.isTestnet) ? "fuji" : "mainnet");
const avax = (nano) => `${units(nano, 9, 4)} AVAX`;
const nodeLink = (id) => html`<a class="mono" href="#/validator/${id}" data-k="validator-link">${id}</a>`;

function rewardOf(v) {
  const r = v.potentialRewards || v.rewards;
  return r ? avax(BigInt(r.validationRewardAmount) + BigInt(r.delegationRewardAmount)) : "—";
}

function row(v) {
  return html`<tr data-k="validator" data-tx="${v.txHash}">
    <td>${nodeLink(v.nodeId)}</td><td><span class="badge" data-k="status">${v.validationStatus}</span></td>
    <td data-k="stake">${avax(v.amountStaked)}</td><td>${v.delegatorCount ?? "—"}</td>
    <td data-k="uptime">${v.uptimePerformance === undefined ? "—" : `${number(v.uptimePerformance)}%`}</td>
    <td>${v.delegationFee === undefined ? "—" : `${v.delegationFee}%`}</td>
    <td>${v.delegationCapacity === undefined ? "—" : avax(v.delegationCapacity)}</td>
    <td data-k="reward">${rewardOf(v)}</td><td>${utc(v.endTimestamp)}</td></tr>`;
}

function table(validators) {
  if (!validators.length) return html`<p class="empty">No validators.</p>`;
  return html`<table class="list"><thead><tr><th>Node</th><th>Status</th><th>Stake</th><th>Delegators</th>
    <th>Uptime</th><th>Fee</th><th>Capacity</th><th>Reward</th><th>Ends</th></tr></thead>
    <tbody>${validators.map(row)}</tbody></table>`;
}

register("/validators", {
  name: "validators",
  nav: "validators",
  needsChains: false,
  title: () => "Validators",
  async render(view, ctx, _params, query) {
    const net = network(ctx);
    const status = STATUSES.includes(query.status) ? query.status : "active";
    const [details, page] = await Promise.all([
      ctx.api.data(`/v1/networks/${net}`),
      ctx.api.data(`/v1/networks/${net}/validators`, { validationStatus: status, pageSize: PAGE, pageToken: query.page }),
    ]);
    const v = details.validatorDetails;
    const d = details.delegatorDetails;
    view.innerHTML = String(html`<div class="head"><h1>Validators</h1><span>${net}</span></div>
      <section class="panel"><dl class="kv" data-k="totals">
        <dt>Validators</dt><dd data-k="validator-count">${int(v.validatorCount)}</dd>
        <dt>Staked by validators</dt><dd>${avax(v.totalAmountStaked)}</dd>
        <dt>Delegators</dt><dd data-k="delegator-count">${int(d.delegatorCount)}</dd>
        <dt>Delegated</dt><dd>${avax(d.totalAmountStaked)}</dd>
        <dt>Potential rewards</dt><dd>${avax(v.estimatedAnnualStakingReward)}</dd>
        <dt>Staking ratio</dt><dd>${number(Number(v.stakingRatio) * 100)}%</dd></dl></section>
      <nav class="tabs">${STATUSES.map((s) => html`<a href="#/validators?status=${s}" data-tab="${s}" class="${s === status ? "on" : ""}">${s}</a>`)}</nav>
      <section class="panel">${table(page.validators)}${pager("#/validators", query, page.nextPageToken)}</section>`);
  },
});

register("/validator/:id", {
  name: "validator",
  nav: "validators",
  needsChains: false,
  title: (p) => `Validator ${p.id}`,
  async render(view, ctx, { id }, query) {
    if (!/^NodeID-[1-9A-HJ-NP-Za-km-z]{20,60}$/.test(id)) throw new ApiError("invalid", `${id} is not a node id`);
    const net = network(ctx);
    const [mine, delegators] = await Promise.all([
      ctx.api.data(`/v1/networks/${net}/validators/${id}`, { pageSize: PAGE, pageToken: query.page }),
      ctx.api.data(`/v1/networks/${net}/delegators`, { nodeIds: id, pageSize: PAGE }),
    ]);
    if (!mine.validators.length) throw new ApiError("notfound", `${id} has no validation in the index.`);
    view.innerHTML = String(html`<div class="head"><h1>Validator</h1><span class="mono">${id}</span></div>
      <section class="panel"><h2>Validations</h2>${table(mine.validators)}${pager(`#/validator/${id}`, query, mine.nextPageToken)}</section>
      <section class="panel"><h2>Delegators</h2>${delegators.delegators.length ? html`<table class="list" data-k="delegators">
        <thead><tr><th>Tx</th><th>Status</th><th>Delegated</th><th>Reward (net)</th><th>Ends</th></tr></thead>
        <tbody>${delegators.delegators.map((x) => html`<tr data-k="delegator"><td class="mono">${x.txHash}</td>
          <td>${x.delegationStatus}</td><td>${avax(x.amountDelegated)}</td>
          <td>${avax(x.netReward ?? x.estimatedNetReward)}</td><td>${utc(x.endTimestamp)}</td></tr>`)}</tbody></table>`
        : html`<p class="empty">No delegators.</p>`}</section>`);
  },
});
