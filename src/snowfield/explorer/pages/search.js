// The search box: an address, a transaction or block hash, a block number, a node id, a subnet
// or blockchain id. Resolvers run in order; the first that recognises the text names the page.

import { ApiError } from "../api.js";
import { register, registerSearch } from "../registry.js";
import { networkRoute } from "./network.js";

registerSearch((text, ctx) => (/^0x[0-9a-fA-F]{40}$/.test(text) ? `#/chain/${ctx.chain}/address/${text.toLowerCase()}` : null));
registerSearch((text, ctx) => (/^\d{1,15}$/.test(text) ? `#/chain/${ctx.chain}/block/${Number(text)}` : null));
registerSearch(async (text, ctx) => {
  if (!/^0x[0-9a-fA-F]{64}$/.test(text)) return null;
  const hash = text.toLowerCase();
  // The index first (a transaction, then a block, by hash); the node for what it does not
  // hold yet (a pending transaction).
  const found = async (path) => ctx.api.data(path).then(() => true, (err) => { if (err.kind === "notfound") return false; throw err; });
  if (await found(`/v1/chains/${ctx.chain}/transactions/${hash}`)) return `#/chain/${ctx.chain}/tx/${hash}`;
  if (await found(`/v1/chains/${ctx.chain}/blocks/${hash}`)) return `#/chain/${ctx.chain}/block/${hash}`;
  if (ctx.api.rpcUrl(ctx.chain)) {
    const tx = await ctx.api.rpc(ctx.chain, "eth_getTransactionByHash", [hash]).catch(() => null);
    if (tx) return `#/chain/${ctx.chain}/tx/${hash}`;
  }
  return null;
});
registerSearch((text, ctx) => networkRoute(text, ctx));

register("/search/:q", {
  name: "search",
  title: (p) => `Search ${p.q}`,
  async render(view, ctx, { q }) {
    throw new ApiError("notfound", `Nothing matches “${q}” on chain ${ctx.chain}: try an address (0x + 40 hex digits), a transaction or block hash (0x + 64), a block number, a node id (NodeID-…), or a subnet or blockchain id.`);
  },
});


