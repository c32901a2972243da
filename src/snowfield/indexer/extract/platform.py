"""P-Chain rows from an accepted container of `/ext/index/P/block`: the block, its txs, the
UTXOs they emit and consume, addresses, stakers, subnets and chains. Pure: bytes in, rows out.

UTXO ids, stake outputs' indices and reward types follow platformvm: a tx's outputs are its
UTXOs `0..n-1`; a staking tx's stake outputs come after them (`n..`), locked until its end."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Sequence
from dataclasses import replace

from snowfield.formats import proposervm
from snowfield.formats.bech32 import format_bech32
from snowfield.formats.ids import ID, P_CHAIN_ID
from snowfield.formats.platform.blocks import (
    ApricotOptionBlock,
    BanffOptionBlock,
    BanffProposalBlock,
    decode_block,
)
from snowfield.formats.platform.components import (
    UTXO,
    UTXOID,
    BaseTxFields,
    TransferableInput,
    TransferableOutput,
    utxo_bytes,
)
from snowfield.formats.platform.l1_txs import (
    ConvertSubnetToL1Tx,
    PChainOwner,
    initial_validation_id,
)
from snowfield.formats.platform.secp256k1fx import OutputOwners, TransferInput, TransferOutput
from snowfield.formats.platform.signer import ProofOfPossession
from snowfield.formats.platform.stakeable import LockIn, LockOut
from snowfield.formats.platform.staking_txs import (
    AddDelegatorTx,
    AddPermissionlessDelegatorTx,
    AddPermissionlessValidatorTx,
    AddSubnetValidatorTx,
    AddValidatorTx,
    RemoveSubnetValidatorTx,
)
from snowfield.formats.platform.subnet_txs import (
    CreateChainTx,
    CreateSubnetTx,
    TransferSubnetOwnershipTx,
)
from snowfield.formats.platform.transfer_txs import ExportTx, ImportTx, RewardValidatorTx
from snowfield.formats.platform.txs import Tx
from snowfield.formats.registry import Encodable
from snowfield.indexer.extract.l1_changes import l1_changes
from snowfield.store.primary_blocks import BlockDetail, ProposerRow
from snowfield.store.primary_rows import (
    BlockRows,
    ConversionRow,
    PChainRow,
    Spend,
    StakerRow,
    SubnetRow,
    TxRow,
    UtxoRow,
)


class Addresses:
    """Formats 20-byte short ids as the network's bech32 addresses (no chain prefix); the
    same few addresses recur in every block, so each is formatted once."""

    def __init__(self, hrp: str) -> None:
        self.hrp = hrp
        self._known: dict[bytes, str] = {}

    def of(self, ids: Sequence[object]) -> tuple[str, ...]:
        return tuple(self._one(bytes(a.raw)) for a in ids)  # type: ignore[attr-defined]

    def _one(self, raw: bytes) -> str:
        text = self._known.get(raw)
        if text is None:
            if len(self._known) > 100_000:
                self._known.clear()
            text = self._known[raw] = format_bech32(self.hrp, raw)
        return text


def container_block(container: bytes) -> tuple[bytes, int | None, object]:
    """(inner platformvm block bytes, the wrapper's timestamp or None, the decoded block)."""
    wrapper = proposervm.parse(container)
    inner = wrapper.inner_block
    stamp = getattr(wrapper, "timestamp", None)
    return inner, stamp, decode_block(inner)


def block_detail(container: bytes, inner: bytes, block: object) -> BlockDetail:
    """The block operations' view of a container: the platformvm block's id, parent and type,
    the container's size and its ProposerVM header (None for a pre-fork block)."""
    inner_id = str(ID(hashlib.sha256(inner).digest()))
    parent = str(getattr(block, "parent_id", ""))
    proposer = None
    if inner != container:
        wrapper = proposervm.parse(container)
        node = getattr(wrapper, "proposer", None)
        proposer = ProposerRow(
            str(wrapper.id),
            str(wrapper.parent_id),
            None if node is None else str(node),
            getattr(wrapper, "p_chain_height", None),
            getattr(wrapper, "timestamp", None),
        )
    return BlockDetail(inner_id, parent, type(block).__name__, len(container), proposer)


def extract(
    height: int, block_id: str, container: bytes, accepted_ns: int, addresses: Addresses
) -> BlockRows:
    """The rows of one accepted P-Chain container."""
    inner, stamp, block = container_block(container)
    timestamp = getattr(block, "time", None) or stamp or accepted_ns // 1_000_000_000
    parent = str(getattr(block, "parent_id", ""))
    # The block's own height; `height` (the index position) only for blocks without one.
    rows = BlockRows(getattr(block, "height", height), block_id, parent, int(timestamp))
    rows.detail = block_detail(container, inner, block)
    if isinstance(block, (BanffOptionBlock, ApricotOptionBlock)):
        rows.option = "commit" if "Commit" in type(block).__name__ else "abort"
    for index, tx in enumerate(_txs(block)):
        _tx_rows(rows, index, tx, addresses)
    return rows


def genesis_rows(
    height: int, block_id: str, timestamp: int, txs: Sequence[Tx], addresses: Addresses
) -> BlockRows:
    """Rows of txs the genesis state holds (its stakers), placed in the genesis block."""
    rows = BlockRows(height, block_id, "", timestamp)
    for index, tx in enumerate(txs):
        _tx_rows(rows, index, tx, addresses)
    return rows


def _txs(block: object) -> Iterator[Tx]:
    if isinstance(block, BanffProposalBlock):
        yield from block.decision_txs
        yield block.tx
        return
    txs = getattr(block, "txs", None)
    if txs:
        yield from txs
        return
    tx = getattr(block, "tx", None)
    if tx is not None:
        yield tx


def _tx_rows(rows: BlockRows, index: int, tx: Tx, addresses: Addresses) -> None:
    unsigned = tx.unsigned
    tx_id = str(tx.id)
    kind = type(unsigned).__name__
    base: BaseTxFields | None = getattr(unsigned, "base", None)
    named: list[str] = []
    first_emitted = len(rows.emitted)  # this tx's UTXOs follow the block's earlier txs'
    details: dict[str, object] = {}
    memo = base.memo.decode("utf-8", "replace") if base is not None else ""
    if base is not None:
        for i, out in enumerate(base.outputs):
            rows.emitted.append(_utxo(tx.id, tx_id, i, out, addresses, P_CHAIN_ID, P_CHAIN_ID))
        for spent in base.inputs:
            rows.spends.append((tx_id, _spend(spent, str(P_CHAIN_ID))))
    if isinstance(unsigned, ImportTx):
        details["sourceChain"] = str(unsigned.source_chain)
        for spent in unsigned.imported_inputs:
            rows.spends.append((tx_id, _spend(spent, str(unsigned.source_chain))))
    if isinstance(unsigned, ExportTx):
        details["destinationChain"] = str(unsigned.destination_chain)
        first = len(base.outputs) if base is not None else 0
        for i, out in enumerate(unsigned.exported_outputs):
            rows.emitted.append(
                _utxo(
                    tx.id, tx_id, first + i, out, addresses, P_CHAIN_ID, unsigned.destination_chain
                )
            )
    _staking(rows, tx.id, tx_id, unsigned, addresses, details, base)
    _subnet(rows, tx_id, unsigned, addresses, details)
    rows.l1_changes.extend(l1_changes(tx_id, index, unsigned))
    if isinstance(unsigned, RewardValidatorTx):
        details["stakingTxHash"] = str(unsigned.tx_id)
        rows.ended.append((str(unsigned.tx_id), tx_id))
    if isinstance(unsigned, RemoveSubnetValidatorTx):
        details["nodeId"] = str(unsigned.node_id)
        details["subnetId"] = str(unsigned.subnet_id)
        rows.removed.append((str(unsigned.node_id), str(unsigned.subnet_id), tx_id))
    for utxo in rows.emitted[first_emitted:]:
        named.extend(utxo.addresses)
    for key in ("rewardAddresses", "_feeAddresses"):
        named.extend(details.get(key, ()))  # type: ignore[arg-type]
    details.pop("_feeAddresses", None)
    rows.txs.append(TxRow(tx_id, kind, index, memo, details, tuple(dict.fromkeys(named))))


def _staking(
    rows: BlockRows,
    tx: ID,
    tx_id: str,
    unsigned: object,
    addresses: Addresses,
    details: dict[str, object],
    base: BaseTxFields | None,
) -> None:
    if not isinstance(
        unsigned,
        (
            AddValidatorTx,
            AddDelegatorTx,
            AddSubnetValidatorTx,
            AddPermissionlessValidatorTx,
            AddPermissionlessDelegatorTx,
        ),
    ):
        return
    v = unsigned.validator
    # Post-Durango txs leave the start 0: the staker starts at its block's time.
    start = v.start or rows.timestamp
    subnet = str(getattr(unsigned, "subnet_id", P_CHAIN_ID))
    details.update(nodeId=str(v.node_id), subnetId=subnet, startTimestamp=start, endTimestamp=v.end)
    stake: tuple[TransferableOutput, ...] = getattr(unsigned, "stake", ())
    first = len(base.outputs) if base is not None else 0
    for i, out in enumerate(stake):
        rows.emitted.append(
            _utxo(tx, tx_id, first + i, out, addresses, P_CHAIN_ID, P_CHAIN_ID, (start, v.end))
        )
    reward_owner = getattr(unsigned, "rewards_owner", None) or getattr(
        unsigned, "validator_rewards_owner", None
    )
    reward_owner = reward_owner or getattr(unsigned, "delegation_rewards_owner", None)
    fee_owner = getattr(unsigned, "delegator_rewards_owner", None)
    reward = _owner_addresses(reward_owner, addresses)
    fee = _owner_addresses(fee_owner, addresses) if fee_owner is not None else reward
    shares = getattr(unsigned, "shares", None)
    shares = getattr(unsigned, "delegation_shares", shares)
    is_delegator = isinstance(unsigned, (AddDelegatorTx, AddPermissionlessDelegatorTx))
    if shares is not None and not is_delegator:
        details["delegationFeePercent"] = _percent(shares)
    if reward:
        details["rewardAddresses"] = list(reward)
        details["_feeAddresses"] = list(fee)
    signer = getattr(unsigned, "signer", None)
    if isinstance(signer, ProofOfPossession):
        details["blsCredentials"] = {
            "publicKey": "0x" + signer.public_key.hex(),
            "proofOfPossession": "0x" + signer.proof.hex(),
        }
    kind = "DELEGATOR" if is_delegator else "VALIDATOR"
    if isinstance(unsigned, AddSubnetValidatorTx) or (
        subnet != str(P_CHAIN_ID) and not is_delegator
    ):
        kind = "SUBNET_VALIDATOR"
    amount = v.weight
    rows.stakers.append(
        StakerRow(
            tx_id,
            kind,
            str(v.node_id),
            subnet,
            start,
            v.end,
            amount,
            reward,
            fee,
            None if shares is None or is_delegator else shares,
        )
    )


def _subnet(
    rows: BlockRows,
    tx_id: str,
    unsigned: object,
    addresses: Addresses,
    details: dict[str, object],
) -> None:
    if isinstance(unsigned, CreateSubnetTx):
        owner = _owner(unsigned.owner, addresses)
        rows.subnets.append(SubnetRow(tx_id, tx_id, owner))
        details["subnetOwnershipInfo"] = _ownership(owner)
        details["subnetId"] = tx_id
    elif isinstance(unsigned, TransferSubnetOwnershipTx):
        owner = _owner(unsigned.owner, addresses)
        rows.owners.append((str(unsigned.subnet_id), owner))
        details["subnetOwnershipInfo"] = _ownership(owner)
        details["subnetId"] = str(unsigned.subnet_id)
    elif isinstance(unsigned, CreateChainTx):
        rows.chains.append(
            PChainRow(
                tx_id,
                str(unsigned.subnet_id),
                unsigned.chain_name,
                str(unsigned.vm_id),
                evm_chain_id(unsigned.genesis_data),
                _json_text(unsigned.genesis_data),
            )
        )
        details["subnetId"] = str(unsigned.subnet_id)
        details["blockchainInfo"] = blockchain_info(
            unsigned.chain_name, str(unsigned.vm_id), unsigned.genesis_data
        )
    elif isinstance(unsigned, ConvertSubnetToL1Tx):
        _conversion(rows, tx_id, unsigned, addresses, details)
    elif type(unsigned).__name__ in (
        "IncreaseL1ValidatorBalanceTx",
        "DisableL1ValidatorTx",
    ):
        validation = getattr(unsigned, "validation_id")  # noqa: B009 - both types have it
        details["l1ValidatorDetails"] = [
            {
                "validationId": str(validation),
                "validationIdHex": "0x" + bytes(validation.raw).hex(),
                "weight": 0,
                "remainingBalance": 0,
                **(
                    {"balanceChange": getattr(unsigned, "balance")}  # noqa: B009
                    if hasattr(unsigned, "balance")
                    else {}
                ),
            }
        ]


def _conversion(
    rows: BlockRows,
    tx_id: str,
    tx: ConvertSubnetToL1Tx,
    addresses: Addresses,
    details: dict[str, object],
) -> None:
    manager = {"blockchainId": str(tx.chain_id), "contractAddress": "0x" + tx.address.hex()}
    rows.conversions.append(
        ConversionRow(str(tx.subnet_id), tx_id, str(tx.chain_id), "0x" + tx.address.hex())
    )
    details["subnetId"] = str(tx.subnet_id)
    details["l1ValidatorManagerDetails"] = manager
    validators = []
    for index, v in enumerate(tx.validators):
        validation = initial_validation_id(tx.subnet_id, index)
        validators.append(
            {
                "validationId": str(validation),
                "validationIdHex": "0x" + bytes(validation.raw).hex(),
                "nodeId": _node_id(v.node_id),
                "subnetId": str(tx.subnet_id),
                "weight": v.weight,
                "remainingBalance": v.balance,
                "blsCredentials": {
                    "publicKey": "0x" + v.signer.public_key.hex(),
                    "proofOfPossession": "0x" + v.signer.proof.hex(),
                },
            }
        )
    details["l1ValidatorDetails"] = validators


def _node_id(raw: bytes) -> str:
    from snowfield.formats.ids import NodeID

    return str(NodeID(raw)) if len(raw) == 20 else "0x" + raw.hex()


def blockchain_info(name: str, vm_id: str, genesis: bytes) -> dict[str, object]:
    """{chainName, vmId, genesisData?}: genesisData when the genesis bytes are JSON (EVMs)."""
    info: dict[str, object] = {"chainName": name, "vmId": vm_id}
    parsed = evm_genesis(genesis)
    if parsed is not None:
        info["genesisData"] = parsed
    return info


def evm_genesis(genesis: bytes) -> dict[str, object] | None:
    """An EVM genesis as the data API shapes it, or None when the bytes are not one."""
    try:
        doc = json.loads(genesis)
    except (ValueError, UnicodeDecodeError):
        return None
    if not isinstance(doc, dict) or not isinstance(doc.get("config"), dict):
        return None
    # The official client types baseFeePerGas and airdropAmount as number|null (a hex string
    # there fails it): numbers they become.
    for key in ("baseFeePerGas", "airdropAmount"):
        value = doc.get(key)
        if isinstance(value, str):
            try:
                doc[key] = int(value, 0)
            except ValueError:
                doc.pop(key)
        elif value is None:
            doc.pop(key, None)
    return {k: v for k, v in doc.items() if v is not None}


def _json_text(genesis: bytes) -> str | None:
    doc = evm_genesis(genesis)
    return None if doc is None else json.dumps(doc, separators=(",", ":"))


def evm_chain_id(genesis: bytes) -> int | None:
    doc = evm_genesis(genesis)
    config = doc.get("config") if doc else None
    chain_id = config.get("chainId") if isinstance(config, dict) else None
    return chain_id if isinstance(chain_id, int) else None


def _utxo(
    tx: ID,
    tx_id: str,
    index: int,
    out: TransferableOutput,
    addresses: Addresses,
    created_on: ID,
    consumed_on: ID,
    staked: tuple[int, int] | None = None,
) -> UtxoRow:
    inner = out.output
    stakeable = None
    if isinstance(inner, LockOut):
        stakeable, inner = inner.locktime, inner.output
    assert isinstance(inner, TransferOutput)
    owners = inner.owners
    utxo_id = UTXOID(tx, index)
    return UtxoRow(
        str(utxo_id.input_id),
        tx_id,
        index,
        str(out.asset_id),
        inner.amt,
        addresses.of(owners.addresses),
        owners.threshold,
        owners.locktime,
        stakeable,
        staked is not None,
        str(created_on),
        str(consumed_on),
        "0x" + utxo_bytes(utxo_id, out).hex(),
        start=staked[0] if staked else None,
        end=staked[1] if staked else None,
    )


def reward_utxo(
    utxo_bytes: bytes, addresses: Addresses, reward_type: str, staker: StakerRow
) -> UtxoRow:
    """A reward UTXO as `platform.getRewardUTXOs` returns it."""
    row = node_utxo(UTXO.decode(utxo_bytes), utxo_bytes, addresses)
    assert row is not None
    return replace(row, reward_type=reward_type, start=staker.start, end=staker.end)


def node_utxo(utxo: UTXO, utxo_bytes: bytes, addresses: Addresses) -> UtxoRow | None:
    """The row of a P-Chain UTXO the node served whole (its bytes: reward and genesis UTXOs);
    None for an output that is not a (stakeable-locked) transfer output."""
    inner = utxo.output
    stakeable = None
    if isinstance(inner, LockOut):
        stakeable, inner = inner.locktime, inner.output
    if not isinstance(inner, TransferOutput):
        return None
    return UtxoRow(
        str(utxo.id),
        str(utxo.utxo_id.tx_id),
        utxo.utxo_id.output_index,
        str(utxo.asset_id),
        inner.amt,
        addresses.of(inner.owners.addresses),
        inner.owners.threshold,
        inner.owners.locktime,
        stakeable,
        False,
        str(P_CHAIN_ID),
        str(P_CHAIN_ID),
        "0x" + utxo_bytes.hex(),
    )


def _spend(spent: TransferableInput, source_chain: str) -> Spend:
    inner = spent.input
    if isinstance(inner, LockIn):
        inner = inner.input
    amount = inner.amt if isinstance(inner, TransferInput) else 0
    return Spend(
        str(spent.utxo_id.input_id),
        str(spent.utxo_id.tx_id),
        spent.utxo_id.output_index,
        str(spent.asset_id),
        amount,
        source_chain,
    )


def _owner(owner: Encodable, addresses: Addresses) -> tuple[tuple[str, ...], int, int]:
    if isinstance(owner, OutputOwners):
        return addresses.of(owner.addresses), owner.threshold, owner.locktime
    if isinstance(owner, PChainOwner):
        return addresses.of(owner.addresses), owner.threshold, 0
    return (), 0, 0


def _owner_addresses(owner: object, addresses: Addresses) -> tuple[str, ...]:
    return _owner(owner, addresses)[0] if isinstance(owner, Encodable) else ()


def _ownership(owner: tuple[tuple[str, ...], int, int]) -> dict[str, object]:
    return {"locktime": owner[2], "threshold": owner[1], "addresses": list(owner[0])}


def _percent(shares: int) -> str:
    """Millionths as the data API's percent string (20000 → "2")."""
    whole, rest = divmod(shares, 10_000)
    return str(whole) if rest == 0 else f"{whole}.{rest:04d}".rstrip("0")
