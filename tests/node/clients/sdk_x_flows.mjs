// @avalanche-sdk/client 0.1.1, unmodified, against a devnet's X-Chain posing as Fuji (its
// cross-chain builders hard-code Fuji's ids): an X BaseTx; export X→P and import on P; export
// P→X and import on X; export X→C and import on C; export C→X and import on X. Args: url, key,
// JSON {recipient (X- address), amount}. Prints one JSON line; the Python test asserts on it.
import { createAvalancheWalletClient } from '@avalanche-sdk/client';
import { privateKeyToAvalancheAccount } from '@avalanche-sdk/client/accounts';
import { avalancheLocal } from '@avalanche-sdk/client/chains';

const [url, keyHex, argsJson] = process.argv.slice(2);
const args = JSON.parse(argsJson);
const account = privateKeyToAvalancheAccount(keyHex);
const chain = { ...avalancheLocal, rpcUrls: { default: { http: [`${url}/ext/bc/C/rpc`] } } };
const wallet = createAvalancheWalletClient({ account, chain, transport: { type: 'http' } });
const x = wallet.xChain;
const hrp = args.hrp ?? 'fuji';
const meX = account.getXPAddress('X', hrp);
const meP = account.getXPAddress('P', hrp);
const eth = account.getEVMAddress();
const amount = BigInt(args.amount);
const out = { txs: {} };
async function send(name, prepared, chainAlias) {
  const { txHash } = await wallet.sendXPTransaction(prepared);
  await wallet.waitForTxn({ txHash, chainAlias, sleepTime: 50 });
  out.txs[name] = txHash;
  return txHash;
}
await send('xBase', await x.prepareBaseTxn({
  outputs: [{ addresses: [args.recipient], amount }],
}), 'X');
if (args.baseOnly) {  // the local network id: the SDK's cross-chain builders refuse it
  out.recipient = (await x.getBalance({ address: args.recipient, assetID: 'AVAX' })).balance;
  console.log(JSON.stringify(out, (k, v) => (typeof v === 'bigint' ? v.toString() : v)));
  process.exit(0);
}
await send('xExportP', await x.prepareExportTxn({
  destinationChain: 'P', exportedOutputs: [{ addresses: [meP], amount }],
}), 'X');
await send('pImportX', await wallet.pChain.prepareImportTxn({
  sourceChain: 'X', importedOutput: { addresses: [meP] },
}), 'P');
await send('pExportX', await wallet.pChain.prepareExportTxn({
  destinationChain: 'X', exportedOutputs: [{ addresses: [meX], amount }],
}), 'P');
await send('xImportP', await x.prepareImportTxn({
  sourceChain: 'P', importedOutput: { addresses: [meX] },
}), 'X');
await send('xExportC', await x.prepareExportTxn({
  destinationChain: 'C', exportedOutputs: [{ addresses: [meX], amount }],
}), 'X');
await send('cImportX', await wallet.cChain.prepareImportTxn({
  sourceChain: 'X', toAddress: eth, fromAddresses: [meX],
}), 'C');
await send('cExportX', await wallet.cChain.prepareExportTxn({
  destinationChain: 'X', fromAddress: eth, exportedOutput: { addresses: [meX], amount },
}), 'C');
await send('xImportC', await x.prepareImportTxn({
  sourceChain: 'C', importedOutput: { addresses: [meX] },
}), 'X');
out.recipient = (await x.getBalance({ address: args.recipient, assetID: 'AVAX' })).balance;
out.status = (await x.getTxStatus({ txID: out.txs.xImportC })).status;
console.log(JSON.stringify(out, (k, v) => (typeof v === 'bigint' ? v.toString() : v)));
