// @avalabs/avalanchejs 5.2, unmodified, against a devnet's X-Chain: a BaseTx; export X→P and
// import on P; export X→C and import on C; export C→X and import on X. Args: url, ewoq key,
// JSON {recipient (hex), amount}. Prints one JSON line; the Python test asserts on it.
import {
  Context, avm, pvm, evm, utils, TransferableOutput, addTxSignatures,
} from '@avalabs/avalanchejs';

const [url, keyHex, argsJson] = process.argv.slice(2);
const args = JSON.parse(argsJson);
const key = utils.hexToBuffer(keyHex);
const context = await Context.getContextFromURI(url);
const x = new avm.AVMApi(url);
const p = new pvm.PVMApi(url);
const c = new evm.EVMApi(url);
const ETH = '0x8db97C7cEcE249c2b98bDC0226Cc4C2A57BF52FC';
const ewoqHex = args.ewoq;
const ewoq = utils.hexToBuffer(ewoqHex);
const addr = (chain) => `${chain}-${utils.formatBech32(context.hrp, ewoq)}`;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const rpc = async (method, params) => {
  const r = await fetch(url + '/ext/bc/C/rpc', { method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  return (await r.json()).result;
};
async function wait(check) {
  for (let i = 0; i < 40; i++) { if (await check()) return true; await sleep(100); }
  return false;
}
const xAccepted = (txID) => wait(async () => (await x.getTxStatus({ txID })).status === 'Accepted');
const pCommitted = (txID) => wait(async () => (await p.getTxStatus({ txID })).status === 'Committed');
const cAccepted = (txID) => wait(async () => (await c.getAtomicTxStatus(txID)).status === 'Accepted');
async function xIssue(tx) {
  await addTxSignatures({ unsignedTx: tx, privateKeys: [key] });
  const { txID } = await x.issueSignedTx(tx.getSignedTx());
  const accepted = await xAccepted(txID);
  const back = await x.getTx({ txID, encoding: 'hex' });
  const same = utils.bufferToHex(back.toBytes()) === utils.bufferToHex(tx.getSignedTx().toBytes());
  return { txID, accepted, roundTrip: same };
}
const out = { hrp: context.hrp, x: context.xBlockchainID, avax: context.avaxAssetID,
  baseTxFee: context.baseTxFee.toString() };
const amount = BigInt(args.amount);

// BaseTx to the recipient.
{
  const { utxos } = await x.getUTXOs({ addresses: [addr('X')] });
  const tx = avm.newBaseTx(context, [ewoq], utxos, [
    TransferableOutput.fromNative(context.avaxAssetID, amount, [utils.hexToBuffer(args.recipient)]),
  ]);
  out.base = await xIssue(tx);
}
// X → P.
{
  const { utxos } = await x.getUTXOs({ addresses: [addr('X')] });
  const tx = avm.newExportTx(context, context.pBlockchainID, [ewoq], utxos, [
    TransferableOutput.fromNative(context.avaxAssetID, amount, [ewoq])]);
  out.xExportP = await xIssue(tx);
  const { utxos: atomic } = await p.getUTXOs({ addresses: [addr('P')], sourceChain: 'X' });
  const imp = pvm.e.newImportTx({ feeState: await p.getFeeState(), fromAddressesBytes: [ewoq],
    sourceChainId: context.xBlockchainID, toAddressesBytes: [ewoq], utxos: atomic }, context);
  await addTxSignatures({ unsignedTx: imp, privateKeys: [key] });
  const { txID } = await p.issueSignedTx(imp.getSignedTx());
  out.pImportX = { txID, utxos: atomic.length, committed: await pCommitted(txID) };
}
// X → C.
{
  const { utxos } = await x.getUTXOs({ addresses: [addr('X')] });
  const tx = avm.newExportTx(context, context.cBlockchainID, [ewoq], utxos, [
    TransferableOutput.fromNative(context.avaxAssetID, amount, [ewoq])]);
  out.xExportC = await xIssue(tx);
  const before = BigInt(await rpc('eth_getBalance', [ETH, 'latest']));
  const baseFee = await c.getBaseFee();
  const { utxos: atomic } = await c.getUTXOs({ sourceChain: 'X', addresses: [addr('C')] });
  const imp = evm.newImportTxFromBaseFee(context, utils.hexToBuffer(ETH), [ewoq], atomic,
    context.xBlockchainID, baseFee / 1_000_000_000n);
  await addTxSignatures({ unsignedTx: imp, privateKeys: [key] });
  const { txID } = await c.issueSignedTx(imp.getSignedTx());
  const accepted = await cAccepted(txID);
  const after = BigInt(await rpc('eth_getBalance', [ETH, 'latest']));
  const imported = imp.getTx().importedInputs.reduce((s, i) => s + i.amount(), 0n);
  const credited = imp.getTx().Outs.reduce((s, o) => s + o.amount.value(), 0n);
  out.cImportX = { txID, accepted, utxos: atomic.length, grew: (after - before).toString(),
    imported: imported.toString(), credited: credited.toString() };
}
// C → X.
{
  const nonce = BigInt(await rpc('eth_getTransactionCount', [ETH, 'latest']));
  const baseFee = await c.getBaseFee();
  const exp = evm.newExportTxFromBaseFee(context, baseFee / 1_000_000_000n, amount,
    context.xBlockchainID, utils.hexToBuffer(ETH), [ewoq], nonce);
  await addTxSignatures({ unsignedTx: exp, privateKeys: [key] });
  const { txID } = await c.issueSignedTx(exp.getSignedTx());
  out.cExportX = { txID, accepted: await cAccepted(txID) };
  const { utxos: atomic } = await x.getUTXOs({ addresses: [addr('X')], sourceChain: 'C' });
  const imp = avm.newImportTx(context, context.cBlockchainID, atomic, [ewoq], [ewoq]);
  out.xImportC = { ...(await xIssue(imp)), utxos: atomic.length };
}
const balance = await x.getBalance({ address: addr('X'), assetID: 'AVAX' });
out.balance = balance.balance.toString();
const recipient = `X-${utils.formatBech32(context.hrp, utils.hexToBuffer(args.recipient))}`;
out.recipientBalance = (await x.getBalance({ address: recipient, assetID: 'AVAX' })).balance.toString();
console.log(JSON.stringify(out, (k, v) => (typeof v === 'bigint' ? v.toString() : v)));
