// P- and X-Chain addresses and transactions (an X-Chain tx names its block `blockHeight`, its
// time `timestamp`, what it created `amountCreated`): an address's balances (unlocked, locked, staked per
// asset), its UTXOs and its transactions; a transaction's inputs, outputs, fee, memo and its
// type's fields. All from the data API's primary-network operations (balances, utxos,
// transactions); a chain the deployment does not index says so in its part of the page.

import { ApiError } from "../api.js";
import { partError } from "../errors.js";
import { html, int, short, units, when } from "../fmt.js";
import { pager, tabs } from "./parts.js";
import { register, registerSearch } from "../registry.js";

const PAGE = 25;
const CHAINS = { p: "p-chain", x: "x-chain" };
const KINDS = [
  ["unlockedUnstaked", "Unlocked"], ["unlockedStaked", "Staked"], ["lockedPlatform", "Locked"],
  ["lockedStakeable", "Locked, stakeable"], ["lockedStaked", "Locked and staked"],
  ["pendingStaked", "Staking soon"], ["atomicMemoryUnlocked", "In atomic memory"],
  ["atomicMemoryLocked", "In atomic memory, locked"], ["locked", "Locked"], ["unlocked", "Unlocked"],
];
// The network the explorer's chains are on (a devnet answers as the test network).
const network = (ctx) => (ctx.chains.length && ctx.chains.every((c) => c.isTestnet) ? "fuji" : "mainnet");
const base = (ctx, chain) => `/v1/networks/${network(ctx)}/blockchains/${CHAINS[chain]}`;
const part = (pending) => pending.then((body) => ({ body }), (err) => ({ err }));
const avax = (amount, asset) => (asset && asset.symbol === "AVAX" ? `${units(amount, 9)} AVAX` : `${int(amount)} ${asset ? asset.symbol || short(asset.assetId) : ""}`);

register("/primary/:chain/address/:address", { name: "primary-address", needsChains: false, title: (p) => `${p.chain.toUpperCase()}-Chain address ${short(p.address, 14, 6)}`, render: renderAddress });
register("/primary/:chain/tx/:id", { name: "primary-tx", needsChains: false, title: (p) => `${p.chain.toUpperCase()}-Chain transaction ${short(p.id, 10, 6)}`, render: renderTx });

/** `P-…` / `X-…` addresses lead to their page. */
registerSearch((text) => {
  const hit = /^([PXpx])-([a-z]{1,83}1[02-9ac-hj-np-z]{38})$/.exec(text);
  return hit ? `#/primary/${hit[1].toLowerCase()}/address/${hit[1].toUpperCase()}-${hit[2]}` : null;
});

function chainOf(chain) {
  if (!CHAINS[chain]) throw new ApiError("invalid", `${chain} is not a primary network chain (p or x)`);
  return chain;
}

export const addressLink = (chain, address) => {
  const full = /^[PX]-/.test(address) ? address : `${chain.toUpperCase()}-${address}`;
  return html`<a class="mono" href="#/primary/${chain}/address/${full}">${short(full, 16, 6)}</a>`;
};
export const txLink = (chain, id) => html`<a class="mono" href="#/primary/${chain}/tx/${id}" data-k="p-tx" data-v="${id}">${short(id, 10, 6)}</a>`;

function balanceList(body) {
  const rows = KINDS.flatMap(([kind, label]) => (body.balances[kind] || []).map((a) => ({ label, kind, a })));
  if (!rows.length) return html`<p class="muted" data-k="no-balance">No balance.</p>`;
  return html`<table><thead><tr><th>Kind</th><th>Asset</th><th class="num">Amount</th><th class="num">UTXOs</th></tr></thead><tbody>
    ${rows.map(({ label, kind, a }) => html`<tr data-k="balance" data-v="${kind}:${a.amount}"><td>${label}</td><td>${a.symbol || short(a.assetId)}</td><td class="num">${avax(a.amount, a)}</td><td class="num">${a.utxoCount}</td></tr>`)}
  </tbody></table>`;
}

function utxoTable(chain, utxos) {
  if (!utxos.length) return html`<p class="muted">No UTXOs.</p>`;
  return html`<table><thead><tr><th>UTXO</th><th>Created by</th><th>Kind</th><th class="num">Amount</th><th>When</th></tr></thead><tbody>
    ${utxos.map((u) => html`<tr data-k="utxo" data-v="${u.utxoId}"><td class="mono">${short(u.utxoId, 10, 6)}</td><td>${txLink(chain, u.txHash)}</td>
      <td>${u.utxoType}${u.consumingTxHash ? html` · spent in ${txLink(chain, u.consumingTxHash)}` : ""}</td>
      <td class="num">${avax(u.asset.amount, u.asset)}</td><td>${when(u.blockTimestamp)}</td></tr>`)}
  </tbody></table>`;
}

