// A transaction: found and its receipt read over JSON-RPC; its rendering (method, parties,
// status) from operation 9, its transfers and internal transactions from operation 5 of every
// address it touches, and its logs decoded for tokens the data API knows (operation 4).

import { ApiError } from "../api.js";
import { addressLink, blockLink, gwei, hexToNumber, html, int, status, units, utc, when } from "../fmt.js";
import { register } from "../registry.js";

register("/chain/:chain/tx/:hash", { name: "tx", title: (p) => `Transaction ${p.hash.slice(0, 12)}…`, render });

const TOPICS = {
  "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef": "Transfer",
  "0x8c5be1e5ebec7d5bd14f71427d1e84f3dd0314c0f7b2291e5b200ac8c7c3b925": "Approval",
  "0x17307eab39ab6107e8899845ad3d59bd9653f200f220920489ca2b5937696c31": "ApprovalForAll",
  "0xc3d58168c5ae7397731d063d5bbf3d657854427343f4c083240f7aacaa2d0f62": "TransferSingle",
  "0x4a39dc06d4c0dbc64b70af90fd698a233a518aa5d07e595d983b8c0526c8f7fb": "TransferBatch",
};
const MAX_PARTIES = 8;

async function render(view, ctx, { chain, hash }) {
  if (!/^0x[0-9a-fA-F]{64}$/.test(hash)) throw new ApiError("invalid", `${hash} is not a transaction hash (0x and 64 hex digits)`);
  if (!ctx.api.rpcUrl(chain)) throw new ApiError("unserved", "looking a transaction up by hash needs the node's JSON-RPC, and none is configured");
  const [tx, receipt, headHex] = await ctx.api.rpcBatch(chain, [
    ["eth_getTransactionByHash", [hash]], ["eth_getTransactionReceipt", [hash]], ["eth_blockNumber", []],
  ]);
  if (!tx) throw new ApiError("notfound", `No transaction ${hash} on chain ${chain}.`);
  if (!receipt || tx.blockNumber === null) {
    view.innerHTML = String(html`<div class="head"><h1>Transaction</h1></div><div class="panel notice" data-k="pending">Pending: in the node's mempool, not yet in a block.</div>`);
    return;
  }
  const number = hexToNumber(tx.blockNumber);
  const [native, flows, tokens] = await Promise.all([
    indexed(ctx, chain, number, hash),
    flowsOf(ctx, chain, number, hash, tx, receipt),
    tokensOf(ctx, chain, receipt.logs),
  ]);
  view.innerHTML = String(html`
    <div class="head"><h1>Transaction</h1><span class="mono">${hash}</span></div>
    ${native ? "" : html`<div class="panel notice">The data API has not indexed this block yet: parties and transfers appear once it has.</div>`}
    <section class="panel"><dl class="kv">${summary(chain, tx, receipt, native, hexToNumber(headHex), symbolOf(ctx, chain)).map(([k, v]) => html`<dt>${k}</dt><dd>${v}</dd>`)}</dl></section>
    ${transfersPanel(chain, flows)}
    ${internalsPanel(chain, flows.internals)}
    ${logsPanel(chain, receipt.logs, tokens)}`);
}

/** The transaction as operation 9 renders it, or null while its block is not indexed. */
async function indexed(ctx, chain, number, hash) {
  try {
    const page = await ctx.api.data(`/v1/chains/${chain}/blocks/${number}/transactions`, { pageSize: 0 });
    return page.transactions.find((t) => t.txHash === hash.toLowerCase()) || null;
  } catch (err) {
    if (err.kind === "notfound") return null;
    throw err;
  }
}

const symbolOf = (ctx, chain) => (ctx.chains.find((c) => c.chainId === String(chain)) || { networkToken: { symbol: "" } }).networkToken.symbol;

