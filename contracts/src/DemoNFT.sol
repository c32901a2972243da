// SPDX-License-Identifier: Apache-2.0
pragma solidity 0.8.28;

import {ERC721} from "@openzeppelin/contracts/token/ERC721/ERC721.sol";
import {Base64} from "@openzeppelin/contracts/utils/Base64.sol";
import {Strings} from "@openzeppelin/contracts/utils/Strings.sol";

/// An ERC-721 whose metadata is served on chain as a data: URI (JSON with an SVG image).
contract DemoNFT is ERC721 {
    uint256 public nextId = 1;

    constructor() ERC721("Snowfield Flakes", "FLAKE") {}

    function mint(address to) external returns (uint256 id) {
        id = nextId++;
        _safeMint(to, id);
    }

    function tokenURI(uint256 id) public view override returns (string memory) {
        _requireOwned(id);
        string memory n = Strings.toString(id);
        string memory svg = string.concat(
            "<svg xmlns='http://www.w3.org/2000/svg' width='64' height='64'><rect width='64' height='64' fill='#",
            id % 2 == 0 ? "9cf" : "fc9",
            "'/><text x='8' y='40'>#", n, "</text></svg>"
        );
        string memory json = string.concat(
            '{"name":"Flake #', n,
            '","description":"A snowflake minted by the snowfield demo.","image":"data:image/svg+xml;base64,',
            Base64.encode(bytes(svg)),
            '","attributes":[{"trait_type":"parity","value":"', id % 2 == 0 ? "even" : "odd", '"}]}'
        );
        return string.concat("data:application/json;base64,", Base64.encode(bytes(json)));
    }
}
