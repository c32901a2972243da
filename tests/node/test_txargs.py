"""Transaction objects are decoded field by field as geth's TransactionArgs, with its texts."""

from __future__ import annotations

from typing import Any

import pytest

from snowfield.node.vms.evm.methods.txargs import call_args
from snowfield.testing import RunningNode
from tests.helpers import rpc_reply

DEV = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266"
TO = "0x" + "11" * 20

BAD_FIELDS = [
    ({"nonce": "zz"}, "hex string without 0x prefix into Go struct field TransactionArgs.nonce"),
    ({"nonce": 5}, "non-string into Go struct field TransactionArgs.nonce of type hexutil.Uint64"),
    ({"gas": "0x1" + "0" * 16}, "hex number > 64 bits into Go struct field TransactionArgs.gas"),
    ({"value": "0xzz"}, "invalid hex string into Go struct field TransactionArgs.value"),
    ({"maxPriorityFeePerGas": "1"}, "TransactionArgs.maxPriorityFeePerGas of type hexutil.Big"),
    ({"maxFeePerGas": True}, "non-string into Go struct field TransactionArgs.maxFeePerGas"),
    ({"gasPrice": "0x01"}, "hex number with leading zero digits"),
    ({"chainId": []}, "TransactionArgs.chainId of type hexutil.Big"),
    ({"type": "0x7f"}, "transaction type not supported into Go struct field TransactionArgs.type"),
    ({"type": 2}, "TransactionArgs.type of type hexutil.Uint64"),
    ({"accessList": {}}, "cannot unmarshal object into Go struct field TransactionArgs.accessList"),
    ({"accessList": [{"address": TO}]}, "missing required field 'storageKeys' for AccessTuple"),
    ({"accessList": [{"address": "0x12", "storageKeys": []}]}, "AccessTuple.accessList.address"),
    ({"accessList": [{"address": TO, "storageKeys": ["0x01"]}]}, "want 64 for common.Hash"),
    ({"accessList": [1]}, "cannot unmarshal number into Go value of type types.AccessTuple"),
    ({"data": "0x123"}, "hex string of odd length into Go struct field TransactionArgs.data"),
    ({"input": 12}, "non-string into Go struct field TransactionArgs.input"),
    ({"from": "0x12"}, "want 40 for common.Address into Go struct field TransactionArgs.from"),
    ({"to": TO[2:]}, "hex string without 0x prefix into Go struct field TransactionArgs.to"),
    ({"blobVersionedHashes": []}, "need at least 1 blob for a blob transaction"),
    ({"blobs": ["0x00"]}, "want 262144 for kzg4844.Blob"),
    ({"authorizationList": [{"address": TO}]}, "missing required field 'chainId'"),
    ({"authorizationList": "0x"}, "TransactionArgs.authorizationList"),
    ({"maxFeePerGas": "0x1", "maxPriorityFeePerGas": "0x2"}, "maxFeePerGas (0x1) < maxPrio"),
    ({"gasPrice": "0x1", "maxFeePerGas": "0x2"}, "both gasPrice and (maxFeePerGas or maxPrio"),
    ({"data": "0x01", "input": "0x02"}, 'both "data" and "input" are set and not equal'),
]


@pytest.mark.parametrize(("fields", "text"), BAD_FIELDS)
@pytest.mark.parametrize("method", ["eth_call", "eth_estimateGas"])
def test_malformed_field_answers_invalid_params(
    devnet: RunningNode, method: str, fields: dict[str, Any], text: str
) -> None:
    reply = rpc_reply(devnet.rpc, method, {"from": DEV, "to": TO, **fields}, "latest")
    assert reply["error"]["code"] == -32602, reply
    assert reply["error"]["message"].startswith("invalid argument 0: ")
    assert text in reply["error"]["message"]


def test_object_itself_must_be_an_object(devnet: RunningNode) -> None:
    reply = rpc_reply(devnet.rpc, "eth_call", [DEV], "latest")
    assert reply["error"] == {
        "code": -32602,
        "message": "invalid argument 0: json: cannot unmarshal array into Go value of type "
        "ethapi.TransactionArgs",
    }


def test_chain_id_must_match_the_node(devnet: RunningNode) -> None:
    reply = rpc_reply(devnet.rpc, "eth_call", {"to": TO, "chainId": "0x1"}, "latest")
    assert reply["error"] == {
        "code": -32000,
        "message": "chainId does not match node's (have=1, want=43112)",
    }
    assert rpc_reply(devnet.rpc, "eth_call", {"to": TO, "chainId": "0xa868"})["result"] == "0x"


def test_a_full_valid_object_is_accepted_and_kept(devnet: RunningNode) -> None:
    obj = {
        "from": DEV,
        "to": TO,
        "gas": "0x186a0",  # covers the access list and authorization, as geth needs
        "maxFeePerGas": "0x2",
        "maxPriorityFeePerGas": "0x1",
        "value": "0x0",
        "nonce": "0x3",
        "input": "0x",
        "accessList": [{"address": TO, "storageKeys": ["0x" + "00" * 32]}],
        "chainId": "0xa868",
        "type": "0x2",
        "authorizationList": [
            {
                "chainId": "0x0",
                "address": TO,
                "nonce": "0x1",
                "yParity": "0x1",
                "r": "0x2",
                "s": "0x3",
            }
        ],
        "unknownField": 1,
    }
    assert rpc_reply(devnet.rpc, "eth_call", obj, "latest")["result"] == "0x"
    args = call_args(obj)
    assert (args.nonce, args.tx_type, args.chain_id, args.max_fee) == (3, 2, 43112, 2)
    assert args.access_list is not None and args.access_list[0].storage_keys == (bytes(32),)
    assert args.authorization_list is not None and args.authorization_list[0].s == 3
    assert args.effective_gas_price(5) == 2 and args.sender == bytes.fromhex(DEV[2:])
