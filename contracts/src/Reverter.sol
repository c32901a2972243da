// SPDX-License-Identifier: Apache-2.0
pragma solidity 0.8.28;

/// Reverts on purpose: a failed transaction, and a reverted inner call the caller survives.
contract Reverter {
    event Caught(string reason);

    function alwaysRevert() external pure {
        require(false, "demo revert");
    }

    function tryInner() external {
        try this.alwaysRevert() {
        } catch Error(string memory reason) {
            emit Caught(reason);
        }
    }
}
