// P→C and C→P with @avalabs/avalanchejs 5.2; args: url, ewoq key, nAVAX to C, nAVAX to P.
import { Context, pvm, evm, utils, TransferableOutput, addTxSignatures } from '@avalabs/avalanchejs';
const [url, keyHex, toC, toP] = process.argv.slice(2);
const key = utils.hexToBuffer(keyHex);
const EWOQ = 'P-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u';
const EWOQ_C = 'C-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u';
const ETH = '0x8db97C7cEcE249c2b98bDC0226Cc4C2A57BF52FC';
const ewoq = utils.bech32ToBytes(EWOQ);
const context = await Context.getContextFromURI(url);
const p = new pvm.PVMApi(url);
const c = new evm.EVMApi(url);
const rpc = async (method, params) => {
  const r = await fetch(url + '/ext/bc/C/rpc', { method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  return (await r.json()).result;
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
async function pCommitted(txID) {
  for (let i = 0; i < 30; i++) { if ((await p.getTxStatus({ txID })).status === 'Committed') return true; await sleep(100); }
  return false;
}
async function cAccepted(txID) {
  for (let i = 0; i < 30; i++) { const s = await c.getAtomicTxStatus(txID); if (s.status === 'Accepted') return s; await sleep(100); }
  return await c.getAtomicTxStatus(txID);
}
const out = {};
// 1. P → C: export on P, import on C.
{
  const { utxos } = await p.getUTXOs({ addresses: [EWOQ] });
  const tx = pvm.e.newExportTx({ feeState: await p.getFeeState(), fromAddressesBytes: [ewoq], utxos,
    destinationChainId: context.cBlockchainID,
    outputs: [TransferableOutput.fromNative(context.avaxAssetID, BigInt(toC), [ewoq])] }, context);
  await addTxSignatures({ unsignedTx: tx, privateKeys: [key] });
  const { txID } = await p.issueSignedTx(tx.getSignedTx());
  out.pExport = { txID, committed: await pCommitted(txID) };
}
{
  const before = BigInt(await rpc('eth_getBalance', [ETH, 'latest']));
  const baseFee = await c.getBaseFee();
  const { utxos } = await c.getUTXOs({ sourceChain: 'P', addresses: [EWOQ_C] });
  const tx = evm.newImportTxFromBaseFee(context, utils.hexToBuffer(ETH), [ewoq], utxos,
    context.pBlockchainID, baseFee / 1_000_000_000n);
  await addTxSignatures({ unsignedTx: tx, privateKeys: [key] });
  const signed = tx.getSignedTx();
  const { txID } = await c.issueSignedTx(signed);
  const status = await cAccepted(txID);
  const after = BigInt(await rpc('eth_getBalance', [ETH, 'latest']));
  const got = await c.getAtomicTx({ txID, encoding: 'hex' });
  out.cImport = { txID, utxos: utxos.length, baseFee: baseFee.toString(), status,
    hex: utils.bufferToHex(utils.addChecksum(signed.toBytes())), grew: (after - before).toString(),
    fetched: utils.bufferToHex(utils.addChecksum(got.tx.toBytes())), height: got.blockHeight?.toString() };
}
// 2. C → P: export on C, import on P.
{
  const before = BigInt(await rpc('eth_getBalance', [ETH, 'latest']));
  const nonce = BigInt(await rpc('eth_getTransactionCount', [ETH, 'latest']));
  const baseFee = await c.getBaseFee();
  const tx = evm.newExportTxFromBaseFee(context, baseFee / 1_000_000_000n, BigInt(toP),
    context.pBlockchainID, utils.hexToBuffer(ETH), [ewoq], nonce);
  await addTxSignatures({ unsignedTx: tx, privateKeys: [key] });
  const signed = tx.getSignedTx();
  const { txID } = await c.issueSignedTx(signed);
  const status = await cAccepted(txID);
  const after = BigInt(await rpc('eth_getBalance', [ETH, 'latest']));
  const nonceAfter = BigInt(await rpc('eth_getTransactionCount', [ETH, 'latest']));
  out.cExport = { txID, status, baseFee: baseFee.toString(), hex: utils.bufferToHex(utils.addChecksum(signed.toBytes())),
    shrank: (before - after).toString(), nonce: nonce.toString(), nonceAfter: nonceAfter.toString() };
  let again = '';
  try { await c.issueSignedTx(signed); } catch (e) { again = String(e.message); }
  out.cExport.again = again;
}
{
  const balance = (await p.getBalance({ addresses: [EWOQ] })).balance;
  const { utxos } = await p.getUTXOs({ sourceChain: 'C', addresses: [EWOQ] });
  const tx = pvm.e.newImportTx({ feeState: await p.getFeeState(), fromAddressesBytes: [ewoq], utxos,
    sourceChainId: context.cBlockchainID, toAddressesBytes: [ewoq] }, context);
  await addTxSignatures({ unsignedTx: tx, privateKeys: [key] });
  const { txID } = await p.issueSignedTx(tx.getSignedTx());
  const committed = await pCommitted(txID);
  const after = (await p.getBalance({ addresses: [EWOQ] })).balance;
  out.pImport = { txID, utxos: utxos.length, committed, grew: (after - balance).toString() };
  const left = await p.getUTXOs({ sourceChain: 'C', addresses: [EWOQ] });
  out.pImport.left = left.utxos.length;
}
console.log(JSON.stringify(out));
