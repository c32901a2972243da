// SPDX-License-Identifier: Apache-2.0
pragma solidity 0.8.28;

/// A contract the factory deploys; it keeps the value it was created with.
contract Child {
    address public immutable parent;
    uint256 public immutable seed;

    constructor(uint256 seed_) payable {
        parent = msg.sender;
        seed = seed_;
    }

    receive() external payable {}
}

/// Deploys Child contracts with CREATE and CREATE2, forwarding the call's value.
contract Factory {
    event Deployed(address indexed child, bool create2, uint256 value);

    function deploy(uint256 seed) external payable returns (address child) {
        child = address(new Child{value: msg.value}(seed));
        emit Deployed(child, false, msg.value);
    }

    function deploy2(uint256 seed, bytes32 salt) external payable returns (address child) {
        child = address(new Child{value: msg.value, salt: salt}(seed));
        emit Deployed(child, true, msg.value);
    }
}
