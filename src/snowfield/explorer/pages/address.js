// An address: its native balance and token balances (the balance operations: getNative,
// listErc20, listErc721, listErc1155, all from the index), and tabs over operations 5, 6, 7, 8,
// 10 and 16 (its cross-chain messages, on every indexed chain).

import { ApiError } from "../api.js";
import { partError } from "../errors.js";
import { addressLink, blockLink, html, int, short, txLink, units, when } from "../fmt.js";
import { pager, tabs } from "./parts.js";
import { txTable } from "./block.js";
import { register } from "../registry.js";

register("/chain/:chain/address/:address", { name: "address", title: (p) => `Address ${short(p.address)}`, render });

const PAGE = 25;
const BALANCES = 50; // tokens of each kind on the page; "more" says when there are others

const TABS = {
  txs: { label: "Transactions", op: "transactions", show: (chain, body) => txTable(chain, body.transactions.map((e) => e.nativeTransaction), { block: true }) },
  erc20: { label: "ERC-20 transfers", op: "transactions:listErc20", show: (chain, body, me) => transfers(chain, body.transactions, me, "erc20") },
  erc721: { label: "NFT transfers", op: "transactions:listErc721", show: (chain, body, me) => transfers(chain, body.transactions, me, "erc721") },
  nfts: { label: "NFTs", op: "balances:listErc721", show: (chain, body) => nftGrid(body.erc721TokenBalances), size: 24 },
  contracts: { label: "Deployed contracts", path: (chain, a) => `/v1/chains/${chain}/contracts/${a}/deployments`, show: (chain, body) => contractsTable(chain, body.contracts) },
  icm: { label: "Cross-chain messages", path: (chain, a) => `/v1/icm/addresses/${a}/messages`, show: (chain, body, me) => icmTable(body.messages, me) },
};

/** A part of the page: its body, or the error that only its section reports. */
const part = (pending) => pending.then((body) => ({ body }), (err) => ({ err }));

