"""`snowfield devnet --l1 NAME`: the P-Chain txs that make an L1 at boot (CreateSubnetTx,
CreateChainTx with the custom EVM, ConvertSubnetToL1Tx with the devnet's validators), signed
by a dev key and paying exactly the dynamic fee, as a wallet would."""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from snowfield.chains.evm.customgenesis import genesis_json
from snowfield.chains.evm.feeconfig import FeeConfig
from snowfield.chains.platform.complexity import tx_complexity
from snowfield.chains.platform.gas import to_gas
from snowfield.crypto.secp256k1 import public_key_of, sign_recoverable
from snowfield.errors import InvalidParams
from snowfield.formats.ids import ID, P_CHAIN_ID, ShortID
from snowfield.formats.platform.components import (
    BaseTxFields,
    TransferableInput,
    TransferableOutput,
)
from snowfield.formats.platform.l1_txs import ConvertSubnetToL1Tx, L1Validator, PChainOwner
from snowfield.formats.platform.secp256k1fx import (
    Credential,
    Input,
    OutputOwners,
    TransferInput,
    TransferOutput,
)
from snowfield.formats.platform.signer import ProofOfPossession
from snowfield.formats.platform.subnet_txs import CreateChainTx, CreateSubnetTx
from snowfield.formats.platform.txs import Tx, unsigned_bytes
from snowfield.formats.platform.types import AnyCredential, UnsignedTx
from snowfield.node.validators import Validator
from snowfield.node.vms.platform.runtime import PlatformRuntime

NANO_AVAX = 10**9
# Each initial validator's P-Chain balance, 1 AVAX: pays the continuous fee (512 nAVAX/s at
# the minimum price) for about three weeks.
VALIDATOR_BALANCE = NANO_AVAX
VALIDATOR_WEIGHT = 100
# The address avalanche-cli deploys the validator manager proxy at: the L1's manager.
MANAGER_ADDRESS = bytes.fromhex("0feedc0de0000000000000000000000000000000")
MAX_INPUTS = 256
# The EVM chain id of the first L1 `--l1 NAME` creates without a genesis; the next get +1, +2.
DEFAULT_L1_CHAIN_ID = 99999
# subnet-evm's default fee config without a block gas cost: a devnet mines a block per
# transaction, and with the default cost a block within 2 s of its parent needs ~0.01 AVAX
# of tips.
DEVNET_L1_FEES = functools.partial(FeeConfig, max_block_gas_cost=0, block_gas_cost_step=0)


@dataclass(frozen=True, slots=True)
class L1Created:
    subnet_id: ID
    blockchain_id: ID


class PlatformWallet:
    """Spends the single-key UTXOs of one P-Chain key; change returns to it."""

    def __init__(self, platform: PlatformRuntime, network_id: int, avax: ID, secret: bytes) -> None:
        self.platform = platform
        self.network_id = network_id
        self.avax = avax
        self.secret = secret
        self.address = ShortID.from_public_key(public_key_of(secret))

    @property
    def owner(self) -> OutputOwners:
        return OutputOwners(0, 1, (self.address,))

    def issue(self, make: Callable[[BaseTxFields], UnsignedTx], spend: int = 0) -> Tx:
        """Builds the tx and issues it; the P-Chain accepts it in a block at once."""
        tx = self.build(make, spend)
        self.platform.issue(Tx.decode(tx.encode()))
        return tx

    def build(self, make: Callable[[BaseTxFields], UnsignedTx], spend: int = 0) -> Tx:
        """`make(base)` paying `spend` plus the dynamic fee, signed (the subnet auth too)."""
        chain = self.platform.chain
        draft, _ = self._base(spend + 1)
        gas = to_gas(tx_complexity(make(draft)), chain.fee_config.weights)
        base, count = self._base(spend + gas * chain.fee_state[1])
        unsigned = make(base)
        needs_auth = isinstance(unsigned, CreateChainTx | ConvertSubnetToL1Tx)
        return self._sign(unsigned, count + (1 if needs_auth else 0))

    def _base(self, amount: int) -> tuple[BaseTxFields, int]:
        page, _ = self.platform.chain.utxos([self.address], limit=MAX_INPUTS)
        chosen, total = [], 0
        for utxo in page:
            output = utxo.output
            if utxo.asset_id != self.avax or not isinstance(output, TransferOutput):
                continue
            if output.owners.threshold != 1 or output.owners.locktime != 0:
                continue
            chosen.append(utxo)
            total += output.amount
            if total >= amount:
                break
        if total < amount:
            raise InvalidParams(f"P-Chain key {self.address} holds too little AVAX for an L1")
        inputs = sorted(
            (
                TransferableInput(u.utxo_id, u.asset_id, TransferInput(u.output.amount, (0,)))
                for u in chosen
            ),
            key=lambda i: i.sort_key(),
        )
        change = total - amount
        outputs = [TransferableOutput(self.avax, TransferOutput(change, self.owner))]
        base = BaseTxFields(
            self.network_id, P_CHAIN_ID, tuple(outputs if change else ()), tuple(inputs)
        )
        return base, len(inputs)

    def _sign(self, unsigned: UnsignedTx, count: int) -> Tx:
        digest = hashlib.sha256(unsigned_bytes(unsigned)).digest()
        signature = sign_recoverable(self.secret, digest)
        credentials: tuple[AnyCredential, ...] = tuple(
            Credential((signature,)) for _ in range(count)
        )
        return Tx(unsigned, credentials)


