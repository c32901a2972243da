// Prepended to every dapp script: the devnet as a viem chain, from the URL in argv[2].
const rpc = process.argv[2];
const args = process.argv.slice(3);
const chain = {
  id: 43112,
  name: "devnet",
  nativeCurrency: { name: "AVAX", symbol: "AVAX", decimals: 18 },
  rpcUrls: { default: { http: [rpc] } },
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