function summary(chain, tx, receipt, native, head, symbol) {
  const number = hexToNumber(tx.blockNumber);
  const gasUsed = BigInt(receipt.gasUsed);
  const price = BigInt(receipt.effectiveGasPrice || tx.gasPrice);
  const ok = receipt.status === "0x1";
  const from = native ? native.from : { address: tx.from };
  const to = native ? native.to : { address: tx.to || receipt.contractAddress };
  const input = tx.input || "0x";
  return [
    ["Status", html`<span data-k="status" data-v="${ok ? 1 : 0}">${status(ok)}</span>`],
    ["Block", html`${blockLink(chain, number)} <span class="muted">· ${int(Math.max(head - number + 1, 1))} confirmations</span>`],
    native && ["Timestamp", html`${when(native.blockTimestamp)} <span class="muted">(${utc(native.blockTimestamp)})</span>`],
    native && native.method && ["Method", html`<span class="mono">${native.method.methodName || native.method.callType}${native.method.methodHash ? ` (${native.method.methodHash})` : ""}</span>`],
    ["From", addressLink(chain, from, { full: true })],
    [tx.to ? "To" : "Contract created", addressLink(chain, to, { full: true })],
    ["Value", html`<span data-k="value" data-v="${BigInt(tx.value)}">${units(BigInt(tx.value))}</span> ${symbol}`],
    ["Transaction fee", html`<span data-k="fee" data-v="${gasUsed * price}">${units(gasUsed * price, 18, 9)}</span> ${symbol}`],
    ["Gas price", gwei(price)],
    ["Gas used / limit", html`<span data-k="gas-used" data-v="${gasUsed}">${int(gasUsed)}</span> / ${int(BigInt(tx.gas))}`],
    ["Nonce · type · position", `${hexToNumber(tx.nonce)} · ${hexToNumber(tx.type || "0x0")} · ${hexToNumber(tx.transactionIndex)}`],
    ["Input data", input === "0x" ? html`<span class="muted">none</span>` : html`<details><summary>${(input.length - 2) / 2} bytes</summary><pre class="data">${input}</pre></details>`],
  ].filter(Boolean);
}

/**
 * Transfers and internal transactions of one transaction: operation 5 lists, per address, only
 * the entries that address is party to, so the lists of every party found are merged (each
 * address's list is complete for that address, so an entry's count is its most in any list).
 */
async function flowsOf(ctx, chain, number, hash, tx, receipt) {
  const parties = new Set([tx.from, tx.to, receipt.contractAddress].filter(Boolean).map((a) => a.toLowerCase()));
  for (const log of receipt.logs) if (TOPICS[log.topics[0]]) log.topics.slice(1, 3).forEach((t) => parties.add("0x" + t.slice(26)));
  const seen = new Set();
  const found = { erc20: new Map(), erc721: new Map(), erc1155: new Map(), internals: new Map() };
  const queue = [...parties];
  while (queue.length && seen.size < MAX_PARTIES) {
    const address = queue.shift();
    if (seen.has(address) || /^0x0{40}$/.test(address)) continue;
    seen.add(address);
    let entry;
    try {
      const page = await ctx.api.data(`/v1/chains/${chain}/addresses/${address}/transactions`, { startBlock: number, endBlock: number + 1, pageSize: 100 });
      entry = page.transactions.find((t) => t.nativeTransaction.txHash === hash.toLowerCase());
    } catch (err) {
      if (err.kind === "notfound") continue;
      throw err;
    }
    if (!entry) continue;
    for (const t of entry.erc20Transfers || []) found.erc20.set(t.logIndex, t);
    for (const t of entry.erc721Transfers || []) found.erc721.set(t.logIndex, t);
    for (const t of entry.erc1155Transfers || []) found.erc1155.set(t.logIndex, t);
    const counts = new Map();
    for (const i of entry.internalTransactions || []) {
      const key = JSON.stringify(i);
      counts.set(key, (counts.get(key) || 0) + 1);
      for (const a of [i.from.address, i.to.address]) if (!seen.has(a)) queue.push(a);
    }
    for (const [key, n] of counts) found.internals.set(key, Math.max(n, found.internals.get(key) || 0));
  }
  const internals = [...found.internals].flatMap(([key, n]) => Array(n).fill(JSON.parse(key)));
  const byLog = (m) => [...m.values()].sort((a, b) => a.logIndex - b.logIndex);
  return { erc20: byLog(found.erc20), erc721: byLog(found.erc721), erc1155: byLog(found.erc1155), internals };
}

async function tokensOf(ctx, chain, logs) {
  const addresses = [...new Set(logs.map((l) => l.address.toLowerCase()))].slice(0, 20);
  const metas = await Promise.all(addresses.map((a) => ctx.api.contract(chain, a).catch(() => null)));
  return new Map(addresses.map((a, i) => [a, metas[i]]));
}

function transfersPanel(chain, flows) {
  const rows = [
    ...flows.erc20.map((t) => html`<tr><td>ERC-20</td><td>${addressLink(chain, t.from)}<span class="arrow">→</span>${addressLink(chain, t.to)}</td>
      <td class="num" data-k="erc20-value" data-v="${t.value}">${units(t.value, t.erc20Token.decimals)}</td><td>${addressLink(chain, { address: t.erc20Token.address, name: t.erc20Token.name, symbol: t.erc20Token.symbol })}</td></tr>`),
    ...flows.erc721.map((t) => html`<tr><td>ERC-721</td><td>${addressLink(chain, t.from)}<span class="arrow">→</span>${addressLink(chain, t.to)}</td>
      <td class="num" data-k="erc721-id" data-v="${t.erc721Token.tokenId}">#${t.erc721Token.tokenId}</td><td>${addressLink(chain, { address: t.erc721Token.address, name: t.erc721Token.name, symbol: t.erc721Token.symbol })}</td></tr>`),
    ...flows.erc1155.map((t) => html`<tr><td>ERC-1155</td><td>${addressLink(chain, t.from)}<span class="arrow">→</span>${addressLink(chain, t.to)}</td>
      <td class="num">${int(t.value)} × #${t.erc1155Token.tokenId}</td><td>${addressLink(chain, { address: t.erc1155Token.address })}</td></tr>`),
  ];
  if (!rows.length) return "";
  return html`<section class="panel" data-k="transfers" data-n="${rows.length}"><header><h2>Token transfers</h2><span class="muted">${rows.length}</span></header>
    <div class="scroll"><table><thead><tr><th>Standard</th><th>From → To</th><th class="num">Amount</th><th>Token</th></tr></thead><tbody>${rows}</tbody></table></div></section>`;
}

