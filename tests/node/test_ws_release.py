"""WebSocket subscribers that vanish without a close frame give back everything they held:
subscriptions, queued notifications, connection state."""

from __future__ import annotations

import base64
import gc
import os
import socket
import struct
import time
import tracemalloc

import httpx
import orjson

from snowfield.node.vms.evm.subscriptions import SubscriptionHub
from snowfield.testing import serve_devnet

ROUNDS = 5
SUBSCRIBERS = 200
BLOCKS_PER_ROUND = 3


def _frame(payload: bytes) -> bytes:
    """One masked text frame, as a client sends it."""
    mask = os.urandom(4)
    size = len(payload)
    length = bytes([0x80 | size]) if size < 126 else bytes([0x80 | 126]) + struct.pack(">H", size)
    return b"\x81" + length + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def _subscriber(host: str, port: int) -> socket.socket:
    sock = socket.create_connection((host, port), timeout=10)
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall(
        f"GET /ext/bc/C/ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode()
    )
    answer = b""
    while b"\r\n\r\n" not in answer:
        answer += sock.recv(4096)
    assert answer.startswith(b"HTTP/1.1 101")
    call = {"jsonrpc": "2.0", "id": 1, "method": "eth_subscribe", "params": ["newHeads"]}
    sock.sendall(_frame(orjson.dumps(call)))
    assert b"result" in sock.recv(4096)
    return sock


def _mine(rpc: str, blocks: int) -> None:
    for _ in range(blocks):
        httpx.post(rpc, json={"jsonrpc": "2.0", "id": 1, "method": "evm_mine"}, timeout=10)


def _settled_memory(hub: SubscriptionHub) -> int:
    deadline = time.monotonic() + 10
    while len(hub) and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.3)
    gc.collect()
    return tracemalloc.get_traced_memory()[0]


def test_abrupt_subscribers_release_their_memory() -> None:
    tracemalloc.start()
    try:
        with serve_devnet() as node:
            host, port = node.base.removeprefix("http://").split(":")
            hub = node.node.c.hub

            def round_of_subscribers() -> int:
                socks = [_subscriber(host, int(port)) for _ in range(SUBSCRIBERS)]
                _mine(
                    node.rpc, BLOCKS_PER_ROUND
                )  # notifications queued for clients that never read them
                held = len(hub)
                for sock in socks:  # RST, no close frame
                    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                    sock.close()
                return held

            round_of_subscribers()  # warm-up: first-use allocations are not a leak
            # The rounds mine blocks, and a chain keeps its blocks: a control mines as many
            # with no subscriber, so only what the subscribers leave behind is measured.
            before_control = _settled_memory(hub)
            _mine(node.rpc, BLOCKS_PER_ROUND * ROUNDS)
            baseline = _settled_memory(hub)
            chain_growth = baseline - before_control
            started = time.monotonic()
            for _ in range(ROUNDS):
                assert round_of_subscribers() == SUBSCRIBERS
                assert time.monotonic() - started < 120
            after = _settled_memory(hub)
            assert len(hub) == 0
    finally:
        tracemalloc.stop()
    assert after <= baseline * 1.10 + chain_growth, (baseline, chain_growth, after)


def _rss_kib() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError("no VmRSS")


def test_abrupt_subscribers_give_back_resident_memory() -> None:
    """The same rounds measured in resident memory, with the cyclic collector held off as the
    node's tuned GC (gen0 threshold 50,000, a frozen heap) holds it off for minutes in an idle
    node: nothing a dead connection used may wait for a collection. (Each upgraded connection
    used to leave its HTTP protocol behind in a cycle with its parser, keeping the transport
    and its buffers: ~12 kB of Python objects alone per connection, issue 33's 46-54 MB after
    1,000 dead clients.)"""
    with serve_devnet() as node, httpx.Client(timeout=10) as client:
        host, port = node.base.removeprefix("http://").split(":")
        hub = node.node.c.hub

        def mine(blocks: int) -> None:
            for _ in range(blocks):
                client.post(node.rpc, json={"jsonrpc": "2.0", "id": 1, "method": "evm_mine"})

        def round_of_subscribers() -> None:
            socks = [_subscriber(host, int(port)) for _ in range(SUBSCRIBERS)]
            mine(BLOCKS_PER_ROUND)
            for sock in socks:  # RST, no close frame
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                sock.close()

        def settled() -> int:
            deadline = time.monotonic() + 10
            while len(hub) and time.monotonic() < deadline:
                time.sleep(0.05)
            time.sleep(1.0)
            return _rss_kib()

        round_of_subscribers()  # warm-up: first-use allocations are not a leak
        gc.collect()
        gc.disable()
        try:
            before_control = settled()
            mine(BLOCKS_PER_ROUND * ROUNDS)  # what the chain keeps of the rounds' blocks
            baseline = settled()
            for _ in range(ROUNDS):
                round_of_subscribers()
            after = settled()
        finally:
            gc.enable()
        assert len(hub) == 0
    growth = after - baseline - max(0, baseline - before_control)
    dead = ROUNDS * SUBSCRIBERS
    # Measured: ~12 MiB with the HTTP protocols left in their cycles, ~5 MiB without them
    # (what the allocator keeps of a burst's pages among live objects, not a leak: it does
    # not grow with more rounds in the same proportion).
    assert growth < 8 * dead, f"{growth} KiB for {dead} dead connections"
