"""The transaction and contract deployer allow lists: roles, RoleSet events, refusals with the
VM's texts, admins and managers changing roles."""

from __future__ import annotations

import pytest

from snowfield.chains.evm.execution.call import CallArgs
from snowfield.chains.evm.execution.transactions import decode_tx
from snowfield.chains.evm.precompiles.abi import checksummed
from snowfield.errors import InvalidParams
from tests.bytecode import STORE, deploy_code
from tests.chains.customevm.driver import ADDRS, Driver, hexaddr, sel, word

TX_LIST = bytes.fromhex("0200000000000000000000000000000000000002")
DEPLOYER_LIST = bytes.fromhex("0200000000000000000000000000000000000000")
ROLE_SET = bytes.fromhex("cdb7ea01f00a414d78757bdb0f6391664ba3fedf987eed280927c1e7d695be3e")
ADMIN, ENABLED, MANAGER = 0, 1, 2  # key indexes; 3 and 4 start with no role


def _list() -> dict[str, list[str]]:
    return {
        "adminAddresses": [hexaddr(ADDRS[ADMIN])],
        "enabledAddresses": [hexaddr(ADDRS[ENABLED])],
        "managerAddresses": [hexaddr(ADDRS[MANAGER])],
    }


@pytest.fixture(scope="module")
def tx_list() -> Driver:
    return Driver(precompiles={"txAllowListConfig": {"blockTimestamp": 0, **_list()}})


def _role(d: Driver, precompile: bytes, who: bytes) -> int:
    return int.from_bytes(
        d.call(ADMIN, precompile, sel("readAllowList(address)") + word(who)), "big"
    )


def test_genesis_roles_read_back_and_the_precompile_has_code_01(tx_list: Driver) -> None:
    roles = [_role(tx_list, TX_LIST, a) for a in ADDRS]
    assert roles == [2, 1, 3, 0, 0]
    state = tx_list.chain.state_at(tx_list.chain.head)
    assert state.code(TX_LIST) == b"\x01" and state.nonce(TX_LIST) == 1


def test_a_sender_without_a_role_is_refused_by_the_pool(tx_list: Driver) -> None:
    with pytest.raises(InvalidParams) as refused:
        tx_list.chain.submit_decoded(decode_tx(tx_list.sign(3, ADDRS[0], value=1)))
    assert str(refused.value) == (
        f"cannot issue transaction from non-allow listed address: {checksummed(ADDRS[3])}"
    )


def test_enabled_cannot_modify_and_gets_the_vms_error(tx_list: Driver) -> None:
    data = sel("setEnabled(address)") + word(ADDRS[3])
    with pytest.raises(InvalidParams) as refused:
        tx_list.call(ENABLED, TX_LIST, data)
    assert str(refused.value) == (
        f"cannot modify allow list: modify address: {checksummed(ADDRS[3])}, "
        "from role: NoRole, to role: EnabledRole"
    )
    receipt = tx_list.send(ENABLED, TX_LIST, data, gas=100_000)
    assert receipt.status == 0 and receipt.gas_used == 100_000  # precompile errors burn gas
    assert _role(tx_list, TX_LIST, ADDRS[3]) == 0


def test_manager_enables_but_cannot_make_admins(tx_list: Driver) -> None:
    receipt = tx_list.send(MANAGER, TX_LIST, sel("setEnabled(address)") + word(ADDRS[3]))
    assert receipt.status == 1
    (log,) = receipt.logs
    assert log.address == TX_LIST
    assert log.topics == (ROLE_SET, word(1), word(ADDRS[3]), word(ADDRS[MANAGER]))
    assert log.data == word(0)  # the old role
    assert _role(tx_list, TX_LIST, ADDRS[3]) == 1
    assert tx_list.send(3, ADDRS[0], value=5).status == 1  # now allowed to transact
    refused = tx_list.send(MANAGER, TX_LIST, sel("setAdmin(address)") + word(ADDRS[4]))
    assert refused.status == 0 and _role(tx_list, TX_LIST, ADDRS[4]) == 0


def test_admin_changes_any_role_and_static_calls_cannot_write(tx_list: Driver) -> None:
    assert tx_list.send(ADMIN, TX_LIST, sel("setAdmin(address)") + word(ADDRS[4])).status == 1
    assert _role(tx_list, TX_LIST, ADDRS[4]) == 2
    assert tx_list.send(4, TX_LIST, sel("setNone(address)") + word(ADDRS[3])).status == 1
    assert _role(tx_list, TX_LIST, ADDRS[3]) == 0
    with pytest.raises(InvalidParams, match="invalid function selector: 0x12345678"):
        tx_list.call(ADMIN, TX_LIST, bytes.fromhex("12345678"))


@pytest.fixture(scope="module")
def deployers() -> Driver:
    config = {"blockTimestamp": 0, **_list()}
    return Driver(precompiles={"contractDeployerAllowListConfig": config})


def test_only_enabled_origins_deploy(deployers: Driver) -> None:
    code = deploy_code(STORE)
    created = deployers.send(ENABLED, None, code)
    assert created.status == 1 and created.contract_address is not None
    refused = deployers.send(3, None, code, gas=200_000)
    assert refused.status == 0 and refused.gas_used == 200_000
    assert refused.contract_address is None
    with pytest.raises(InvalidParams) as error:
        deployers.chain.call(CallArgs(from_=ADDRS[3], data=code, gas=500_000), deployers.chain.head)
    assert str(error.value) == (
        f"tx.origin {checksummed(ADDRS[3])} is not authorized to deploy a contract"
    )
    assert (
        deployers.send(ADMIN, DEPLOYER_LIST, sel("setEnabled(address)") + word(ADDRS[3])).status
        == 1
    )
    assert deployers.send(3, None, code).status == 1
