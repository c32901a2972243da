// viem drives an L1 of the devnet exactly as the C-Chain: deploy, call, logs, a WebSocket
// subscription (eth_subscribe "logs" and "newHeads"). argv: rpc ws chainId key initCode word.
import { createPublicClient, createWalletClient, http, webSocket } from "viem";
import { privateKeyToAccount } from "viem/accounts";

const [rpc, ws, chainIdText, key, initCode, word] = process.argv.slice(2);
const chain = {
  id: Number(chainIdText),
  name: "L1",
  nativeCurrency: { name: "Token", symbol: "TKN", decimals: 18 },
  rpcUrls: { default: { http: [rpc], webSocket: [ws] } },
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const client = createPublicClient({ chain, transport: http(rpc) });
const wallet = createWalletClient({ chain, transport: http(rpc), account: privateKeyToAccount(key) });
const socket = createPublicClient({ chain, transport: webSocket(ws) });

const chainId = await client.getChainId();
const deployHash = await wallet.sendTransaction({ data: initCode });
const deployed = await client.waitForTransactionReceipt({ hash: deployHash });
const address = deployed.contractAddress;

const heads = [];
const seen = [];
const unwatchBlocks = socket.watchBlockNumber({ onBlockNumber: (n) => heads.push(Number(n)) });
const unwatchLogs = socket.watchEvent({ address, onLogs: (logs) => seen.push(...logs) });
await sleep(300); // the subscriptions are in place
const hash = await wallet.sendTransaction({ to: address, data: word });
const receipt = await client.waitForTransactionReceipt({ hash });
for (let i = 0; i < 100 && seen.length === 0; i++) await sleep(50);
unwatchBlocks();
unwatchLogs();
const logs = await client.getLogs({ address, fromBlock: 0n });
const call = await client.call({ to: address, data: word });
const stored = await client.getStorageAt({ address, slot: "0x0" });
await socket.transport.getRpcClient().then((c) => c.close());
console.log(
  JSON.stringify({
    chainId,
    address,
    status: receipt.status,
    blockNumber: Number(receipt.blockNumber),
    receiptLogs: receipt.logs.length,
    logTxs: logs.map((l) => l.transactionHash),
    wsLogTxs: seen.map((l) => l.transactionHash),
    heads,
    hash,
    call: call.data,
    stored,
  }),
);
process.exit(0);
