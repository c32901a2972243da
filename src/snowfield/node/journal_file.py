"""An append-only record file: what makes the devnet's accepted blocks survive kill -9."""

from __future__ import annotations

import os
import struct
import zlib
from collections.abc import Iterator
from pathlib import Path

_FRAME = struct.Struct(">II")  # payload length, crc32 of payload


class FileJournal:
    """Frames each record with its length and CRC; a torn tail is cut off on open.

    A record is written with one `write` to an unbuffered descriptor, so once `append`
    returns the bytes are in the kernel's page cache and survive the process being
    killed; `fsync=True` also makes them survive a power loss.
    """

    def __init__(self, path: Path, *, fsync: bool = False) -> None:
        self.path = path
        self.fsync = fsync
        path.parent.mkdir(parents=True, exist_ok=True)
        self._good_size = self._scan()
        self._fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o644)
        os.ftruncate(self._fd, self._good_size)
        os.lseek(self._fd, self._good_size, os.SEEK_SET)

    def _scan(self) -> int:
        if not self.path.exists():
            return 0
        good = 0
        for end, _ in self._frames():
            good = end
        return good

    def _frames(self) -> Iterator[tuple[int, bytes]]:
        with open(self.path, "rb") as f:
            data = f.read()
        offset = 0
        while offset + _FRAME.size <= len(data):
            length, crc = _FRAME.unpack_from(data, offset)
            start = offset + _FRAME.size
            payload = data[start : start + length]
            if len(payload) < length or zlib.crc32(payload) != crc:
                return
            offset = start + length
            yield offset, payload

    def records(self) -> Iterator[bytes]:
        for end, payload in self._frames():
            if end > self._good_size:
                return
            yield payload

    def append(self, record: bytes) -> None:
        frame = _FRAME.pack(len(record), zlib.crc32(record)) + record
        written = os.write(self._fd, frame)
        while written < len(frame):
            written += os.write(self._fd, frame[written:])
        if self.fsync:
            os.fsync(self._fd)
        self._good_size += len(frame)

    def close(self) -> None:
        os.close(self._fd)
