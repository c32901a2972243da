"""ID, ShortID, NodeID and private-key strings; the well-known ids of §3.2."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from snowfield.errors import InvalidParams
from snowfield.formats import ids
from snowfield.formats.ids import ID, NodeID, ShortID

EWOQ_HEX = "56289e99c94b6912bfc12adc093c9b51124f0dc54ac7a766b2bc5ccf558d8027"


def test_empty_ids() -> None:
    assert str(ids.EMPTY_ID) == "11111111111111111111111111111111LpoYY"
    assert ids.PRIMARY_NETWORK_ID == ids.P_CHAIN_ID == ID(bytes(32))
    assert str(ids.EMPTY_NODE_ID) == "NodeID-111111111111111111116DBWJs"
    assert str(ids.EMPTY_SHORT_ID) == "111111111111111111116DBWJs"


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("MAINNET_X_CHAIN_ID", "2oYMBNV4eNHyqk2fjjV5nVQLDbtmNJzq5s3qs3Lo6ftnC6FByM"),
        ("MAINNET_C_CHAIN_ID", "2q9e4r6Mu3U68nU1fYjgbR6JvwrRx36CohpAX5UQxse55x1Q5"),
        ("MAINNET_AVAX_ASSET_ID", "FvwEAhmxKfeiG8SnEvq42hc6whRyY3EFYAvebMqDNDGCgxN5Z"),
        ("FUJI_X_CHAIN_ID", "2JVSBoinj9C2J33VntvzYtVJNZdN2NKiwwKjcumHUWEb5DbBrm"),
        ("FUJI_C_CHAIN_ID", "yH8D7ThNJkxmtkuv2jgBa4P1Rn3Qpr4pPr7QYNfcdoS6k6HWp"),
        ("FUJI_AVAX_ASSET_ID", "U8iRqJoiJm8xZHAacmvYyZVwqQx6uDNtQeP3CQ6fcgQk3JqnK"),
        ("LOCAL_X_CHAIN_ID", "2eNy1mUFdmaxXNj1eQHUe7Np4gju9sJsEtWQ4MX3ToiNKuADed"),
        ("LOCAL_C_CHAIN_ID", "2owdGqyG6FFzTHy5qhenDXQcEghvr571KZE3gSfRJERSJinuwC"),
        ("LOCAL_AVAX_ASSET_ID", "2fombhL7aGPwj3KH4bfrmJwW6PVnMobf9Y2fn9GwxiAAJyFDbe"),
        ("SECP256K1FX_ID", "spdxUxVJQbX85MGxMHbKw1sHxMnSqJ3QBzDyDYEP3h6TLuxqQ"),
    ],
)
def test_well_known_ids(name: str, text: str) -> None:
    value = getattr(ids, name)
    assert isinstance(value, ID)
    assert str(value) == text


def test_network_ids() -> None:
    assert (ids.MAINNET_NETWORK_ID, ids.FUJI_NETWORK_ID) == (1, 5)
    assert (ids.UNIT_TEST_NETWORK_ID, ids.LOCAL_NETWORK_ID) == (10, 12345)


@given(st.binary(min_size=32, max_size=32))
def test_id_round_trip(raw: bytes) -> None:
    value = ID(raw)
    assert ID.from_string(str(value)) == value
    assert value.hex() == raw.hex()
    assert repr(value) == f"ID({str(value)!r})"


@given(st.binary(min_size=20, max_size=20))
def test_short_and_node_id_round_trip(raw: bytes) -> None:
    assert ShortID.from_string(str(ShortID(raw))) == ShortID(raw)
    node_id = NodeID(raw)
    assert str(node_id) == "NodeID-" + str(ShortID(raw))
    assert NodeID.from_string(str(node_id)) == node_id


@given(st.binary(min_size=32, max_size=32), st.binary(min_size=32, max_size=32))
def test_ids_order_by_bytes(a: bytes, b: bytes) -> None:
    assert (ID(a) < ID(b)) == (a < b)


def test_ids_are_frozen_and_hashable() -> None:
    value = ID(bytes(32))
    with pytest.raises(AttributeError):
        value.raw = bytes(32)  # type: ignore[misc]
    assert {value: 1}[ID.from_string("11111111111111111111111111111111LpoYY")] == 1


def test_wrong_lengths() -> None:
    with pytest.raises(InvalidParams, match="expected 32 bytes but got 20"):
        ID.from_string(str(ShortID(bytes(20))))
    with pytest.raises(InvalidParams, match="expected 20 bytes but got 32"):
        ShortID.from_string(str(ids.EMPTY_ID))
    with pytest.raises(InvalidParams, match="expected 20 bytes but got 19"):
        NodeID(bytes(19))


def test_node_id_needs_prefix() -> None:
    with pytest.raises(InvalidParams) as raised:
        NodeID.from_string("111111111111111111116DBWJs")
    assert raised.value.message == "ID: 111111111111111111116DBWJs is missing the prefix: NodeID-"


def test_node_id_bad_checksum() -> None:
    with pytest.raises(InvalidParams, match="invalid input checksum"):
        NodeID.from_string("NodeID-111111111111111111116DBWJt")


def test_node_id_from_certificate_is_hash160() -> None:
    from snowfield.formats.ripemd160 import hash160

    assert NodeID.from_certificate(b"der").raw == hash160(b"der")


def test_short_id_from_public_key_matches_the_local_key() -> None:
    coincurve = pytest.importorskip("coincurve")
    public = coincurve.PrivateKey(bytes.fromhex(EWOQ_HEX)).public_key.format(compressed=True)
    assert ShortID.from_public_key(public).hex() == "3cb7d3842e8cee6a0ebd09f1fe884f6861e1b29c"


def test_id_text_memo_is_bounded_and_exact() -> None:
    """Ids formatted again come from the memo; past its bound it starts over, never wrong."""
    from snowfield.formats.cb58 import encode_cb58

    raws = [i.to_bytes(32, "big") for i in range(ids._TEXT_LIMIT + 100)]
    for _ in range(2):
        for raw in raws:
            assert str(ID(raw)) == encode_cb58(raw)
            assert str(NodeID(raw[:20])) == "NodeID-" + encode_cb58(raw[:20])
            assert len(ids._TEXT) <= ids._TEXT_LIMIT