async function render(view, ctx, { chain, address }, query) {
  if (!/^0x[0-9a-fA-F]{40}$/.test(address)) throw new ApiError("invalid", `${address} is not an address (0x and 40 hex digits)`);
  const me = address.toLowerCase();
  const tab = TABS[query.tab] ? query.tab : "txs";
  const spec = TABS[tab];
  const path = spec.path ? spec.path(chain, me) : `/v1/chains/${chain}/addresses/${me}/${spec.op}`;
  const balances = `/v1/chains/${chain}/addresses/${me}/balances:`;
  const [nfts, contract, list, native, erc20, erc1155] = await Promise.all([
    ctx.api.data(`${balances}listErc721`, { pageSize: 24 }),
    ctx.api.contract(chain, me),
    ctx.api.data(path, { pageSize: spec.size || PAGE, pageToken: query.page }),
    part(ctx.api.data(`${balances}getNative`)),
    part(ctx.api.data(`${balances}listErc20`, { pageSize: BALANCES })),
    part(ctx.api.data(`${balances}listErc1155`, { pageSize: BALANCES })),
  ]);
  // Operation 8 carries the native balance too: a deployment without getNative still shows it.
  const coin = native.body ? native.body.nativeTokenBalance : nfts.nativeTokenBalance;
  const nftCount = nfts.erc721TokenBalances.length;
  view.innerHTML = String(html`
    <div class="head"><h1>${contract ? "Contract" : "Address"}</h1><span class="mono" data-k="address">${me}</span>
      ${contract ? html`<a class="badge" href="#/chain/${chain}/contract/${me}">${contract.ercType}${contract.name ? ` · ${contract.name}` : ""}</a>` : ""}</div>
    <section class="grid g2">
      <div class="panel"><dl class="kv">
        <dt>${coin.symbol} balance</dt><dd><span data-k="native-balance" data-v="${coin.balance}">${units(coin.balance, coin.decimals)}</span> ${coin.symbol}</dd>
        <dt>NFTs held</dt><dd><span data-k="nft-count" data-v="${nftCount}">${nftCount}${nfts.nextPageToken ? "+" : ""}</span></dd>
        ${contract && contract.deploymentDetails ? html`<dt>Created by</dt><dd>${addressLink(chain, { address: contract.deploymentDetails.deployerAddress })} in ${txLink(chain, contract.deploymentDetails.txHash)}</dd>` : ""}
      </dl></div>
      <div class="panel" data-k="token-balances"><header><h2>Token balances</h2><span class="muted">from the index</span></header>
        <div class="body">
          <h3>ERC-20</h3>${erc20.err ? partError(erc20.err, "ERC-20 balances") : erc20List(chain, erc20.body)}
          <h3>ERC-1155</h3>${erc1155.err ? partError(erc1155.err, "ERC-1155 balances") : erc1155List(chain, erc1155.body)}
        </div></div>
    </section>
    <section class="panel">${tabs(`#/chain/${chain}/address/${me}`, Object.entries(TABS).map(([k, t]) => [k, t.label]), tab)}
      <div class="scroll" data-tab-body="${tab}">${spec.show(chain, list, me)}</div>
      ${pager(`#/chain/${chain}/address/${me}`, { ...query, tab }, list.nextPageToken)}</section>`);
}

const more = (body) => (body.nextPageToken ? html`<span class="muted" data-k="more-balances">and more</span>` : "");

function erc20List(chain, body) {
  const held = body.erc20TokenBalances;
  if (!held.length) return html`<div class="muted">No ERC-20 tokens held</div>`;
  return html`<div class="holdings">${held.map((t) => html`<a class="holding" href="#/chain/${chain}/contract/${t.address}" data-k="erc20-${t.address}" data-v="${t.balance}">
    <b>${units(t.balance, t.decimals)}</b> ${t.symbol || short(t.address)}</a>`)}${more(body)}</div>`;
}

function erc1155List(chain, body) {
  const held = body.erc1155TokenBalances;
  if (!held.length) return html`<div class="muted">No ERC-1155 tokens held</div>`;
  return html`<div class="holdings">${held.map((t) => html`<a class="holding" href="#/chain/${chain}/contract/${t.address}" data-k="erc1155-${t.address}-${t.tokenId}" data-v="${t.balance}"
    title="${t.metadata && t.metadata.name ? t.metadata.name : `${t.address} #${t.tokenId}`}"><b>${int(t.balance)}</b> × #${t.tokenId} <span class="muted">${short(t.address)}</span></a>`)}${more(body)}</div>`;
}

function transfers(chain, items, me, kind) {
  if (!items.length) return html`<div class="empty">No transfers</div>`;
  return html`<table data-k="transfers"><thead><tr><th>Tx</th><th>Block</th><th>Age</th><th>From</th><th></th><th>To</th><th class="num">${kind === "erc20" ? "Amount" : "Token id"}</th><th>Token</th></tr></thead><tbody>
    ${items.map((t) => {
      const token = kind === "erc20" ? t.erc20Token : t.erc721Token;
      const out = t.from.address === me;
      return html`<tr data-tx="${t.txHash}"><td>${txLink(chain, t.txHash)}</td><td>${blockLink(chain, t.blockNumber)}</td><td>${when(t.blockTimestamp)}</td>
        <td>${addressLink(chain, t.from)}</td><td><span class="badge ${out ? "bad" : "ok"}">${out ? "OUT" : "IN"}</span></td><td>${addressLink(chain, t.to)}</td>
        <td class="num" data-v="${kind === "erc20" ? t.value : token.tokenId}">${kind === "erc20" ? units(t.value, token.decimals) : `#${token.tokenId}`}</td>
        <td>${addressLink(chain, { address: token.address, name: token.name, symbol: token.symbol })}</td></tr>`;
    })}</tbody></table>`;
}

function nftGrid(tokens) {
  if (!tokens.length) return html`<div class="empty">No ERC-721 tokens</div>`;
  return html`<div class="nfts" data-k="nfts">${tokens.map((t) => {
    const meta = t.metadata || {};
    const image = meta.imageUri && /^(data:image\/|https?:)/.test(meta.imageUri) ? meta.imageUri : null;
    return html`<div class="nft" data-token="${t.address}:${t.tokenId}">
      ${image ? html`<img src="${image}" alt="${meta.name || t.name}" decoding="async">` : html`<div class="ph"></div>`}
      <div class="cap"><b>${meta.name || `${t.name} #${t.tokenId}`}</b><span class="muted">${t.symbol} #${t.tokenId}</span></div></div>`;
  })}</div>`;
}

const ICM_STATUS = { pending: "Pending", delivered: "Delivered", delivered_source_not_indexed: "Delivered (source not indexed)" };

/** Operation 16's messages: each side's transaction links to its own chain's page. */
function icmTable(messages, me) {
  if (!messages.length) return html`<div class="empty" data-k="icm-messages" data-v="0">No cross-chain messages</div>`;
  const side = (chainId, tx) => (chainId && tx ? txLink(chainId, tx.txHash) : html`<span class="muted">not indexed</span>`);
  return html`<table data-k="icm-messages" data-v="${messages.length}"><thead><tr><th>Message</th><th>Status</th><th>Route</th><th></th><th>Counterpart</th><th>Sent</th><th>Received</th><th class="num">Fee</th></tr></thead><tbody>
    ${messages.map((m) => {
      const out = m.from === me;
      const other = out ? m.to : m.from;
      const reward = m.rewardDetails;
      const state = m.status === "pending" ? "" : m.messageExecuted ? "ok" : "bad";
      return html`<tr data-message="${m.messageId}"><td class="mono">${short("0x" + m.messageId)}</td>
        <td><span class="badge ${state}" title="${m.messageExecuted ? "executed" : "not executed"}">${ICM_STATUS[m.status] || m.status}${m.status !== "pending" && !m.messageExecuted ? " · not executed" : ""}</span></td>
        <td>${m.sourceEvmChainId || short(m.sourceBlockchainId)} → ${m.destinationEvmChainId || short(m.destinationBlockchainId)}</td>
        <td><span class="badge ${out ? "bad" : "ok"}">${out ? "OUT" : "IN"}</span></td>
        <td class="mono">${short(other)}</td>
        <td>${side(m.sourceEvmChainId, m.sourceTransaction)}${m.sourceTransaction ? html` <span class="muted">${when(m.sourceTransaction.timestamp)}</span>` : ""}</td>
        <td>${side(m.destinationEvmChainId, m.destinationTransaction)}</td>
        <td class="num">${reward.value === "0" ? "–" : html`${units(reward.value, reward.decimals)} ${reward.symbol}`}</td></tr>`;
    })}</tbody></table>`;
}

export function contractsTable(chain, contracts) {
  if (!contracts.length) return html`<div class="empty">No contracts deployed</div>`;
  return html`<table data-k="contracts"><thead><tr><th>Contract</th><th>Type</th><th>Name</th><th>Creation tx</th></tr></thead><tbody>
    ${contracts.map((c) => html`<tr data-contract="${c.address}"><td><a class="mono" href="#/chain/${chain}/contract/${c.address}">${c.address}</a></td>
      <td><span class="badge">${c.ercType}</span></td><td>${c.name || ""}${c.symbol ? ` (${c.symbol})` : ""}</td>
      <td>${c.deploymentDetails ? txLink(chain, c.deploymentDetails.txHash) : ""}</td></tr>`)}</tbody></table>`;
}
