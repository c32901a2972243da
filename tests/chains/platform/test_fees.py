"""Etna dynamic fees: complexity pinned to the gas the client libraries compute (px-client-surface
§4.1, measured with avalanchejs 5.2), price and fee-state dynamics as avalanchego computes them."""

from __future__ import annotations

from snowfield.chains.platform.complexity import tx_complexity
from snowfield.chains.platform.config import FeeConfig, ValidatorFeeConfig
from snowfield.chains.platform.gas import FeeState, ValidatorFeeState, calculate_price, to_gas
from snowfield.crypto.keys import EWOQ_KEY
from snowfield.formats.ids import ID, P_CHAIN_ID, PRIMARY_NETWORK_ID, NodeID
from snowfield.formats.platform import l1_txs, staking_txs, subnet_txs, transfer_txs
from snowfield.formats.platform.components import (
    UTXOID,
    BaseTxFields,
    TransferableInput,
    TransferableOutput,
)
from snowfield.formats.platform.secp256k1fx import Input, TransferInput, TransferOutput
from snowfield.formats.platform.types import UnsignedTx
from snowfield.formats.warp.message import BitSetSignature, Message, UnsignedMessage
from tests.chains.platform.wallet import AVAX_ID, owner, pop

WEIGHTS = FeeConfig().weights
OUT = TransferableOutput(AVAX_ID, TransferOutput(1, owner(EWOQ_KEY)))
IN = TransferableInput(UTXOID(ID(b"\x01" * 32), 0), AVAX_ID, TransferInput(5, (0,)))


def _base(extra_outputs: int = 0) -> BaseTxFields:
    return BaseTxFields(12345, P_CHAIN_ID, (OUT,) * (1 + extra_outputs), (IN,))


def _warp() -> bytes:
    unsigned = UnsignedMessage(12345, P_CHAIN_ID, b"abc")
    return Message(unsigned, BitSetSignature.from_indices([0], bytes(96))).encode()


def _gas(unsigned: UnsignedTx) -> tuple[tuple[int, int, int, int], int]:
    complexity = tx_complexity(unsigned)
    return complexity, to_gas(complexity, WEIGHTS)


def test_gas_of_each_tx_type_matches_the_client_libraries() -> None:
    validator = staking_txs.Validator(NodeID(b"\x07" * 20), 0, 100, 5)
    p_owner = l1_txs.PChainOwner(1, owner(EWOQ_KEY).addresses)
    l1_validator = l1_txs.L1Validator(b"\x08" * 20, 1, 5, pop(b"l1"), p_owner, p_owner)
    subnet = ID(b"\x05" * 32)
    cases: list[tuple[UnsignedTx, tuple[int, int, int, int], int]] = [
        (transfer_txs.BaseTx(_base(1)), (379, 1, 3, 200), 5_179),
        (transfer_txs.ExportTx(_base(), ID(b"\x02" * 32), (OUT,)), (415, 1, 3, 200), 5_215),
        (subnet_txs.CreateSubnetTx(_base(), owner(EWOQ_KEY)), (339, 1, 3, 200), 5_139),
        (
            subnet_txs.CreateChainTx(
                _base(), subnet, "a", ID(b"\x03" * 32), (), b"{}", Input((0,))
            ),
            (461, 4, 3, 400),
            9_061,
        ),
        (
            staking_txs.AddPermissionlessValidatorTx(
                _base(),
                validator,
                PRIMARY_NETWORK_ID,
                pop(b"v"),
                (OUT,),
                owner(EWOQ_KEY),
                owner(EWOQ_KEY),
                20_000,
            ),
            (691, 2, 6, 1250),
            13_691,
        ),
        (
            staking_txs.AddPermissionlessDelegatorTx(
                _base(), validator, PRIMARY_NETWORK_ID, (OUT,), owner(EWOQ_KEY)
            ),
            (499, 2, 5, 200),
            8_299,
        ),
        (
            l1_txs.ConvertSubnetToL1Tx(
                _base(), subnet, ID(b"\x06" * 32), b"\x09" * 20, (l1_validator,), Input((0,))
            ),
            (716, 4, 8, 1450),
            18_516,
        ),
        (l1_txs.RegisterL1ValidatorTx(_base(), 5, bytes(96), _warp()), (557, 29, 8, 2255), 46_577),
        (l1_txs.SetL1ValidatorWeightTx(_base(), _warp()), (453, 27, 7, 1205), 39_273),
        (l1_txs.IncreaseL1ValidatorBalanceTx(_base(), subnet, 5), (339, 2, 7, 200), 10_139),
        (l1_txs.DisableL1ValidatorTx(_base(), subnet, Input((0,))), (416, 2, 8, 400), 12_016),
    ]
    for unsigned, complexity, gas in cases:
        assert _gas(unsigned) == (complexity, gas), type(unsigned).__name__


def test_price_is_min_price_at_zero_excess_and_doubles_near_k_ln2() -> None:
    config = FeeConfig()
    k = config.excess_conversion_constant
    assert calculate_price(1, 0, k) == 1
    assert calculate_price(100, 0, k) == 100
    # e^(ln 2) = 2: K·ln2 ≈ 1,500,000 gas of excess doubles the price
    assert calculate_price(1_000_000, 1_500_000, k) in range(1_999_000, 2_001_000)
    assert calculate_price(2**63, 10**12, 1) == 2**64 - 1


def test_fee_state_refills_capacity_and_drains_excess_with_time() -> None:
    config = FeeConfig()
    state = FeeState(config.max_capacity, 0).consume(600_000)
    assert state == FeeState(400_000, 600_000)
    assert state.advance(config, 1) == FeeState(500_000, 550_000)
    assert state.advance(config, 100) == FeeState(config.max_capacity, 0)


def test_l1_validator_fee_costs_min_price_below_target() -> None:
    config = ValidatorFeeConfig()
    assert ValidatorFeeState(current=3).cost_of(config, 60) == 60
    above = ValidatorFeeState(current=config.target + 10_000)
    assert above.cost_of(config, 600) > 600  # excess grows, the price rises
