// SPDX-License-Identifier: Apache-2.0
pragma solidity 0.8.28;

/// Splits the value it receives between two payees: contract-to-contract value transfers.
contract Splitter {
    event Split(address indexed a, address indexed b, uint256 value);

    function split(address payable a, address payable b) external payable {
        uint256 half = msg.value / 2;
        (bool okA, ) = a.call{value: half}("");
        (bool okB, ) = b.call{value: msg.value - half}("");
        require(okA && okB, "payee refused");
        emit Split(a, b, msg.value);
    }
}
