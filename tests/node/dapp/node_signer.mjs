// Signing with the node's unlocked accounts: ethers' JsonRpcSigner and viem's JSON-RPC account.
import { JsonRpcProvider, Transaction, verifyMessage, verifyTypedData } from "ethers";
import { createPublicClient, createWalletClient, http, verifyTypedData as viemVerify } from "viem";

const [address, to, stranger] = args;
const provider = new JsonRpcProvider(rpc, 43112, { staticNetwork: true });
const signer = await provider.getSigner(address);
const domain = { name: "Mail", version: "1", chainId: 43112, verifyingContract: to };
const types = { Mail: [{ name: "from", type: "address" }, { name: "contents", type: "string" }] };
const message = { from: address, contents: "hello" };

const ethersMessage = verifyMessage("hello", await signer.signMessage("hello"));
const ethersTyped = verifyTypedData(domain, types, message, await signer.signTypedData(domain, types, message));
const sent = await signer.sendTransaction({ to, value: 5n });
const status = (await sent.wait()).status;
const nonce = await provider.getTransactionCount(address);
const signed = await signer.signTransaction({
  to, value: 7n, gasLimit: 21000n, nonce, maxFeePerGas: 10n ** 11n, maxPriorityFeePerGas: 1n,
});
const signedTx = Transaction.from(signed.raw);

const wallet = createWalletClient({ chain, transport: http(rpc), account: address });
const viemSignature = await wallet.signTypedData({ domain, types, primaryType: "Mail", message });
const viemTyped = await viemVerify({
  address, domain, types, primaryType: "Mail", message, signature: viemSignature,
});
const viemMessage = await wallet.signMessage({ message: "hello" });
const viemHash = await wallet.sendTransaction({ to, value: 9n });

let unknown;
try {
  await provider.send("eth_sign", [stranger, "0x00"]);
} catch (e) {
  unknown = e.error ?? e.info?.error ?? String(e);
}
console.log(JSON.stringify({
  ethersMessage, ethersTyped, status,
  signed: { from: signedTx.from, nonce: signedTx.nonce, to: signedTx.to, value: signedTx.value.toString(),
    hash: signedTx.hash, txHash: signed.tx.hash, txNonce: signed.tx.nonce, txType: signed.tx.type },
  viemTyped, viemMessage, viemHash, unknown,
}));
