// Contract metadata (operation 4): type, token facts, deployment, curated names, links and tags;
// and the contracts it deployed as a factory (operation 10).

import { ApiError } from "../api.js";
import { addressLink, html, safeUrl, short, txLink } from "../fmt.js";
import { contractsTable } from "./address.js";
import { register } from "../registry.js";

register("/chain/:chain/contract/:address", { name: "contract", title: (p) => `Contract ${short(p.address)}`, render });

async function render(view, ctx, { chain, address }) {
  if (!/^0x[0-9a-fA-F]{40}$/.test(address)) throw new ApiError("invalid", `${address} is not an address (0x and 40 hex digits)`);
  const me = address.toLowerCase();
  const [meta, children] = await Promise.all([
    ctx.api.contract(chain, me),
    ctx.api.data(`/v1/chains/${chain}/contracts/${me}/deployments`, { pageSize: 25 }),
  ]);
  if (!meta) throw new ApiError("notfound", `${me} is not a contract the data API knows on chain ${chain}.`);
  const d = meta.deploymentDetails;
  const rows = [
    ["Address", html`<a class="mono" href="#/chain/${chain}/address/${me}">${me}</a>`],
    ["Type", html`<span class="badge" data-k="erc-type">${meta.ercType}</span>`],
    meta.name && ["Name", html`<span data-k="name">${meta.name}</span>`],
    meta.symbol && ["Symbol", html`<span data-k="symbol">${meta.symbol}</span>`],
    meta.decimals !== undefined && ["Decimals", html`<span data-k="decimals">${meta.decimals}</span>`],
    d && ["Creation transaction", txLink(chain, d.txHash, true)],
    d && ["Deployer", addressLink(chain, { address: d.deployerAddress }, { full: true })],
    d && d.deployerContractAddress && ["Factory", addressLink(chain, { address: d.deployerContractAddress }, { full: true })],
    meta.description && ["Description", meta.description],
    meta.officialSite && ["Website", html`<a href="${safeUrl(meta.officialSite)}" rel="noopener nofollow" target="_blank">${meta.officialSite}</a>`],
    meta.email && ["Email", meta.email],
    meta.resourceLinks && meta.resourceLinks.length && ["Links", html`<div class="tags">${meta.resourceLinks.map((l) => html`<a class="badge" href="${safeUrl(l.url)}" rel="noopener nofollow" target="_blank">${l.type}</a>`)}</div>`],
    meta.tags && meta.tags.length && ["Tags", html`<div class="tags">${meta.tags.map((t) => html`<span class="badge">${t}</span>`)}</div>`],
  ].filter(Boolean);
  const logo = meta.logoAsset && meta.logoAsset.imageUri && safeUrl(meta.logoAsset.imageUri) !== "#" ? meta.logoAsset.imageUri : null;
  view.innerHTML = String(html`
    <div class="head">${logo ? html`<img class="logo" src="${logo}" alt="">` : ""}<h1>${meta.name || "Contract"}</h1>
      ${meta.symbol ? html`<span class="muted">${meta.symbol}</span>` : ""}<span class="mono muted">${me}</span></div>
    <section class="panel"><dl class="kv">${rows.map(([k, v]) => html`<dt>${k}</dt><dd>${v}</dd>`)}</dl></section>
    <section class="panel"><header><h2>Contracts it deployed</h2><span class="muted">as a factory or its sender</span></header>
      <div class="scroll">${contractsTable(chain, children.contracts)}</div></section>`);
}
