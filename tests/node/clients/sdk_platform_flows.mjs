// @avalanche-sdk/client 0.1.1, unmodified, drives the P-Chain flows it has builders for:
// BaseTx, staking, delegation, subnet, chain, ConvertSubnetToL1, L1 balance and disable.
// Prints one JSON line with what it issued and read back; the Python test asserts on it.
import { createHash } from 'node:crypto';
import { createAvalancheWalletClient } from '@avalanche-sdk/client';
import { privateKeyToAvalancheAccount } from '@avalanche-sdk/client/accounts';
import { avalancheLocal } from '@avalanche-sdk/client/chains';
import { utils } from '@avalabs/avalanchejs';

const [url, keyHex, argsJson] = process.argv.slice(2);
const args = JSON.parse(argsJson);
const account = privateKeyToAvalancheAccount(keyHex);
const chain = { ...avalancheLocal, rpcUrls: { default: { http: [`${url}/ext/bc/C/rpc`] } } };
const wallet = createAvalancheWalletClient({ account, chain, transport: { type: 'http' } });
const p = wallet.pChain;
const me = account.getXPAddress('P', args.hrp);
const out = { address: me, txs: {} };

async function send(name, prepared) {
  const { txHash } = await wallet.sendXPTransaction(prepared);
  await wallet.waitForTxn({ txHash, chainAlias: 'P', sleepTime: 50 });
  const { status } = await p.getTxStatus({ txID: txHash });
  const { tx } = await p.getTx({ txID: txHash, encoding: 'hex' });
  out.txs[name] = { txID: txHash, status, hex: tx.slice(0, 6) };
  return txHash;
}

const { timestamp } = await p.getTimestamp();
const now = BigInt(Math.floor(new Date(timestamp).getTime() / 1000));
const DAY = 86400n;
const owner = { addresses: [me], threshold: 1 };

await send('base', await p.prepareBaseTxn({
  outputs: [{ addresses: [args.recipient], amount: BigInt(args.amount) }],
}));
await send('addValidator', await p.prepareAddPermissionlessValidatorTxn({
  nodeId: args.nodeId, stakeInAvax: BigInt(args.validatorWeight), end: now + 2n * DAY,
  rewardAddresses: [me], delegatorRewardAddresses: [me], delegatorRewardPercentage: 2,
  publicKey: args.blsKey, signature: args.blsPop,
}));
await send('addDelegator', await p.prepareAddPermissionlessDelegatorTxn({
  nodeId: args.nodeId, stakeInAvax: BigInt(args.delegatorWeight), end: now + DAY + 60n,
  rewardAddresses: [me],
}));
const subnetID = await send('createSubnet', await p.prepareCreateSubnetTxn({
  subnetOwners: owner,
}));
const chainID = await send('createChain', await p.prepareCreateChainTxn({
  subnetId: subnetID, vmId: args.vmId, chainName: 'sdkchain', genesisData: { a: 1 },
  subnetAuth: [0],
}));
await send('convertSubnetToL1', await p.prepareConvertSubnetToL1Txn({
  subnetId: subnetID, blockchainId: chainID, managerContractAddress: args.manager,
  subnetAuth: [0],
  validators: [{
    nodeId: args.l1NodeId, nodePoP: { publicKey: args.l1Key, proofOfPossession: args.l1Pop },
    weight: 100n, initialBalanceInAvax: BigInt(args.l1Balance),
    remainingBalanceOwner: { addresses: [args.refund], threshold: 1 }, deactivationOwner: owner,
  }],
}));
const validationID = utils.base58check.encode(createHash('sha256').update(Buffer.concat([
  Buffer.from(utils.base58check.decode(subnetID)), Buffer.from([0, 0, 0, 0])])).digest());
await send('increaseL1ValidatorBalance', await p.prepareIncreaseL1ValidatorBalanceTxn({
  validationId: validationID, balanceInAvax: BigInt(args.l1TopUp),
}));
const before = await p.getL1Validator({ validationID });
await send('disableL1Validator', await p.prepareDisableL1ValidatorTxn({
  validationId: validationID, disableAuth: [0],
}));
const after = await p.getL1Validator({ validationID });

const big = (x) => (typeof x === 'bigint' ? x.toString() : x);
out.subnetID = subnetID; out.chainID = chainID; out.validationID = validationID;
out.l1Before = { balance: big(before.balance), weight: big(before.weight) };
out.l1After = { balance: big(after.balance), weight: big(after.weight) };
const validators = await p.getCurrentValidators({ nodeIDs: [args.nodeId] });
out.validators = validators.validators.filter((v) => v.nodeID === args.nodeId).map((v) => ({
  weight: big(v.weight), delegatorCount: big(v.delegatorCount) }));
out.subnets = (await p.getSubnets({ ids: [subnetID] })).subnets;
out.blockchains = (await p.getBlockchains()).blockchains.filter((b) => b.id === chainID);
const recipient = await p.getBalance({ addresses: [args.recipient] });
out.recipient = big(recipient.balance);
out.refund = big((await p.getBalance({ addresses: [args.refund] })).balance);
out.utxos = (await p.getUTXOs({ addresses: [me] })).utxos.length;
const stake = await p.getStake({ addresses: [me] });
out.staked = big(stake.staked);
out.stakedOutputs = stake.stakedOutputs.length;
const subnet = await p.getSubnet({ subnetID });
out.subnet = { isPermissioned: subnet.isPermissioned, managerChainID: subnet.managerChainID };
out.status = (await p.getBlockchainStatus({ blockchainId: chainID })).status;
console.log(JSON.stringify(out, (_, v) => (typeof v === 'bigint' ? v.toString() : v)));
