"""Names of well-known 4-byte function selectors, for `method.methodName`."""

from __future__ import annotations

# keccak256(signature)[:4] of common token, wallet and demo-contract functions.
METHOD_NAMES: dict[str, str] = {
    "0xa9059cbb": "transfer(address,uint256)",
    "0x095ea7b3": "approve(address,uint256)",
    "0x23b872dd": "transferFrom(address,address,uint256)",
    "0x42842e0e": "safeTransferFrom(address,address,uint256)",
    "0xb88d4fde": "safeTransferFrom(address,address,uint256,bytes)",
    "0xa22cb465": "setApprovalForAll(address,bool)",
    "0xf242432a": "safeTransferFrom(address,address,uint256,uint256,bytes)",
    "0x2eb2c2d6": "safeBatchTransferFrom(address,address,uint256[],uint256[],bytes)",
    "0x40c10f19": "mint(address,uint256)",
    "0x6a627842": "mint(address)",
    "0x156e29f6": "mint(address,uint256,uint256)",
    "0xd81d0a15": "mintBatch(address,uint256[],uint256[])",
    "0x42966c68": "burn(uint256)",
    "0xd0e30db0": "deposit()",
    "0x2e1a7d4d": "withdraw(uint256)",
    "0xac9650d8": "multicall(bytes[])",
    "0x39509351": "increaseAllowance(address,uint256)",
    "0xa457c2d7": "decreaseAllowance(address,uint256)",
    "0xf2fde38b": "transferOwnership(address)",
    "0x715018a6": "renounceOwnership()",
    "0xd505accf": "permit(address,address,uint256,uint256,uint8,bytes32,bytes32)",
    "0xa5e38751": "deploy(uint256)",
    "0x212c7efc": "deploy2(uint256,bytes32)",
    "0x9fb37853": "alwaysRevert()",
    "0x893f1133": "tryInner()",
    "0x0f2c9329": "split(address,address)",
}
