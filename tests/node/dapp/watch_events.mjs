// viem watchEvent over HTTP (eth_newFilter + eth_getFilterChanges): only new events.
import { createPublicClient, createWalletClient, http } from "viem";
import { privateKeyToAccount } from "viem/accounts";

const [address, key, data] = args;
const client = createPublicClient({ chain, transport: http(rpc), pollingInterval: 100 });
const seen = [];
const unwatch = client.watchEvent({ address, onLogs: (logs) => seen.push(...logs) });
await sleep(1000);
const before = seen.length;
const account = privateKeyToAccount(key);
const wallet = createWalletClient({ chain, transport: http(rpc), account });
const sent = await wallet.sendTransaction({ to: address, data });
for (let i = 0; i < 100 && seen.length === before; i++) await sleep(100);
unwatch();
console.log(JSON.stringify({ before, hashes: seen.map((l) => l.transactionHash), sent }));
