// viem createAccessList (with the revert error of a reverting call), fillTransaction and
// prepareTransactionRequest.
import { createPublicClient, createWalletClient, http, pad } from "viem";

const [store, caller, reverter, from] = args;
const client = createPublicClient({ chain, transport: http(rpc) });
const direct = await client.createAccessList({ account: from, to: store, data: pad("0x05") });
const nested = await client.createAccessList({ account: from, to: caller, data: pad(store) });
let reverted;
try {
  await client.createAccessList({ account: from, to: reverter });
} catch (e) {
  reverted = e.details;
}
const filled = await client.fillTransaction({ account: from, to: store, data: pad("0x07") });
const wallet = createWalletClient({ chain, transport: http(rpc), account: from });
const prepared = await wallet.prepareTransactionRequest({ to: store, value: 1n });
const plain = (list) => list.map((t) => ({ address: t.address.toLowerCase(), keys: t.storageKeys }));
console.log(JSON.stringify({
  direct: { list: plain(direct.accessList), gas: direct.gasUsed.toString() },
  nested: plain(nested.accessList),
  reverted,
  filled: { raw: filled.raw, nonce: filled.transaction.nonce, gas: filled.transaction.gas.toString(),
    type: filled.transaction.type, fee: filled.transaction.maxFeePerGas.toString(),
    from: filled.transaction.from },
  prepared: { nonce: prepared.nonce, gas: prepared.gas.toString(), type: prepared.type },
}));
