// A block: its header from the node's JSON-RPC, its transactions from operation 9 (paged).

import { ApiError } from "../api.js";
import { addressLink, blockLink, gwei, hexToNumber, html, int, methodBadge, status, txLink, units, utc, when } from "../fmt.js";
import { pager } from "./parts.js";
import { register } from "../registry.js";

const PAGE = 25;

register("/chain/:chain/block/:id", {
  name: "block",
  title: (p) => `Block ${p.id}`,
  render,
});

const isHash = (id) => /^0x[0-9a-fA-F]{64}$/.test(id);

async function header(ctx, chain, id) {
  if (!ctx.api.rpcUrl(chain)) return undefined;
  const method = isHash(id) ? "eth_getBlockByHash" : "eth_getBlockByNumber";
  const tag = isHash(id) ? id : "0x" + BigInt(id).toString(16);
  try {
    return await ctx.api.rpc(chain, method, [tag, false]);
  } catch (err) {
    if (err.kind === "unavailable") return undefined;
    throw err;
  }
}

async function render(view, ctx, { chain, id }, query) {
  if (!isHash(id) && !/^\d+$/.test(id)) throw new ApiError("invalid", `${id} is neither a block number nor a block hash`);
  const [head, page] = await Promise.all([
    header(ctx, chain, id),
    ctx.api.data(`/v1/chains/${chain}/blocks/${id}/transactions`, { pageSize: PAGE, pageToken: query.page })
      .catch((err) => { if (err.kind === "notfound") return null; throw err; }),
  ]);
  if (!head && !page) throw new ApiError("notfound", `Block ${id} is not on chain ${chain} (or not indexed yet).`);
  const first = page && page.transactions[0];
  const number = head ? hexToNumber(head.number) : Number(first ? first.blockNumber : id);
  const hash = head ? head.hash : first ? first.blockHash : id;
  const timestamp = head ? hexToNumber(head.timestamp) : first ? first.blockTimestamp : null;
  const rows = [
    ["Block height", html`<span data-k="number" data-v="${number}">${int(number)}</span>
      <span class="muted"> · ${number > 0 ? blockLink(chain, number - 1) : ""} ← → ${blockLink(chain, number + 1)}</span>`],
    ["Hash", html`<span class="mono" data-k="hash">${hash}</span>`],
    timestamp !== null && ["Timestamp", html`${when(timestamp)} <span class="muted">(${utc(timestamp)})</span>`],
  ];
  if (head) {
    const gasUsed = BigInt(head.gasUsed);
    const gasLimit = BigInt(head.gasLimit);
    rows.push(
      ["Transactions", html`<span data-k="tx-count" data-v="${head.transactions.length}">${head.transactions.length}</span>`],
      ["Parent hash", html`<a class="mono" href="#/chain/${chain}/block/${head.parentHash}">${head.parentHash}</a>`],
      ["Fee recipient", addressLink(chain, { address: head.miner }, { full: true })],
      ["Gas used", html`<span data-k="gas-used" data-v="${gasUsed}">${int(gasUsed)}</span> <span class="muted">(${gasLimit ? Number((gasUsed * 10000n) / gasLimit) / 100 : 0}% of ${int(gasLimit)})</span>`],
      head.baseFeePerGas && ["Base fee", gwei(BigInt(head.baseFeePerGas))],
      ["Size", `${int(BigInt(head.size))} bytes`],
    );
  }
  view.innerHTML = String(html`
    <div class="head"><h1>Block #${int(number)}</h1></div>
    ${!page ? html`<div class="panel notice">The data API has not indexed this block yet; the header comes from the node.</div>` : ""}
    <section class="panel"><dl class="kv">${rows.filter(Boolean).map(([k, v]) => html`<dt>${k}</dt><dd>${v}</dd>`)}</dl></section>
    ${page ? html`<section class="panel"><header><h2>Transactions</h2></header>
      <div class="scroll">${txTable(chain, page.transactions)}</div>
      ${pager(`#/chain/${chain}/block/${id}`, query, page.nextPageToken)}</section>` : ""}`);
}

export function txTable(chain, txs, { block = false } = {}) {
  if (!txs.length) return html`<div class="empty">No transactions</div>`;
  return html`<table data-k="txs"><thead><tr><th>Hash</th><th>Method</th>${block ? html`<th>Block</th>` : ""}<th>From</th><th>To</th>
    <th class="num">Value</th><th class="num hide-sm">Fee</th><th>Status</th></tr></thead><tbody>
    ${txs.map((t) => html`<tr data-tx="${t.txHash}"><td>${txLink(chain, t.txHash)}</td><td>${methodBadge(t.method)}</td>
      ${block ? html`<td>${blockLink(chain, t.blockNumber)}</td>` : ""}
      <td>${addressLink(chain, t.from)}</td><td>${addressLink(chain, t.to)}</td>
      <td class="num" data-v="${t.value}">${units(t.value)}</td>
      <td class="num hide-sm">${units(BigInt(t.gasUsed) * BigInt(t.gasPrice))}</td><td>${status(t.txStatus === "1")}</td></tr>`)}
  </tbody></table>`;
}
