"""The C-Chain's eth_ API driven by web3.py: transfers, contracts, logs, receipts, proofs."""

from __future__ import annotations

import rlp
from eth_account import Account
from eth_utils import keccak
from trie import HexaryTrie
from web3 import Web3

from tests.bytecode import CALLER, REVERTER, STORE, STORE_TOPIC, deploy_code, word
from tests.helpers import signed_transfer

DEV0 = Web3.to_checksum_address("0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266")
DEV1 = Web3.to_checksum_address("0x70997970c51812dc3a010c7d01b50e0d17dc79c8")
KEY0 = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"


def deploy(w3: Web3, runtime: bytes) -> str:
    tx = w3.eth.send_transaction({"from": DEV0, "data": deploy_code(runtime)})
    receipt = w3.eth.wait_for_transaction_receipt(tx)
    assert receipt["status"] == 1
    return str(receipt["contractAddress"])


def test_chain_identity(w3: Web3) -> None:
    assert w3.eth.chain_id == 43112
    assert w3.net.version == "43112"
    assert w3.is_connected()
    assert w3.eth.accounts[0] == DEV0
    assert w3.eth.get_balance(DEV0) > 0
    assert w3.eth.syncing is False


def test_signed_transfer_mines_at_once(w3: Web3) -> None:
    before = w3.eth.block_number
    to = Account.create().address
    nonce = w3.eth.get_transaction_count(DEV0, "pending")
    tx_hash = w3.eth.send_raw_transaction(signed_transfer(nonce, to=to, value=12345))
    receipt = w3.eth.get_transaction_receipt(tx_hash)
    assert receipt["status"] == 1 and receipt["gasUsed"] == 21000
    assert receipt["blockNumber"] == before + 1
    assert w3.eth.get_balance(to) == 12345
    tx = w3.eth.get_transaction(tx_hash)
    assert tx["from"] == DEV0 and tx["nonce"] == nonce and tx["type"] == 2
    block = w3.eth.get_block(receipt["blockNumber"], full_transactions=True)
    assert block["transactions"][0]["hash"] == tx_hash
    assert w3.eth.get_balance(to, block_identifier=before) == 0


def test_legacy_and_access_list_transactions(w3: Web3) -> None:
    to = Account.create().address
    price = w3.eth.gas_price
    for tx_type, extra in ((0, {"gasPrice": price}), (1, {"gasPrice": price, "accessList": []})):
        fields = {
            "to": to,
            "value": 1,
            "gas": 21000,
            "chainId": 43112,
            "nonce": w3.eth.get_transaction_count(DEV0, "pending"),
            **extra,
        }
        if tx_type == 1:
            fields["type"] = 1
        signed = Account.sign_transaction(fields, KEY0)
        receipt = w3.eth.wait_for_transaction_receipt(
            w3.eth.send_raw_transaction(signed.raw_transaction)
        )
        assert receipt["status"] == 1 and receipt["type"] == tx_type
    assert w3.eth.get_balance(to) == 2


def test_contract_storage_logs_and_call(w3: Web3) -> None:
    address = deploy(w3, STORE)
    assert w3.eth.get_code(address) == STORE
    tx = w3.eth.send_transaction({"from": DEV0, "to": address, "data": word(42)})
    receipt = w3.eth.wait_for_transaction_receipt(tx)
    assert w3.eth.get_storage_at(address, 0) == word(42)
    (log,) = receipt["logs"]
    assert log["address"] == address and log["topics"][0] == STORE_TOPIC
    assert log["data"] == word(42)
    logs = w3.eth.get_logs({"fromBlock": 0, "address": address, "topics": [STORE_TOPIC]})
    assert [entry["transactionHash"] for entry in logs] == [tx]
    assert w3.eth.get_logs({"fromBlock": 0, "topics": ["0x" + "bb" * 32]}) == []
    assert w3.eth.call({"to": address, "data": word(7)}) == word(7)
    assert w3.eth.get_block_receipts(receipt["blockNumber"])[0]["transactionHash"] == tx


