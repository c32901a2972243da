// @avalabs/avalanchejs 5.2, unmodified, and X-Chain assets. Neither client library has an asset
// builder (a caller assembles the tx, px-client-surface.md §3d): it spends with avm.newBaseTx
// (burning createAssetTxFee), assembles a fungible CreateAssetTx from its own classes, signs
// and issues it, then reads the asset back. Its AVM codec also parses the NFT txs and UTXOs
// the test hands it (nftfx classes are not exported) and re-encodes them byte for byte.
// Args: url, ewoq key, JSON {ewoq (hex address), supply, nftTxs: [hex], nftUtxos: [hex]}.
import {
  Context, avm, avmSerial, avaxSerial, utils, secp256k1, OutputOwners, TransferOutput,
  MintOutput, Int, Byte, Stringpr, BigIntPr, Credential, Signature, Utxo,
} from '@avalabs/avalanchejs';
import { sha256 } from '@noble/hashes/sha256';

const [url, keyHex, argsJson] = process.argv.slice(2);
const args = JSON.parse(argsJson);
const key = utils.hexToBuffer(keyHex);
const ewoq = utils.hexToBuffer(args.ewoq);
const context = await Context.getContextFromURI(url);
const x = new avm.AVMApi(url);
const manager = avmSerial.getAVMManager();
const codec = manager.getDefaultCodec();
const me = `X-${utils.formatBech32(context.hrp, ewoq)}`;
const out = { createAssetTxFee: context.createAssetTxFee.toString() };

const { utxos } = await x.getUTXOs({ addresses: [me] });
const spend = avm.newBaseTx({ ...context, baseTxFee: context.createAssetTxFee }, [ewoq], utxos, []);
const base = spend.getTx().baseTx;
const owners = OutputOwners.fromNative([ewoq]);
const state = new avmSerial.InitialState(new Int(0), [
  new MintOutput(owners), new TransferOutput(new BigIntPr(BigInt(args.supply)), owners),
]);
const create = new avmSerial.CreateAssetTx(base, new Stringpr('Client Token'),
  new Stringpr('CLT'), new Byte(new Uint8Array([3])), [state]);
const unsigned = manager.packCodec(create);
const signature = await secp256k1.sign(unsigned, key);
const credentials = base.inputs.map(() => new Credential([new Signature(signature)]));
const signed = utils.concatBytes(unsigned, codec.PackPrefixList(credentials));
const { txID } = await x.issueTx({ tx: utils.bufferToHex(utils.addChecksum(signed)) });
out.txID = txID;
out.computedID = utils.base58check.encode(sha256(signed));
for (let i = 0; i < 40 && (await x.getTxStatus({ txID })).status !== 'Accepted'; i++) {
  await new Promise((r) => setTimeout(r, 50));
}
out.status = (await x.getTxStatus({ txID })).status;
out.asset = await x.getAssetDescription(txID);
out.balance = (await x.getBalance({ address: me, assetID: txID })).balance.toString();

// SignedTx.toBytes() needs the tx's VM, which only the builder-made AVM txs carry: re-encode
// the unsigned CreateAssetTx or OperationTx through the codec, as one assembles it, and read
// the signatures. (Its codec re-encodes an nftfx credential under secp256k1fx's type id, which
// avalanchego would refuse for an NFT operation, so whole signed bytes are not compared.)
out.nftTxs = args.nftTxs.map((h) => {
  const tx = manager.unpack(utils.hexToBuffer(h), avaxSerial.SignedTx);
  return { unsigned: utils.bufferToHex(manager.packCodec(tx.unsignedTx)),
    signatures: tx.getAllSignatures() };
});
out.nftUtxos = args.nftUtxos.map((h) => {
  const utxo = manager.unpack(utils.hexToBuffer(h), Utxo);
  // toBytes leaves out the codec version the node's getUTXOs bytes start with
  return utils.bufferToHex(utils.concatBytes(new Uint8Array(2), utxo.toBytes(codec)));
});
console.log(JSON.stringify(out, (k, v) => (typeof v === 'bigint' ? v.toString() : v)));
