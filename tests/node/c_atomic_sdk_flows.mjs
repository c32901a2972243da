// @avalanche-sdk/client 0.1.1, unmodified: P→C (P export, C import) and C→P (C export, P
// import) with its prepare*Txn builders; args: url, key, nAVAX to C, nAVAX to P.
import { createAvalancheWalletClient } from '@avalanche-sdk/client';
import { privateKeyToAvalancheAccount } from '@avalanche-sdk/client/accounts';
import { avalancheLocal } from '@avalanche-sdk/client/chains';

const [url, keyHex, toC, toP] = process.argv.slice(2);
const account = privateKeyToAvalancheAccount(keyHex);
const chain = { ...avalancheLocal, rpcUrls: { default: { http: [`${url}/ext/bc/C/rpc`] } } };
const wallet = createAvalancheWalletClient({ account, chain, transport: { type: 'http' } });
const me = account.getXPAddress('P', 'fuji');
const eth = account.getEVMAddress();
const rpc = async (method, params) => {
  const r = await fetch(`${url}/ext/bc/C/rpc`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return (await r.json()).result;
};
const balance = async () => BigInt(await rpc('eth_getBalance', [eth, 'latest']));
async function send(prepared, chainAlias) {
  const { txHash } = await wallet.sendXPTransaction(prepared);
  await wallet.waitForTxn({ txHash, chainAlias, sleepTime: 50 });
  return txHash;
}
const out = {};
out.pExport = await send(await wallet.pChain.prepareExportTxn({
  destinationChain: 'C', exportedOutputs: [{ addresses: [me], amount: BigInt(toC) }],
}), 'P');
let before = await balance();
const imp = await wallet.cChain.prepareImportTxn({ sourceChain: 'P', toAddress: eth, fromAddresses: [me] });
out.cImport = await send(imp, 'C');
out.cImportTx = await wallet.cChain.getAtomicTx({ txID: out.cImport, encoding: 'hex' });
out.grew = ((await balance()) - before).toString();
before = await balance();
const exp = await wallet.cChain.prepareExportTxn({
  destinationChain: 'P', fromAddress: eth, exportedOutput: { addresses: [me], amount: BigInt(toP) },
});
out.cExport = await send(exp, 'C');
out.cExportTx = await wallet.cChain.getAtomicTx({ txID: out.cExport, encoding: 'hex' });
out.shrank = (before - (await balance())).toString();
out.pImport = await send(await wallet.pChain.prepareImportTxn({
  sourceChain: 'C', importedOutput: { addresses: [me] },
}), 'P');
out.status = await wallet.cChain.getAtomicTxStatus({ txID: out.cExport });
console.log(JSON.stringify(out, (k, v) => (typeof v === 'bigint' ? v.toString() : v)));
