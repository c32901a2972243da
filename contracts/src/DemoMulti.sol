// SPDX-License-Identifier: Apache-2.0
pragma solidity 0.8.28;

import {ERC1155} from "@openzeppelin/contracts/token/ERC1155/ERC1155.sol";

/// An ERC-1155 with open minting, for single and batch transfers in the demo.
contract DemoMulti is ERC1155 {
    constructor() ERC1155("data:application/json,{\"name\":\"Snowfield item {id}\",\"decimals\":0}") {}

    function mint(address to, uint256 id, uint256 amount) external {
        _mint(to, id, amount, "");
    }

    function mintBatch(address to, uint256[] calldata ids, uint256[] calldata amounts) external {
        _mintBatch(to, ids, amounts, "");
    }
}