def create_l1(
    wallet: PlatformWallet,
    name: str,
    vm_id: ID,
    genesis: bytes,
    validators: Sequence[Validator],
) -> L1Created:
    """Subnet, chain, conversion: three txs, each in its own block."""
    subnet = wallet.issue(lambda base: CreateSubnetTx(base, wallet.owner))
    auth = Input((0,))
    chain = wallet.issue(
        lambda base: CreateChainTx(base, subnet.id, name, vm_id, (), genesis, auth)
    )
    owner = PChainOwner(1, (wallet.address,))
    initial = sorted(
        (
            L1Validator(
                v.node_id.raw,
                VALIDATOR_WEIGHT,
                VALIDATOR_BALANCE,
                ProofOfPossession(
                    v.signer.public_key().to_bytes(), v.signer.prove_possession().to_bytes()
                ),
                owner,
                owner,
            )
            for v in validators
        ),
        key=lambda v: v.node_id,
    )
    balances = VALIDATOR_BALANCE * len(initial)
    wallet.issue(
        lambda base: ConvertSubnetToL1Tx(
            base, subnet.id, chain.id, MANAGER_ADDRESS, tuple(initial), auth
        ),
        balances,
    )
    return L1Created(subnet.id, chain.id)


WARP_CONFIG = {"blockTimestamp": 0, "quorumNumerator": 67, "requirePrimaryNetworkSigners": False}


def devnet_l1_genesis(
    chain_id: int,
    funded: Sequence[bytes],
    balance: int,
    gas_limit: int,
    now: int,
    *,
    precompiles: bool = False,
) -> bytes:
    """The genesis `--l1 NAME` gives an L1 without a file: DEVNET_L1_FEES at the devnet's gas
    limit, `funded` holding `balance` wei each, dated `now` (a genesis at 0 would date block 0
    in 1970); Warp active (an L1's validator manager speaks to the P-Chain through it), as
    avalanche-cli makes an L1. `precompiles`: every other precompile active, the first funded
    account their admin."""
    configs = precompile_genesis_configs(funded[0], funded[1:]) if precompiles else {}
    configs = {**configs, "warpConfig": WARP_CONFIG}
    return genesis_json(
        chain_id,
        dict.fromkeys(funded, balance),
        fee=DEVNET_L1_FEES(gas_limit=gas_limit),
        precompiles=configs,
        timestamp=now,
    )


def precompile_genesis_configs(admin: bytes, enabled: Sequence[bytes]) -> dict[str, Any]:
    """Every custom EVM precompile active from genesis with `admin` as its admin; the allow
    lists also enable `enabled` (everyone else is refused, as on a permissioned L1)."""
    owner = {"blockTimestamp": 0, "adminAddresses": ["0x" + admin.hex()]}
    allowed = {**owner, "enabledAddresses": ["0x" + a.hex() for a in enabled]}
    return {
        "txAllowListConfig": allowed,
        "contractDeployerAllowListConfig": allowed,
        "contractNativeMinterConfig": owner,
        "feeManagerConfig": owner,
        "rewardManagerConfig": owner,
    }
