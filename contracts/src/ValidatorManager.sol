// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IWarpMessenger, WarpMessage} from "IcmMessenger.sol";

// An L1's validator manager following ACP-99's message flow for registering a validator
// (proof of authority: its owner registers). Ours, written for the devnet; its events and
// function names are those of ACP-99's ValidatorManager so that tools find what they expect.
//
//   initiateValidatorRegistration  -> Warp RegisterL1ValidatorMessage (ACP-77 codec bytes)
//   (off chain: signatures aggregated, RegisterL1ValidatorTx issued on the P-Chain)
//   completeValidatorRegistration  <- Warp L1ValidatorRegistration from the P-Chain
//   completeValidatorRemoval       <- Warp L1ValidatorRegistration(false) from the P-Chain: the
//                                     registration expired or never happened (or the validator
//                                     left the P-Chain's set); the manager forgets it
//
// It has no constructor and no immutables: its runtime code sits in the L1's genesis at the
// manager address the conversion names, and `initialize` is called once after the chain
// starts, as avalanche-cli's proxy is.

struct PChainOwner {
    uint32 threshold;
    address[] addresses;
}


contract ValidatorManager {
    enum ValidatorStatus {
        Unknown,
        PendingAdded,
        Active
    }

    struct Validator {
        ValidatorStatus status;
        bytes nodeID;
        uint64 weight;
        uint64 registrationExpiry;
    }

    IWarpMessenger private constant WARP = IWarpMessenger(0x0200000000000000000000000000000000000005);
    bytes32 private constant P_CHAIN_ID = bytes32(0);
    uint32 private constant REGISTER_L1_VALIDATOR_TYPE = 1;
    uint32 private constant L1_VALIDATOR_REGISTRATION_TYPE = 2;
    uint64 public constant REGISTRATION_EXPIRY_LENGTH = 1 days; // the P-Chain accepts up to 24 h

    address public owner;
    bytes32 public subnetID;
    uint64 public totalWeight;
    mapping(bytes32 => Validator) private _validators;
    mapping(bytes => bytes32) public registeredValidators; // nodeID => validationID

    event Initialized(bytes32 indexed subnetID, address indexed owner);
    event InitiatedValidatorRegistration(
        bytes32 indexed validationID,
        bytes20 indexed nodeID,
        bytes32 registrationMessageID,
        uint64 registrationExpiry,
        uint64 weight
    );
    event CompletedValidatorRegistration(bytes32 indexed validationID, uint64 weight);
    event CompletedValidatorRemoval(bytes32 indexed validationID);

    function initialize(bytes32 subnetID_, address owner_) external {
        require(owner == address(0), "ValidatorManager: already initialized");
        require(owner_ != address(0), "ValidatorManager: zero owner");
        owner = owner_;
        subnetID = subnetID_;
        emit Initialized(subnetID_, owner_);
    }

    function initiateValidatorRegistration(
        bytes memory nodeID,
        bytes memory blsPublicKey,
        PChainOwner memory remainingBalanceOwner,
        PChainOwner memory disableOwner,
        uint64 weight
    ) external returns (bytes32 validationID) {
        require(msg.sender == owner, "ValidatorManager: not the owner");
        require(nodeID.length == 20, "ValidatorManager: invalid node ID");
        require(blsPublicKey.length == 48, "ValidatorManager: invalid BLS public key");
        require(weight > 0, "ValidatorManager: zero weight");
        require(registeredValidators[nodeID] == bytes32(0), "ValidatorManager: node already registered");
        uint64 expiry = uint64(block.timestamp) + REGISTRATION_EXPIRY_LENGTH;
        bytes memory message = abi.encodePacked(
            uint16(0),
            REGISTER_L1_VALIDATOR_TYPE,
            subnetID,
            uint32(nodeID.length),
            nodeID,
            blsPublicKey,
            expiry,
            _owner(remainingBalanceOwner),
            _owner(disableOwner),
            weight
        );
        validationID = sha256(message);
        bytes32 messageID = WARP.sendWarpMessage(message);
        _validators[validationID] = Validator(ValidatorStatus.PendingAdded, nodeID, weight, expiry);
        registeredValidators[nodeID] = validationID;
        emit InitiatedValidatorRegistration(validationID, bytes20(nodeID), messageID, expiry, weight);
    }

    function completeValidatorRegistration(uint32 messageIndex) external returns (bytes32 validationID) {
        (WarpMessage memory warp, bool valid) = WARP.getVerifiedWarpMessage(messageIndex);
        require(valid, "ValidatorManager: invalid warp message");
        require(warp.sourceChainID == P_CHAIN_ID, "ValidatorManager: not from the P-Chain");
        require(warp.originSenderAddress == address(0), "ValidatorManager: not from the P-Chain");
        bool registered;
        (validationID, registered) = _registration(warp.payload);
        require(registered, "ValidatorManager: registration refused");
        Validator storage validator = _validators[validationID];
        require(validator.status == ValidatorStatus.PendingAdded, "ValidatorManager: not pending");
        validator.status = ValidatorStatus.Active;
        totalWeight += validator.weight;
        emit CompletedValidatorRegistration(validationID, validator.weight);
    }

    function completeValidatorRemoval(uint32 messageIndex) external returns (bytes32 validationID) {
        (WarpMessage memory warp, bool valid) = WARP.getVerifiedWarpMessage(messageIndex);
        require(valid, "ValidatorManager: invalid warp message");
        require(warp.sourceChainID == P_CHAIN_ID, "ValidatorManager: not from the P-Chain");
        require(warp.originSenderAddress == address(0), "ValidatorManager: not from the P-Chain");
        bool registered;
        (validationID, registered) = _registration(warp.payload);
        require(!registered, "ValidatorManager: validator is registered");
        Validator storage validator = _validators[validationID];
        require(validator.status != ValidatorStatus.Unknown, "ValidatorManager: unknown validator");
        if (validator.status == ValidatorStatus.Active) {
            totalWeight -= validator.weight;
        }
        delete registeredValidators[validator.nodeID];
        delete _validators[validationID];
        emit CompletedValidatorRemoval(validationID);
    }

    function getValidator(bytes32 validationID)
        external
        view
        returns (ValidatorStatus status, bytes memory nodeID, uint64 weight, uint64 registrationExpiry)
    {
        Validator storage v = _validators[validationID];
        return (v.status, v.nodeID, v.weight, v.registrationExpiry);
    }

    // codec bytes of a PChainOwner: threshold, then the addresses (20 bytes each) with a count
    function _owner(PChainOwner memory o) private pure returns (bytes memory out) {
        out = abi.encodePacked(o.threshold, uint32(o.addresses.length));
        for (uint256 i = 0; i < o.addresses.length; i++) {
            out = bytes.concat(out, bytes20(o.addresses[i]));
        }
    }

    // L1ValidatorRegistration: codec version 0, type id 2, validation id, registered
    function _registration(bytes memory payload) private pure returns (bytes32 validationID, bool registered) {
        require(payload.length == 39, "ValidatorManager: invalid registration message");
        require(payload[0] == 0 && payload[1] == 0, "ValidatorManager: invalid codec version");
        uint32 typeID = uint32(bytes4(abi.encodePacked(payload[2], payload[3], payload[4], payload[5])));
        require(typeID == L1_VALIDATOR_REGISTRATION_TYPE, "ValidatorManager: not a registration");
        assembly {
            validationID := mload(add(payload, 38))
        }
        require(uint8(payload[38]) <= 1, "ValidatorManager: invalid registered flag");
        registered = payload[38] == 0x01;
    }
}
