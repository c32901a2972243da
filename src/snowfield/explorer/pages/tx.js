// A transaction: its complete view from the data API (GET …/transactions/{hash}: the
// transaction, every token transfer, the listed internal transactions, its logs and receipt),
// its logs decoded for tokens the data API knows (operation 4), and the latest indexed block for
// its confirmations. The node's JSON-RPC is asked only about a hash the index does not hold
// (still pending, or in a block not indexed yet).

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
const DIRECTIONS = { SOURCE_TRANSACTION: "sent", DESTINATION_TRANSACTION: "received" };

async function render(view, ctx, { chain, hash }) {
  if (!/^0x[0-9a-fA-F]{64}$/.test(hash)) throw new ApiError("invalid", `${hash} is not a transaction hash (0x and 64 hex digits)`);
  const [found, latest] = await Promise.all([
    ctx.api.data(`/v1/chains/${chain}/transactions/${hash.toLowerCase()}`).catch((err) => { if (err.kind === "notfound") return null; throw err; }),
    ctx.api.data(`/v1/chains/${chain}/blocks`, { pageSize: 1 }),
  ]);
  if (!found) {
    await notIndexed(view, ctx, chain, hash);
    return;
  }
  const tokens = await tokensOf(ctx, chain, found.logs);
  const head = latest.blocks.length ? Number(latest.blocks[0].blockNumber) : 0;
  const symbol = found.networkTokenDetails.networkToken.symbol;
  view.innerHTML = String(html`
    <div class="head"><h1>Transaction</h1><span class="mono">${hash.toLowerCase()}</span></div>
    <section class="panel"><dl class="kv">${summary(chain, found, head, symbol).map(([k, v]) => html`<dt>${k}</dt><dd>${v}</dd>`)}</dl></section>
    ${transfersPanel(chain, found)}
    ${internalsPanel(chain, found.internalTransactions)}
    ${logsPanel(chain, found.logs, tokens)}`);
}

/** A hash the data API does not hold: pending or not indexed yet (the node says), or unknown. */
async function notIndexed(view, ctx, chain, hash) {
  const tx = ctx.api.rpcUrl(chain) ? await ctx.api.rpc(chain, "eth_getTransactionByHash", [hash]).catch(() => null) : null;
  if (!tx) throw new ApiError("notfound", `No transaction ${hash} on chain ${chain}.`);
  const where = tx.blockNumber === null
    ? "Pending: in the node's mempool, not yet in a block."
    : html`In block ${blockLink(chain, hexToNumber(tx.blockNumber))}, which the data API has not indexed yet: its details appear once it has.`;
  view.innerHTML = String(html`<div class="head"><h1>Transaction</h1><span class="mono">${hash}</span></div><div class="panel notice" data-k="pending">${where}</div>`);
}

function summary(chain, found, head, symbol) {
  const t = found.nativeTransaction;
  const receipt = found.receipt;
  const number = Number(t.blockNumber);
  const gasUsed = BigInt(t.gasUsed);
  const price = BigInt(t.gasPrice);
  const ok = t.txStatus === "1";
  const created = receipt.contractAddress;
  const message = found.teleporterMessageInfo;
  return [
    ["Status", html`<span data-k="status" data-v="${ok ? 1 : 0}">${status(ok)}</span>`],
    ["Block", html`${blockLink(chain, number)} <span class="muted">· <span data-k="confirmations" data-v="${Math.max(head - number + 1, 1)}">${int(Math.max(head - number + 1, 1))}</span> confirmations</span>`],
    ["Timestamp", html`${when(t.blockTimestamp)} <span class="muted">(${utc(t.blockTimestamp)})</span>`],
    t.method && ["Method", html`<span class="mono">${t.method.methodName || t.method.callType}${t.method.methodHash ? ` (${t.method.methodHash})` : ""}</span>`],
    ["From", addressLink(chain, t.from, { full: true })],
    [created ? "Contract created" : "To", addressLink(chain, t.to, { full: true })],
    ["Value", html`<span data-k="value" data-v="${t.value}">${units(BigInt(t.value))}</span> ${symbol}`],
    ["Transaction fee", html`<span data-k="fee" data-v="${gasUsed * price}">${units(gasUsed * price, 18, 9)}</span> ${symbol}`],
    ["Gas price", html`${gwei(price)} <span class="muted">(base fee ${gwei(BigInt(t.baseFeePerGas))}${t.maxFeePerGas ? `, max ${gwei(BigInt(t.maxFeePerGas))}, tip ≤ ${gwei(BigInt(t.maxPriorityFeePerGas || "0"))}` : ""})</span>`],
    ["Gas used / limit", html`<span data-k="gas-used" data-v="${gasUsed}">${int(gasUsed)}</span> / ${int(BigInt(t.gasLimit))} <span class="muted">· ${int(BigInt(receipt.cumulativeGasUsed))} in the block up to it</span>`],
    ["Nonce · type · position", `${t.nonce} · ${t.txType} · ${t.blockIndex}`],
    message && ["Cross-chain message", html`<span data-k="icm-message" data-v="${message.direction}">${DIRECTIONS[message.direction] || message.direction}</span> <span class="mono">0x${message.teleporterMessageId}</span>
      <span class="muted">${message.destinationChainId ? `to ${message.destinationChainId}` : message.sourceChainId ? `from ${message.sourceChainId}` : ""}</span>`],
    ["Input data", t.input === "0x" ? html`<span class="muted">none</span>` : html`<details><summary>${(t.input.length - 2) / 2} bytes</summary><pre class="data">${t.input}</pre></details>`],
  ].filter(Boolean);
}