def test_estimate_gas_is_enough(w3: Web3) -> None:
    address = deploy(w3, STORE)
    for value in (9, 10):
        call = {"from": DEV0, "to": address, "data": word(value)}
        estimate = w3.eth.estimate_gas(call)
        assert 21000 < estimate < 100_000
        # One gas less fails, the estimate itself succeeds: it is the minimum.
        tx = w3.eth.send_transaction({**call, "gas": estimate - 1})
        assert w3.eth.wait_for_transaction_receipt(tx)["status"] == 0
        tx = w3.eth.send_transaction({**call, "gas": estimate})
        assert w3.eth.wait_for_transaction_receipt(tx)["status"] == 1


def test_block_hash_recomputes_from_header_fields(w3: Web3) -> None:
    block = w3.provider.make_request("eth_getBlockByNumber", ["latest", False])["result"]
    fields = [
        "parentHash",
        "sha3Uncles",
        "miner",
        "stateRoot",
        "transactionsRoot",
        "receiptsRoot",
        "logsBloom",
        "difficulty",
        "number",
        "gasLimit",
        "gasUsed",
        "timestamp",
        "extraData",
        "mixHash",
        "nonce",
        "extDataHash",
        "baseFeePerGas",
        "extDataGasUsed",
        "blockGasCost",
        "blobGasUsed",
        "excessBlobGas",
        "parentBeaconBlockRoot",
    ]
    quantities = {
        "difficulty",
        "number",
        "gasLimit",
        "gasUsed",
        "timestamp",
        "baseFeePerGas",
        "extDataGasUsed",
        "blockGasCost",
        "blobGasUsed",
        "excessBlobGas",
    }
    items = [int(block[f], 16) if f in quantities else bytes.fromhex(block[f][2:]) for f in fields]
    assert "0x" + keccak(rlp.encode(items)).hex() == block["hash"]


def test_transactions_root_recomputes_from_raw_transactions(w3: Web3) -> None:
    deploy(w3, STORE)
    block = w3.eth.get_block("latest")
    trie = HexaryTrie({})
    for i, tx_hash in enumerate(block["transactions"]):
        raw = w3.provider.make_request("eth_getRawTransactionByHash", [tx_hash.to_0x_hex()])[
            "result"
        ]
        assert keccak(bytes.fromhex(raw[2:])) == bytes(tx_hash)
        trie[rlp.encode(i)] = bytes.fromhex(raw[2:])
    assert trie.root_hash == bytes(block["transactionsRoot"])


def test_get_proof_verifies_against_state_root(w3: Web3) -> None:
    address = deploy(w3, STORE)
    w3.eth.wait_for_transaction_receipt(
        w3.eth.send_transaction({"from": DEV0, "to": address, "data": word(99)})
    )
    block = w3.eth.get_block("latest")
    proof = w3.eth.get_proof(address, [0], block["number"])
    key = keccak(bytes.fromhex(address[2:]))
    account_rlp = HexaryTrie.get_from_proof(
        bytes(block["stateRoot"]), key, [rlp.decode(bytes(n)) for n in proof["accountProof"]]
    )
    _nonce, _balance, storage_root, code_hash = rlp.decode(account_rlp)
    assert storage_root == bytes(proof["storageHash"])
    assert code_hash == keccak(STORE) == bytes(proof["codeHash"])
    slot = proof["storageProof"][0]
    value = HexaryTrie.get_from_proof(
        storage_root, keccak(word(0)), [rlp.decode(bytes(n)) for n in slot["proof"]]
    )
    assert rlp.decode(value) == (99).to_bytes(1, "big")
    assert int.from_bytes(slot["value"], "big") == 99
    # An absent account proves absence.
    missing = w3.eth.get_proof(Account.create().address, [], block["number"])
    assert missing["balance"] == 0 and missing["nonce"] == 0


def test_revert_reports_code_3_with_data(w3: Web3) -> None:
    address = deploy(w3, REVERTER)
    reply = w3.provider.make_request("eth_call", [{"to": address, "data": "0x"}, "latest"])
    assert reply["error"]["code"] == 3
    assert reply["error"]["message"] == "execution reverted: boom"
    assert reply["error"]["data"].startswith("0x08c379a0")
    reply = w3.provider.make_request("eth_estimateGas", [{"from": DEV0, "to": address}])
    assert reply["error"]["code"] == 3


