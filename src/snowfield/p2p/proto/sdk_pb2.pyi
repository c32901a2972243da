from typing import ClassVar as _ClassVar

from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message

DESCRIPTOR: _descriptor.FileDescriptor

class SignatureRequest(_message.Message):
    __slots__ = ("justification", "message")
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    JUSTIFICATION_FIELD_NUMBER: _ClassVar[int]
    message: bytes
    justification: bytes
    def __init__(
        self, message: bytes | None = ..., justification: bytes | None = ...
    ) -> None: ...

class SignatureResponse(_message.Message):
    __slots__ = ("signature",)
    SIGNATURE_FIELD_NUMBER: _ClassVar[int]
    signature: bytes
    def __init__(self, signature: bytes | None = ...) -> None: ...