async function tokensOf(ctx, chain, logs) {
  const addresses = [...new Set(logs.map((l) => l.address.toLowerCase()))].slice(0, 20);
  const metas = await Promise.all(addresses.map((a) => ctx.api.contract(chain, a).catch(() => null)));
  return new Map(addresses.map((a, i) => [a, metas[i]]));
}

function transfersPanel(chain, found) {
  const rows = [
    ...found.erc20Transfers.map((t) => html`<tr><td>ERC-20</td><td>${addressLink(chain, t.from)}<span class="arrow">→</span>${addressLink(chain, t.to)}</td>
      <td class="num" data-k="erc20-value" data-v="${t.value}">${units(t.value, t.erc20Token.decimals)}</td><td>${addressLink(chain, { address: t.erc20Token.address, name: t.erc20Token.name, symbol: t.erc20Token.symbol })}</td></tr>`),
    ...found.erc721Transfers.map((t) => html`<tr><td>ERC-721</td><td>${addressLink(chain, t.from)}<span class="arrow">→</span>${addressLink(chain, t.to)}</td>
      <td class="num" data-k="erc721-id" data-v="${t.erc721Token.tokenId}">#${t.erc721Token.tokenId}</td><td>${addressLink(chain, { address: t.erc721Token.address, name: t.erc721Token.name, symbol: t.erc721Token.symbol })}</td></tr>`),
    ...found.erc1155Transfers.map((t) => html`<tr><td>ERC-1155</td><td>${addressLink(chain, t.from)}<span class="arrow">→</span>${addressLink(chain, t.to)}</td>
      <td class="num" data-k="erc1155-value" data-v="${t.erc1155Token.tokenId}:${t.value}">${int(t.value)} × #${t.erc1155Token.tokenId}</td><td>${addressLink(chain, { address: t.erc1155Token.address })}</td></tr>`),
  ];
  if (!rows.length) return "";
  return html`<section class="panel" data-k="transfers" data-n="${rows.length}"><header><h2>Token transfers</h2><span class="muted">${rows.length}</span></header>
    <div class="scroll"><table><thead><tr><th>Standard</th><th>From → To</th><th class="num">Amount</th><th>Token</th></tr></thead><tbody>${rows}</tbody></table></div></section>`;
}

function internalsPanel(chain, internals) {
  if (!internals.length) return "";
  return html`<section class="panel" data-k="internals" data-n="${internals.length}"><header><h2>Internal transactions</h2><span class="muted">${internals.length}</span></header>
    <div class="scroll"><table><thead><tr><th>Type</th><th>From → To</th><th class="num">Value</th><th class="num">Gas used</th><th>Result</th></tr></thead><tbody>
    ${internals.map((i) => html`<tr data-k="internal" data-v="${i.internalTxType}:${i.from.address}:${i.to.address}:${i.value}"><td><span class="badge">${i.internalTxType}</span></td><td>${addressLink(chain, i.from)}<span class="arrow">→</span>${addressLink(chain, i.to)}</td>
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
      return html`<div class="log" data-k="log" data-v="${log.logIndex}:${log.address}"><span class="idx">${log.logIndex}</span><div>
        <div>${addressLink(chain, label, { full: !meta })}${meta ? html` <span class="badge">${meta.ercType}</span>` : ""}</div>
        ${event ? html`<div class="ev" data-k="event">${event}</div>` : ""}
        <details><summary>topics and data</summary><pre class="data">${log.topics.map((t, i) => `[${i}] ${t}\n`).join("")}data ${log.data}</pre></details></div></div>`;
    })}</section>`;
}
