from collections.abc import Iterable as _Iterable
from collections.abc import Mapping as _Mapping
from typing import ClassVar as _ClassVar

from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from google.protobuf.internal import containers as _containers

DESCRIPTOR: _descriptor.FileDescriptor

class Message(_message.Message):
    __slots__ = (
        "app_error",
        "app_gossip",
        "app_request",
        "app_response",
        "compressed_zstd",
        "get_peer_list",
        "handshake",
        "peer_list",
        "ping",
        "pong",
    )
    COMPRESSED_ZSTD_FIELD_NUMBER: _ClassVar[int]
    PING_FIELD_NUMBER: _ClassVar[int]
    PONG_FIELD_NUMBER: _ClassVar[int]
    HANDSHAKE_FIELD_NUMBER: _ClassVar[int]
    PEER_LIST_FIELD_NUMBER: _ClassVar[int]
    GET_PEER_LIST_FIELD_NUMBER: _ClassVar[int]
    APP_REQUEST_FIELD_NUMBER: _ClassVar[int]
    APP_RESPONSE_FIELD_NUMBER: _ClassVar[int]
    APP_GOSSIP_FIELD_NUMBER: _ClassVar[int]
    APP_ERROR_FIELD_NUMBER: _ClassVar[int]
    compressed_zstd: bytes
    ping: Ping
    pong: Pong
    handshake: Handshake
    peer_list: PeerList
    get_peer_list: GetPeerList
    app_request: AppRequest
    app_response: AppResponse
    app_gossip: AppGossip
    app_error: AppError
    def __init__(
        self,
        compressed_zstd: bytes | None = ...,
        ping: Ping | _Mapping | None = ...,
        pong: Pong | _Mapping | None = ...,
        handshake: Handshake | _Mapping | None = ...,
        peer_list: PeerList | _Mapping | None = ...,
        get_peer_list: GetPeerList | _Mapping | None = ...,
        app_request: AppRequest | _Mapping | None = ...,
        app_response: AppResponse | _Mapping | None = ...,
        app_gossip: AppGossip | _Mapping | None = ...,
        app_error: AppError | _Mapping | None = ...,
    ) -> None: ...

class Ping(_message.Message):
    __slots__ = ("uptime",)
    UPTIME_FIELD_NUMBER: _ClassVar[int]
    uptime: int
    def __init__(self, uptime: int | None = ...) -> None: ...

