// A type-4 (EIP-7702) transaction sent with viem, read back with ethers v6.
import { createWalletClient, http } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { JsonRpcProvider } from "ethers";

const [key, delegate] = args;
const account = privateKeyToAccount(key);
const wallet = createWalletClient({ chain, transport: http(rpc), account });
const authorization = await wallet.signAuthorization({
  contractAddress: delegate,
  executor: "self",
});
const sent = await wallet.sendTransaction({
  to: account.address,
  authorizationList: [authorization],
});
const provider = new JsonRpcProvider(rpc, 43112, { staticNetwork: true });
const receipt = await provider.waitForTransaction(sent);
const tx = await provider.getTransaction(sent);
const block = await provider.getBlock(receipt.blockNumber, true);
const inBlock = block.prefetchedTransactions.find((t) => t.hash === sent);
const auth = (t) =>
  t.authorizationList.map((a) => ({
    address: a.address.toLowerCase(),
    nonce: a.nonce.toString(),
    chainId: a.chainId.toString(),
  }));
console.log(
  JSON.stringify({
    type: tx.type,
    hash: tx.hash,
    sent,
    auth: auth(tx),
    blockAuth: auth(inBlock),
    status: receipt.status,
  }),
)