def test_failed_transaction_is_mined_with_status_0(w3: Web3) -> None:
    address = deploy(w3, REVERTER)
    tx = w3.eth.send_transaction({"from": DEV0, "to": address, "gas": 100_000})
    receipt = w3.eth.wait_for_transaction_receipt(tx)
    assert receipt["status"] == 0 and receipt["gasUsed"] < 100_000


def test_fee_endpoints(w3: Web3) -> None:
    base = int(w3.provider.make_request("eth_baseFee", [])["result"], 16)
    tip = w3.eth.max_priority_fee
    assert base >= 10**9 and tip > 0
    assert w3.eth.gas_price == base + tip
    history = w3.eth.fee_history(4, "latest", [10, 90])
    assert len(history["baseFeePerGas"]) == len(history["gasUsedRatio"]) + 1
    assert len(history["reward"]) == len(history["gasUsedRatio"])
    config = w3.provider.make_request("eth_getChainConfig", [])["result"]
    assert config["chainId"] == 43112 and config["durangoBlockTimestamp"] == 0


def test_personal_and_keystore(w3: Web3) -> None:
    key = Account.create()
    address = w3.provider.make_request("personal_importRawKey", [key.key.hex(), "pw"])["result"]
    assert Web3.to_checksum_address(address) == key.address
    w3.eth.wait_for_transaction_receipt(
        w3.eth.send_transaction({"from": DEV0, "to": key.address, "value": 10**18})
    )
    locked = w3.provider.make_request(
        "eth_sendTransaction", [{"from": key.address, "to": DEV1, "value": "0x1"}]
    )
    assert "authentication needed" in locked["error"]["message"]
    wrong = w3.provider.make_request("personal_unlockAccount", [key.address, "nope", 60])
    assert "could not decrypt" in wrong["error"]["message"]
    assert w3.provider.make_request("personal_unlockAccount", [key.address, "pw", 60])["result"]
    sent = w3.provider.make_request(
        "eth_sendTransaction", [{"from": key.address, "to": DEV1, "value": "0x1"}]
    )
    assert w3.eth.get_transaction_receipt(sent["result"])["status"] == 1
    accounts = w3.provider.make_request("personal_listAccounts", [])["result"]
    assert key.address.lower() in [a.lower() for a in accounts]


def test_call_tracer_nested_value_and_revert(w3: Web3) -> None:
    reverter = deploy(w3, REVERTER)
    caller = deploy(w3, CALLER)
    store = deploy(w3, STORE)
    ok = w3.eth.send_transaction(
        {"from": DEV0, "to": caller, "data": word(bytes.fromhex(store[2:])), "value": 5}
    )
    bad = w3.eth.send_transaction(
        {"from": DEV0, "to": caller, "data": word(bytes.fromhex(reverter[2:]))}
    )
    for tx in (ok, bad):
        assert w3.eth.wait_for_transaction_receipt(tx)["status"] == 1
    trace = w3.provider.make_request(
        "debug_traceTransaction", [ok.to_0x_hex(), {"tracer": "callTracer"}]
    )["result"]
    assert trace["type"] == "CALL" and trace["to"] == caller.lower() and trace["value"] == "0x5"
    (inner,) = trace["calls"]
    assert inner["type"] == "CALL" and inner["to"] == store.lower() and inner["value"] == "0x5"
    assert "error" not in inner
    trace = w3.provider.make_request(
        "debug_traceTransaction", [bad.to_0x_hex(), {"tracer": "callTracer"}]
    )["result"]
    (inner,) = trace["calls"]
    assert inner["error"] == "execution reverted" and inner["revertReason"] == "boom"
    assert "error" not in trace
    number = w3.eth.get_transaction_receipt(bad)["blockNumber"]
    block_trace = w3.provider.make_request(
        "debug_traceBlockByNumber", [hex(number), {"tracer": "callTracer"}]
    )["result"]
    assert block_trace[0]["txHash"] == bad.to_0x_hex()
    deploy_tx = w3.eth.send_transaction({"from": DEV0, "data": deploy_code(STORE)})
    trace = w3.provider.make_request(
        "debug_traceTransaction", [deploy_tx.to_0x_hex(), {"tracer": "callTracer"}]
    )["result"]
    assert trace["type"] == "CREATE"
    assert trace["to"] == w3.eth.get_transaction_receipt(deploy_tx)["contractAddress"].lower()