class Pong(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class Handshake(_message.Message):
    __slots__ = (
        "all_subnets",
        "client",
        "ip_addr",
        "ip_bls_sig",
        "ip_node_id_sig",
        "ip_port",
        "ip_signing_time",
        "known_peers",
        "my_time",
        "network_id",
        "objected_acps",
        "supported_acps",
        "tracked_subnets",
        "upgrade_time",
    )
    NETWORK_ID_FIELD_NUMBER: _ClassVar[int]
    MY_TIME_FIELD_NUMBER: _ClassVar[int]
    IP_ADDR_FIELD_NUMBER: _ClassVar[int]
    IP_PORT_FIELD_NUMBER: _ClassVar[int]
    UPGRADE_TIME_FIELD_NUMBER: _ClassVar[int]
    IP_SIGNING_TIME_FIELD_NUMBER: _ClassVar[int]
    IP_NODE_ID_SIG_FIELD_NUMBER: _ClassVar[int]
    TRACKED_SUBNETS_FIELD_NUMBER: _ClassVar[int]
    CLIENT_FIELD_NUMBER: _ClassVar[int]
    SUPPORTED_ACPS_FIELD_NUMBER: _ClassVar[int]
    OBJECTED_ACPS_FIELD_NUMBER: _ClassVar[int]
    KNOWN_PEERS_FIELD_NUMBER: _ClassVar[int]
    IP_BLS_SIG_FIELD_NUMBER: _ClassVar[int]
    ALL_SUBNETS_FIELD_NUMBER: _ClassVar[int]
    network_id: int
    my_time: int
    ip_addr: bytes
    ip_port: int
    upgrade_time: int
    ip_signing_time: int
    ip_node_id_sig: bytes
    tracked_subnets: _containers.RepeatedScalarFieldContainer[bytes]
    client: Client
    supported_acps: _containers.RepeatedScalarFieldContainer[int]
    objected_acps: _containers.RepeatedScalarFieldContainer[int]
    known_peers: BloomFilter
    ip_bls_sig: bytes
    all_subnets: bool
    def __init__(
        self,
        network_id: int | None = ...,
        my_time: int | None = ...,
        ip_addr: bytes | None = ...,
        ip_port: int | None = ...,
        upgrade_time: int | None = ...,
        ip_signing_time: int | None = ...,
        ip_node_id_sig: bytes | None = ...,
        tracked_subnets: _Iterable[bytes] | None = ...,
        client: Client | _Mapping | None = ...,
        supported_acps: _Iterable[int] | None = ...,
        objected_acps: _Iterable[int] | None = ...,
        known_peers: BloomFilter | _Mapping | None = ...,
        ip_bls_sig: bytes | None = ...,
        all_subnets: bool | None = ...,
    ) -> None: ...

class Client(_message.Message):
    __slots__ = ("major", "minor", "name", "patch")
    NAME_FIELD_NUMBER: _ClassVar[int]
    MAJOR_FIELD_NUMBER: _ClassVar[int]
    MINOR_FIELD_NUMBER: _ClassVar[int]
    PATCH_FIELD_NUMBER: _ClassVar[int]
    name: str
    major: int
    minor: int
    patch: int
    def __init__(
        self,
        name: str | None = ...,
        major: int | None = ...,
        minor: int | None = ...,
        patch: int | None = ...,
    ) -> None: ...

class BloomFilter(_message.Message):
    __slots__ = ("filter", "salt")
    FILTER_FIELD_NUMBER: _ClassVar[int]
    SALT_FIELD_NUMBER: _ClassVar[int]
    filter: bytes
    salt: bytes
    def __init__(self, filter: bytes | None = ..., salt: bytes | None = ...) -> None: ...

class ClaimedIpPort(_message.Message):
    __slots__ = ("ip_addr", "ip_port", "signature", "timestamp", "tx_id", "x509_certificate")
    X509_CERTIFICATE_FIELD_NUMBER: _ClassVar[int]
    IP_ADDR_FIELD_NUMBER: _ClassVar[int]
    IP_PORT_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    SIGNATURE_FIELD_NUMBER: _ClassVar[int]
    TX_ID_FIELD_NUMBER: _ClassVar[int]
    x509_certificate: bytes
    ip_addr: bytes
    ip_port: int
    timestamp: int
    signature: bytes
    tx_id: bytes
    def __init__(
        self,
        x509_certificate: bytes | None = ...,
        ip_addr: bytes | None = ...,
        ip_port: int | None = ...,
        timestamp: int | None = ...,
        signature: bytes | None = ...,
        tx_id: bytes | None = ...,
    ) -> None: ...

class GetPeerList(_message.Message):
    __slots__ = ("all_subnets", "known_peers")
    KNOWN_PEERS_FIELD_NUMBER: _ClassVar[int]
    ALL_SUBNETS_FIELD_NUMBER: _ClassVar[int]
    known_peers: BloomFilter
    all_subnets: bool
    def __init__(
        self,
        known_peers: BloomFilter | _Mapping | None = ...,
        all_subnets: bool | None = ...,
    ) -> None: ...

class PeerList(_message.Message):
    __slots__ = ("claimed_ip_ports",)
    CLAIMED_IP_PORTS_FIELD_NUMBER: _ClassVar[int]
    claimed_ip_ports: _containers.RepeatedCompositeFieldContainer[ClaimedIpPort]
    def __init__(
        self, claimed_ip_ports: _Iterable[ClaimedIpPort | _Mapping] | None = ...
    ) -> None: ...

class AppRequest(_message.Message):
    __slots__ = ("app_bytes", "chain_id", "deadline", "request_id")
    CHAIN_ID_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    DEADLINE_FIELD_NUMBER: _ClassVar[int]
    APP_BYTES_FIELD_NUMBER: _ClassVar[int]
    chain_id: bytes
    request_id: int
    deadline: int
    app_bytes: bytes
    def __init__(
        self,
        chain_id: bytes | None = ...,
        request_id: int | None = ...,
        deadline: int | None = ...,
        app_bytes: bytes | None = ...,
    ) -> None: ...

class AppResponse(_message.Message):
    __slots__ = ("app_bytes", "chain_id", "request_id")
    CHAIN_ID_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    APP_BYTES_FIELD_NUMBER: _ClassVar[int]
    chain_id: bytes
    request_id: int
    app_bytes: bytes
    def __init__(
        self,
        chain_id: bytes | None = ...,
        request_id: int | None = ...,
        app_bytes: bytes | None = ...,
    ) -> None: ...

class AppError(_message.Message):
    __slots__ = ("chain_id", "error_code", "error_message", "request_id")
    CHAIN_ID_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    ERROR_CODE_FIELD_NUMBER: _ClassVar[int]
    ERROR_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    chain_id: bytes
    request_id: int
    error_code: int
    error_message: str
    def __init__(
        self,
        chain_id: bytes | None = ...,
        request_id: int | None = ...,
        error_code: int | None = ...,
        error_message: str | None = ...,
    ) -> None: ...

class AppGossip(_message.Message):
    __slots__ = ("app_bytes", "chain_id")
    CHAIN_ID_FIELD_NUMBER: _ClassVar[int]
    APP_BYTES_FIELD_NUMBER: _ClassVar[int]
    chain_id: bytes
    app_bytes: bytes
    def __init__(
        self, chain_id: bytes | None = ..., app_bytes: bytes | None = ...
    ) -> None: ...
