// viem call and estimateGas with state overrides (code, balance, state, stateDiff) and
// block overrides.
import { createPublicClient, http, pad } from "viem";

const [readSlot, balanceOfCaller, blockInfo] = args;
const client = createPublicClient({ chain, transport: http(rpc) });
const target = "0x" + "ee".repeat(20);
const rich = "0x" + "12".repeat(20);
const slot = (n) => pad(`0x${n.toString(16)}`);

const diffed = await client.call({
  to: target,
  stateOverride: [{ address: target, code: readSlot, stateDiff: [{ slot: slot(0), value: slot(42) }] }],
});
const balance = await client.call({
  account: rich,
  to: target,
  stateOverride: [{ address: target, code: balanceOfCaller }, { address: rich, balance: 12345n }],
});
const block = await client.call({
  to: target,
  stateOverride: [{ address: target, code: blockInfo }],
  blockOverrides: { number: 1000n, time: 1234n, gasLimit: 5000000n, feeRecipient: rich },
});
const gas = await client.estimateGas({
  account: rich,
  to: target,
  value: 10n ** 30n,
  stateOverride: [{ address: rich, balance: 10n ** 31n }],
});
let both;
try {
  await client.request({
    method: "eth_call",
    params: [{ to: target }, "latest", { [target]: { state: {}, stateDiff: {} } }],
  });
} catch (e) {
  both = { code: e.code, message: e.details };
}
console.log(JSON.stringify({ diffed: diffed.data, balance: balance.data, block: block.data,
  gas: gas.toString(), both }));