function txTable(chain, txs) {
  if (!txs.length) return html`<p class="muted">No transactions.</p>`;
  return html`<table><thead><tr><th>Transaction</th><th>Type</th><th>Block</th><th class="num">Value</th><th>When</th></tr></thead><tbody>
    ${txs.map((t) => html`<tr><td>${txLink(chain, t.txHash)}</td><td data-k="p-tx-type">${t.txType}</td><td>${t.blockNumber ?? t.blockHeight ?? ""}</td>
      <td class="num">${(t.value || t.amountCreated || []).map((a) => avax(a.amount, a)).join(", ")}</td><td>${when(t.blockTimestamp ?? t.timestamp)}</td></tr>`)}
  </tbody></table>`;
}

async function renderAddress(view, ctx, { chain, address }, query) {
  chainOf(chain);
  const tab = query.tab === "utxos" ? "utxos" : "txs";
  const root = base(ctx, chain);
  const [balances, list] = await Promise.all([
    part(ctx.api.data(`${root}/balances`, { addresses: address })),
    part(ctx.api.data(`${root}/${tab === "utxos" ? "utxos" : "transactions"}`, { addresses: address, pageSize: PAGE, pageToken: query.page, ...(tab === "utxos" ? { includeSpent: "true" } : {}) })),
  ]);
  const here = `#/primary/${chain}/address/${address}`;
  view.innerHTML = String(html`
    <div class="head"><h1>${chain.toUpperCase()}-Chain address</h1><span class="mono" data-k="p-address">${address}</span></div>
    <section class="panel" data-k="p-balances"><header><h2>Balances</h2><span class="muted">from the index</span></header>
      <div class="body">${balances.err ? partError(balances.err, "Balances") : balanceList(balances.body)}</div></section>
    <section class="panel">${tabs(here, [["txs", "Transactions"], ["utxos", "UTXOs"]], tab)}
      <div class="body">${list.err ? partError(list.err, tab === "utxos" ? "UTXOs" : "Transactions")
        : tab === "utxos" ? utxoTable(chain, list.body.utxos) : txTable(chain, list.body.transactions)}
      ${list.body ? pager(here, query, list.body.nextPageToken) : ""}</div></section>`);
}

function utxoRows(chain, utxos, me) {
  return utxos.map((u) => html`<tr data-k="p-utxo-row"><td>${u.addresses.map((a) => addressLink(chain, a))}</td><td class="num">${avax(u.asset.amount, u.asset)}</td>
    <td>${u.staked ? "staked" : u.utxoType}${u.createdOnChainId !== u.consumedOnChainId ? " · cross-chain" : ""}</td></tr>`);
}

const FIELDS = ["sourceChain", "destinationChain", "nodeId", "subnetId", "startTimestamp", "endTimestamp", "delegationFeePercent", "estimatedReward", "rewardTxHash", "stakingTxHash"];

async function renderTx(view, ctx, { chain, id }) {
  chainOf(chain);
  const tx = await ctx.api.data(`${base(ctx, chain)}/transactions/${id}`);
  const burned = (tx.amountBurned || []).map((a) => avax(a.amount, a)).join(", ") || "0";
  view.innerHTML = String(html`
    <div class="head"><h1>${chain.toUpperCase()}-Chain transaction</h1><span class="mono" data-k="p-tx-id">${tx.txHash}</span><span class="badge" data-k="p-tx-kind">${tx.txType}</span></div>
    <section class="panel"><dl class="kv">
      <dt>Block</dt><dd data-k="p-tx-block">${tx.blockNumber} · <span class="mono">${short(tx.blockHash, 10, 6)}</span></dd>
      <dt>When</dt><dd>${when(tx.blockTimestamp)}</dd>
      <dt>Fee burned</dt><dd data-k="p-tx-fee">${burned}</dd>
      <dt>Staked</dt><dd>${(tx.amountStaked || []).map((a) => avax(a.amount, a)).join(", ") || "—"}</dd>
      ${tx.memo ? html`<dt>Memo</dt><dd data-k="p-tx-memo">${tx.memo}</dd>` : ""}
      ${FIELDS.filter((k) => tx[k] !== undefined).map((k) => html`<dt>${k}</dt><dd class="mono" data-k="p-field" data-v="${k}">${k.endsWith("TxHash") ? txLink(chain, tx[k]) : tx[k]}</dd>`)}
    </dl></section>
    <section class="grid g2">
      <div class="panel"><header><h2>Inputs</h2><span class="muted">${tx.consumedUtxos.length} consumed</span></header>
        <div class="body"><table><tbody data-k="p-inputs" data-v="${tx.consumedUtxos.length}">${utxoRows(chain, tx.consumedUtxos)}</tbody></table></div></div>
      <div class="panel"><header><h2>Outputs</h2><span class="muted">${tx.emittedUtxos.length} emitted</span></header>
        <div class="body"><table><tbody data-k="p-outputs" data-v="${tx.emittedUtxos.length}">${utxoRows(chain, tx.emittedUtxos)}</tbody></table></div></div>
    </section>`);
}
