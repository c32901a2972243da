// Primary-network pages (subnets and L1s, blockchains; validators: validators.js). Their operations have not
// landed in this deployment yet: each page asks its operation and shows what it answers, or
// that the deployment does not serve it. A full page for each replaces its entry here.

import { html } from "../fmt.js";
import { register } from "../registry.js";

const network = (ctx) => (ctx.chains.length && ctx.chains.every((c) => c.isTestnet) ? "fuji" : "mainnet");

const PAGES = [
  { name: "subnet", pattern: "/subnet/:id", label: "Subnet", path: (ctx, id) => `/v1/networks/${network(ctx)}/subnets/${id}` },
  { name: "blockchain", pattern: "/blockchain/:id", label: "Blockchain", path: (ctx, id) => `/v1/networks/${network(ctx)}/blockchains/${id}` },
];

for (const page of PAGES) {
  register(page.pattern, {
    name: page.name,
    needsChains: false,
    title: (p) => `${page.label} ${p.id}`,
    async render(view, ctx, { id }) {
      const body = await ctx.api.data(page.path(ctx, id));
      view.innerHTML = String(html`<div class="head"><h1>${page.label}</h1><span class="mono">${id}</span></div>
        <section class="panel"><dl class="kv">${Object.entries(body).map(([k, v]) => html`<dt>${k}</dt><dd class="mono">${typeof v === "object" ? JSON.stringify(v) : v}</dd>`)}</dl></section>`);
    },
  });
}

/** A node id, or a cb58 id that is not one of the listed chains' blockchain ids. */
export function networkRoute(text, ctx) {
  if (/^NodeID-[1-9A-HJ-NP-Za-km-z]{20,60}$/.test(text)) return `#/validator/${text}`;
  if (!/^[1-9A-HJ-NP-Za-km-z]{40,60}$/.test(text)) return null;
  const chain = ctx.chains.find((c) => c.platformChainId === text);
  if (chain) return `#/metrics?chain=${chain.chainId}`;
  const subnet = ctx.chains.find((c) => c.subnetId === text);
  return subnet ? `#/subnet/${text}` : `#/blockchain/${text}`;
}
