// @avalabs/avalanchejs 5.2, unmodified, drives every P-Chain flow against a devnet: staking,
// delegation, subnet, chain, ConvertSubnetToL1, L1 balance and disable, ownership transfer.
// Prints one JSON line with what it issued and read back; the Python test asserts on it.
import { createHash } from 'node:crypto';
import {
  Context, pvm, pvmSerial, utils, addTxSignatures, secp256k1, L1Validator, PChainOwner,
} from '@avalabs/avalanchejs';

const [url, keyHex, argsJson] = process.argv.slice(2);
const args = JSON.parse(argsJson);
const context = await Context.getContextFromURI(url);
const api = new pvm.PVMApi(url);
const key = utils.hexToBuffer(keyHex);
const me = secp256k1.publicKeyBytesToAddress(secp256k1.getPublicKey(key));
const myAddr = 'P-' + utils.formatBech32(context.hrp, me);
const newOwner = utils.hexToBuffer(args.newOwner);
const out = { hrp: context.hrp, networkID: context.networkID, address: myAddr, txs: {},
  x: context.xBlockchainID, c: context.cBlockchainID, avax: context.avaxAssetID };

async function issue(name, build, authSigner = false) {
  const { utxos } = await api.getUTXOs({ addresses: [myAddr] });
  const feeState = await api.getFeeState();
  const tx = build({ feeState, fromAddressesBytes: [me], utxos });
  await addTxSignatures({ unsignedTx: tx, privateKeys: [key] });
  if (authSigner) {  // the subnet/disable auth credential is the last one, owner index 0
    const sig = await secp256k1.sign(tx.toBytes(), key);
    tx.addSignatureAt(sig, tx.getCredentials().length - 1, 0);
  }
  const { txID } = await api.issueSignedTx(tx.getSignedTx());
  let status = '';
  for (let i = 0; i < 30 && status !== 'Committed'; i++) {
    ({ status } = await api.getTxStatus({ txID }));
    if (status !== 'Committed') await new Promise((r) => setTimeout(r, 100));
  }
  const back = await api.getTx({ txID, encoding: 'hex' });
  out.txs[name] = {
    txID, status,
    roundTrip: utils.bufferToHex(back.toBytes()) === utils.bufferToHex(tx.getSignedTx().toBytes()),
  };
  return txID;
}

const { timestamp } = await api.getTimestamp();
const now = BigInt(Math.floor(new Date(timestamp).getTime() / 1000));
const DAY = 86400n;

// Staking: a new validator with a BLS proof of possession, then a delegation to it.
await issue('addValidator', (common) => pvm.e.newAddPermissionlessValidatorTx({
  ...common, nodeId: args.nodeId, start: now, end: now + 2n * DAY,
  weight: BigInt(args.validatorWeight), rewardAddresses: [me], delegatorRewardsOwner: [me],
  shares: 20_000, subnetId: context.primarySubnetID ?? '11111111111111111111111111111111LpoYY',
  publicKey: utils.hexToBuffer(args.blsKey), signature: utils.hexToBuffer(args.blsPop),
}, context));
await issue('addDelegator', (common) => pvm.e.newAddPermissionlessDelegatorTx({
  ...common, nodeId: args.nodeId, start: now, end: now + DAY + 3600n,
  weight: BigInt(args.delegatorWeight), rewardAddresses: [me],
  subnetId: '11111111111111111111111111111111LpoYY',
}, context));

// A subnet, a chain on it, then the subnet becomes an L1 with one validator.
const subnetID = await issue('createSubnet', (common) => pvm.e.newCreateSubnetTx({
  ...common, subnetOwners: [me], threshold: 1,
}, context));
const chainID = await issue('createChain', (common) => pvm.e.newCreateChainTx({
  ...common, subnetId: subnetID, vmId: args.vmId, chainName: 'clientchain', fxIds: [],
  genesisData: { config: { chainId: 99999 } }, subnetAuth: [0],
}, context), true);
const owner = PChainOwner.fromNative([me], 1);
const refundOwner = PChainOwner.fromNative([utils.hexToBuffer(args.refund)], 1);
await issue('convertSubnetToL1', (common) => pvm.e.newConvertSubnetToL1Tx({
  ...common, subnetId: subnetID, chainId: chainID, address: utils.hexToBuffer(args.manager),
  subnetAuth: [0],
  validators: [L1Validator.fromNative(args.l1NodeId, 100n, BigInt(args.l1Balance),
    new pvmSerial.ProofOfPossession(utils.hexToBuffer(args.l1Key), utils.hexToBuffer(args.l1Pop)),
    refundOwner, owner)],
}, context), true);
const validationID = utils.base58check.encode(createHash('sha256').update(Buffer.concat([
  Buffer.from(utils.base58check.decode(subnetID)), Buffer.from([0, 0, 0, 0])])).digest());
out.validationID = validationID;
await issue('increaseL1ValidatorBalance', (common) => pvm.e.newIncreaseL1ValidatorBalanceTx({
  ...common, validationId: validationID, balance: BigInt(args.l1TopUp),
}, context));
const l1Before = await api.getL1Validator(validationID);
await issue('disableL1Validator', (common) => pvm.e.newDisableL1ValidatorTx({
  ...common, validationId: validationID, disableAuth: [0],
}, context), true);
const l1After = await api.getL1Validator(validationID);

// A second subnet changes hands.
const subnet2 = await issue('createSubnet2', (common) => pvm.e.newCreateSubnetTx({
  ...common, subnetOwners: [me], threshold: 1,
}, context));
await issue('transferSubnetOwnership', (common) => pvm.e.newTransferSubnetOwnershipTx({
  ...common, subnetId: subnet2, subnetAuth: [0], subnetOwners: [newOwner], threshold: 1,
}, context), true);

// Reads.
const big = (x) => (typeof x === 'bigint' ? x.toString() : x);
const l1 = (v) => ({ balance: big(v.balance), weight: big(v.weight), nodeID: v.nodeID,
  subnetID: v.subnetID, threshold: v.deactivationOwner.threshold,
  owner: v.deactivationOwner.addresses.map((a) => a.toString(context.hrp)) });
out.subnetID = subnetID; out.chainID = chainID; out.subnet2 = subnet2;
out.l1Before = l1(l1Before); out.l1After = l1(l1After);
const validators = await api.getCurrentValidators({ nodeIDs: [args.nodeId] });
out.validators = validators.validators.map((v) => ({ nodeID: v.nodeID, weight: v.weight,
  delegatorCount: v.delegatorCount, delegatorWeight: v.delegatorWeight }));
const l1Set = await api.getCurrentValidators({ subnetID });
out.l1Validators = l1Set.validators.length;
const subnets = await api.getSubnets({ ids: [subnetID, subnet2] });
out.subnets = subnets.subnets;
out.blockchains = (await api.getBlockchains()).blockchains.filter((b) => b.subnetID === subnetID);
const balance = await api.getBalance({ addresses: [myAddr] });
out.balance = { balance: big(balance.balance), unlocked: big(balance.unlocked),
  lockedStakeable: big(balance.lockedStakeable), utxoIDs: (balance.utxoIDs ?? []).length };
const { utxos } = await api.getUTXOs({ addresses: [myAddr] });
out.utxos = utxos.length;
const refundAddr = 'P-' + utils.formatBech32(context.hrp, utils.hexToBuffer(args.refund));
out.refund = big((await api.getBalance({ addresses: [refundAddr] })).balance);
console.log(JSON.stringify(out));