function internalsPanel(chain, internals) {
  if (!internals.length) return "";
  return html`<section class="panel" data-k="internals" data-n="${internals.length}"><header><h2>Internal transactions</h2><span class="muted">${internals.length}</span></header>
    <div class="scroll"><table><thead><tr><th>Type</th><th>From → To</th><th class="num">Value</th><th class="num">Gas used</th><th>Result</th></tr></thead><tbody>
    ${internals.map((i) => html`<tr><td><span class="badge">${i.internalTxType}</span></td><td>${addressLink(chain, i.from)}<span class="arrow">→</span>${addressLink(chain, i.to)}</td>
      <td class="num">${units(i.value)}</td><td class="num">${int(i.gasUsed)}</td><td>${status(!i.isReverted)}</td></tr>`)}
    </tbody></table></div></section>`;
}

const word = (hex, i) => BigInt("0x" + (hex.slice(2 + 64 * i, 2 + 64 * (i + 1)) || "0"));
const topicAddress = (topic) => "0x" + topic.slice(26);

/** A log as an event with named arguments, when its topic is a token event. */
function decode(chain, log, meta) {
  const name = TOPICS[log.topics[0]];
  if (!name) return null;
  const decimals = meta && meta.decimals !== undefined ? meta.decimals : 0;
  const amount = (v) => (meta && meta.ercType === "ERC-20" ? `${units(v, decimals)} ${meta.symbol || ""}` : int(v));
  const who = (t) => addressLink(chain, { address: topicAddress(t) });
  if (name === "Transfer" && log.topics.length === 4) return html`Transfer(from ${who(log.topics[1])}, to ${who(log.topics[2])}, tokenId #${BigInt(log.topics[3]).toString()})`;
  if (name === "Transfer") return html`Transfer(from ${who(log.topics[1])}, to ${who(log.topics[2])}, value <b>${amount(word(log.data, 0))}</b>)`;
  if (name === "Approval" && log.topics.length === 4) return html`Approval(owner ${who(log.topics[1])}, approved ${who(log.topics[2])}, tokenId #${BigInt(log.topics[3]).toString()})`;
  if (name === "Approval") return html`Approval(owner ${who(log.topics[1])}, spender ${who(log.topics[2])}, value <b>${amount(word(log.data, 0))}</b>)`;
  if (name === "ApprovalForAll") return html`ApprovalForAll(owner ${who(log.topics[1])}, operator ${who(log.topics[2])}, approved ${word(log.data, 0) ? "true" : "false"})`;
  if (name === "TransferSingle") return html`TransferSingle(operator ${who(log.topics[1])}, from ${who(log.topics[2])}, to ${who(log.topics[3])}, id #${word(log.data, 0).toString()}, value ${int(word(log.data, 1))})`;
  return html`TransferBatch(operator ${who(log.topics[1])}, from ${who(log.topics[2])}, to ${who(log.topics[3])})`;
}

function logsPanel(chain, logs, tokens) {
  if (!logs.length) return "";
  return html`<section class="panel" data-k="logs" data-n="${logs.length}"><header><h2>Logs</h2><span class="muted">${logs.length}</span></header>
    ${logs.map((log) => {
      const meta = tokens.get(log.address.toLowerCase());
      const event = decode(chain, log, meta);
      const label = meta ? { address: log.address.toLowerCase(), name: meta.name, symbol: meta.symbol } : { address: log.address.toLowerCase() };
      return html`<div class="log"><span class="idx">${hexToNumber(log.logIndex)}</span><div>
        <div>${addressLink(chain, label, { full: !meta })}${meta ? html` <span class="badge">${meta.ercType}</span>` : ""}</div>
        ${event ? html`<div class="ev" data-k="event">${event}</div>` : ""}
        <details><summary>topics and data</summary><pre class="data">${log.topics.map((t, i) => `[${i}] ${t}\n`).join("")}data ${log.data}</pre></details></div></div>`;
    })}</section>`;
}
