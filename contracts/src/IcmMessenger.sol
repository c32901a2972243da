// SPDX-License-Identifier: MIT
// snowfield's cross-chain messenger: the ABI and events of the network's ICM messenger
// (TeleporterMessenger v1), written for the devnet. Messages travel as Warp messages whose
// payload is abi.encode(TeleporterMessage); receipts ride back on later messages; fees are
// ERC-20 amounts paid to the relayer whose delivery a receipt confirms.
pragma solidity 0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";

struct TeleporterMessageReceipt {
    uint256 receivedMessageNonce;
    address relayerRewardAddress;
}

struct TeleporterMessage {
    uint256 messageNonce;
    address originSenderAddress;
    bytes32 destinationBlockchainID;
    address destinationAddress;
    uint256 requiredGasLimit;
    address[] allowedRelayerAddresses;
    TeleporterMessageReceipt[] receipts;
    bytes message;
}

struct TeleporterFeeInfo {
    address feeTokenAddress;
    uint256 amount;
}

struct TeleporterMessageInput {
    bytes32 destinationBlockchainID;
    address destinationAddress;
    TeleporterFeeInfo feeInfo;
    uint256 requiredGasLimit;
    address[] allowedRelayerAddresses;
    bytes message;
}

struct WarpMessage {
    bytes32 sourceChainID;
    address originSenderAddress;
    bytes payload;
}

interface IWarpMessenger {
    function sendWarpMessage(bytes calldata payload) external returns (bytes32 messageID);
    function getVerifiedWarpMessage(uint32 index)
        external
        view
        returns (WarpMessage calldata message, bool valid);
    function getBlockchainID() external view returns (bytes32 blockchainID);
}

interface ITeleporterReceiver {
    function receiveTeleporterMessage(
        bytes32 sourceBlockchainID,
        address originSenderAddress,
        bytes calldata message
    ) external;
}

contract TeleporterMessenger {
    IWarpMessenger public constant WARP_MESSENGER =
        IWarpMessenger(0x0200000000000000000000000000000000000005);
    uint256 public constant MAX_RECEIPTS = 5;

    struct SentMessageInfo {
        bytes32 messageHash;
        TeleporterFeeInfo feeInfo;
    }

    bytes32 public blockchainID;
    uint256 public messageNonce;
    mapping(bytes32 => SentMessageInfo) internal _sentMessageInfo;
    mapping(bytes32 => address) internal _receivedMessages; // messageID => reward address
    mapping(bytes32 => bytes32) public receivedFailedMessageHashes;
    mapping(address => mapping(address => uint256)) internal _relayerRewardAmounts;
    mapping(bytes32 => TeleporterMessageReceipt[]) internal _outstandingReceipts;
    uint256 private _entered;

    event BlockchainIDInitialized(bytes32 indexed blockchainID);
    event SendCrossChainMessage(
        bytes32 indexed messageID,
        bytes32 indexed destinationBlockchainID,
        TeleporterMessage message,
        TeleporterFeeInfo feeInfo
    );
    event AddFeeAmount(bytes32 indexed messageID, TeleporterFeeInfo updatedFeeInfo);
    event MessageExecutionFailed(
        bytes32 indexed messageID, bytes32 indexed sourceBlockchainID, TeleporterMessage message
    );
    event MessageExecuted(bytes32 indexed messageID, bytes32 indexed sourceBlockchainID);
    event ReceiveCrossChainMessage(
        bytes32 indexed messageID,
        bytes32 indexed sourceBlockchainID,
        address indexed deliverer,
        address rewardRedeemer,
        TeleporterMessage message
    );
    event ReceiptReceived(
        bytes32 indexed messageID,
        bytes32 indexed destinationBlockchainID,
        address indexed relayerRewardAddress,
        TeleporterFeeInfo feeInfo
    );
    event RelayerRewardsRedeemed(address indexed redeemer, address indexed asset, uint256 amount);

    modifier nonReentrant() {
        require(_entered == 0, "ReentrancyGuard: reentrant call");
        _entered = 1;
        _;
        _entered = 0;
    }

    function _blockchainID() internal returns (bytes32) {
        if (blockchainID == bytes32(0)) {
            blockchainID = WARP_MESSENGER.getBlockchainID();
            emit BlockchainIDInitialized(blockchainID);
        }
        return blockchainID;
    }

    function calculateMessageID(
        bytes32 sourceBlockchainID,
        bytes32 destinationBlockchainID,
        uint256 nonce
    ) public view returns (bytes32) {
        return keccak256(abi.encode(address(this), sourceBlockchainID, destinationBlockchainID, nonce));
    }

    function getNextMessageID(bytes32 destinationBlockchainID) external view returns (bytes32) {
        bytes32 source = blockchainID == bytes32(0) ? WARP_MESSENGER.getBlockchainID() : blockchainID;
        return calculateMessageID(source, destinationBlockchainID, messageNonce + 1);
    }

    // --- sending -------------------------------------------------------------------------

    function sendCrossChainMessage(TeleporterMessageInput calldata messageInput)
        external
        nonReentrant
        returns (bytes32)
    {
        TeleporterFeeInfo memory fee = messageInput.feeInfo;
        if (fee.amount > 0) {
            require(fee.feeTokenAddress != address(0), "TeleporterMessenger: zero fee asset contract address");
            fee.amount = _collect(fee.feeTokenAddress, fee.amount);
        }
        TeleporterMessageReceipt[] memory receipts = _takeReceipts(messageInput.destinationBlockchainID);
        return _send(
            messageInput.destinationBlockchainID,
            messageInput.destinationAddress,
            fee,
            messageInput.requiredGasLimit,
            messageInput.allowedRelayerAddresses,
            messageInput.message,
            receipts
        );
    }

    function _send(
        bytes32 destination,
        address to,
        TeleporterFeeInfo memory fee,
        uint256 gasLimit,
        address[] calldata relayers,
        bytes memory payload,
        TeleporterMessageReceipt[] memory receipts
    ) internal returns (bytes32 messageID) {
        bytes32 source = _blockchainID();
        messageNonce += 1;
        messageID = calculateMessageID(source, destination, messageNonce);
        TeleporterMessage memory message = TeleporterMessage({
            messageNonce: messageNonce,
            originSenderAddress: msg.sender,
            destinationBlockchainID: destination,
            destinationAddress: to,
            requiredGasLimit: gasLimit,
            allowedRelayerAddresses: relayers,
            receipts: receipts,
            message: payload
        });
        bytes memory encoded = abi.encode(message);
        _sentMessageInfo[messageID] = SentMessageInfo(keccak256(encoded), fee);
        emit SendCrossChainMessage(messageID, destination, message, fee);
        WARP_MESSENGER.sendWarpMessage(encoded);
    }

    function retrySendCrossChainMessage(TeleporterMessage calldata message) external nonReentrant {
        bytes32 messageID =
            calculateMessageID(_blockchainID(), message.destinationBlockchainID, message.messageNonce);
        bytes memory encoded = abi.encode(message);
        require(
            _sentMessageInfo[messageID].messageHash != bytes32(0),
            "TeleporterMessenger: message not found"
        );
        require(
            _sentMessageInfo[messageID].messageHash == keccak256(encoded),
            "TeleporterMessenger: invalid message hash"
        );
        emit SendCrossChainMessage(
            messageID, message.destinationBlockchainID, message, _sentMessageInfo[messageID].feeInfo
        );
        WARP_MESSENGER.sendWarpMessage(encoded);
    }

    function addFeeAmount(bytes32 messageID, address feeTokenAddress, uint256 additionalFeeAmount)
        external
        nonReentrant
    {
        require(additionalFeeAmount > 0, "TeleporterMessenger: zero additional fee amount");
        require(feeTokenAddress != address(0), "TeleporterMessenger: zero fee asset contract address");
        SentMessageInfo storage info = _sentMessageInfo[messageID];
        require(info.messageHash != bytes32(0), "TeleporterMessenger: message not found");
        if (info.feeInfo.amount > 0) {
            require(
                info.feeInfo.feeTokenAddress == feeTokenAddress,
                "TeleporterMessenger: invalid fee asset contract address"
            );
        }
        info.feeInfo.feeTokenAddress = feeTokenAddress;
        info.feeInfo.amount += _collect(feeTokenAddress, additionalFeeAmount);
        emit AddFeeAmount(messageID, info.feeInfo);
    }

    function _collect(address token, uint256 amount) internal returns (uint256) {
        uint256 before = IERC20(token).balanceOf(address(this));
        require(IERC20(token).transferFrom(msg.sender, address(this), amount), "TeleporterMessenger: fee transfer failed");
        return IERC20(token).balanceOf(address(this)) - before;
    }

    function _takeReceipts(bytes32 destination) internal returns (TeleporterMessageReceipt[] memory out) {
        TeleporterMessageReceipt[] storage queue = _outstandingReceipts[destination];
        uint256 count = queue.length < MAX_RECEIPTS ? queue.length : MAX_RECEIPTS;
        out = new TeleporterMessageReceipt[](count);
        for (uint256 i = 0; i < count; i++) {
            out[i] = queue[queue.length - 1];
            queue.pop();
        }
    }

    // --- receiving -----------------------------------------------------------------------

    function receiveCrossChainMessage(uint32 messageIndex, address relayerRewardAddress)
        external
        nonReentrant
    {
        (WarpMessage memory warp, bool valid) = WARP_MESSENGER.getVerifiedWarpMessage(messageIndex);
        require(valid, "TeleporterMessenger: invalid warp message");
        require(
            warp.originSenderAddress == address(this),
            "TeleporterMessenger: invalid origin sender address"
        );
        require(relayerRewardAddress != address(0), "TeleporterMessenger: zero relayer reward address");
        TeleporterMessage memory message = abi.decode(warp.payload, (TeleporterMessage));
        bytes32 here = _blockchainID();
        require(message.destinationBlockchainID == here, "TeleporterMessenger: invalid destination chain ID");
        require(_allowed(message.allowedRelayerAddresses), "TeleporterMessenger: unauthorized relayer");
        bytes32 messageID = calculateMessageID(warp.sourceChainID, here, message.messageNonce);
        require(_receivedMessages[messageID] == address(0), "TeleporterMessenger: message already delivered");
        _receivedMessages[messageID] = relayerRewardAddress;
        _outstandingReceipts[warp.sourceChainID].push(
            TeleporterMessageReceipt(message.messageNonce, relayerRewardAddress)
        );
        for (uint256 i = 0; i < message.receipts.length; i++) {
            _markReceipt(warp.sourceChainID, message.receipts[i]);
        }
        emit ReceiveCrossChainMessage(messageID, warp.sourceChainID, msg.sender, relayerRewardAddress, message);
        if (message.message.length > 0) {
            _execute(messageID, warp.sourceChainID, message);
        }
    }

    function _allowed(address[] memory relayers) internal view returns (bool) {
        if (relayers.length == 0) return true;
        for (uint256 i = 0; i < relayers.length; i++) {
            if (relayers[i] == msg.sender) return true;
        }
        return false;
    }

    function _markReceipt(bytes32 destination, TeleporterMessageReceipt memory receipt) internal {
        bytes32 messageID = calculateMessageID(blockchainID, destination, receipt.receivedMessageNonce);
        SentMessageInfo memory info = _sentMessageInfo[messageID];
        if (info.messageHash == bytes32(0)) return; // already confirmed, or never sent here
        delete _sentMessageInfo[messageID];
        if (info.feeInfo.amount > 0) {
            _relayerRewardAmounts[receipt.relayerRewardAddress][info.feeInfo.feeTokenAddress] += info.feeInfo.amount;
        }
        emit ReceiptReceived(messageID, destination, receipt.relayerRewardAddress, info.feeInfo);
    }

    function _execute(bytes32 messageID, bytes32 source, TeleporterMessage memory message) internal {
        require(gasleft() >= message.requiredGasLimit, "TeleporterMessenger: insufficient gas");
        bool ok;
        if (message.destinationAddress.code.length > 0) {
            (ok,) = message.destinationAddress.call{gas: message.requiredGasLimit}(
                abi.encodeCall(
                    ITeleporterReceiver.receiveTeleporterMessage,
                    (source, message.originSenderAddress, message.message)
                )
            );
        }
        if (ok) {
            emit MessageExecuted(messageID, source);
        } else {
            receivedFailedMessageHashes[messageID] = keccak256(abi.encode(message));
            emit MessageExecutionFailed(messageID, source, message);
        }
    }

    function retryMessageExecution(bytes32 sourceBlockchainID, TeleporterMessage calldata message)
        external
        nonReentrant
    {
        bytes32 messageID = calculateMessageID(sourceBlockchainID, _blockchainID(), message.messageNonce);
        bytes32 failed = receivedFailedMessageHashes[messageID];
        require(failed != bytes32(0), "TeleporterMessenger: message not found");
        require(failed == keccak256(abi.encode(message)), "TeleporterMessenger: invalid message hash");
        require(
            message.destinationAddress.code.length > 0,
            "TeleporterMessenger: destination address has no code"
        );
        delete receivedFailedMessageHashes[messageID];
        ITeleporterReceiver(message.destinationAddress).receiveTeleporterMessage(
            sourceBlockchainID, message.originSenderAddress, message.message
        );
        emit MessageExecuted(messageID, sourceBlockchainID);
    }

    // --- rewards and reads ---------------------------------------------------------------

    function redeemRelayerRewards(address feeTokenAddress) external nonReentrant {
        uint256 amount = _relayerRewardAmounts[msg.sender][feeTokenAddress];
        require(amount > 0, "TeleporterMessenger: no reward to redeem");
        _relayerRewardAmounts[msg.sender][feeTokenAddress] = 0;
        emit RelayerRewardsRedeemed(msg.sender, feeTokenAddress, amount);
        require(IERC20(feeTokenAddress).transfer(msg.sender, amount), "TeleporterMessenger: reward transfer failed");
    }

    function messageReceived(bytes32 messageID) external view returns (bool) {
        return _receivedMessages[messageID] != address(0);
    }

    function getRelayerRewardAddress(bytes32 messageID) external view returns (address) {
        require(_receivedMessages[messageID] != address(0), "TeleporterMessenger: message not received");
        return _receivedMessages[messageID];
    }

    function checkRelayerRewardAmount(address relayer, address feeAsset) external view returns (uint256) {
        return _relayerRewardAmounts[relayer][feeAsset];
    }

    function getFeeInfo(bytes32 messageID) external view returns (address, uint256) {
        TeleporterFeeInfo memory fee = _sentMessageInfo[messageID].feeInfo;
        return (fee.feeTokenAddress, fee.amount);
    }

    function getMessageHash(bytes32 messageID) external view returns (bytes32) {
        return _sentMessageInfo[messageID].messageHash;
    }
}

// A receiver for the demo and the tests: keeps the last message; fails on "fail".
contract IcmEcho is ITeleporterReceiver {
    address public immutable messenger;
    bytes32 public lastSource;
    address public lastSender;
    bytes public lastMessage;
    uint256 public received;
    bool public failing = true;

    constructor(address messenger_) {
        messenger = messenger_;
    }

    function setFailing(bool value) external {
        failing = value;
    }

    function receiveTeleporterMessage(bytes32 sourceBlockchainID, address originSenderAddress, bytes calldata message)
        external
    {
        require(msg.sender == messenger, "IcmEcho: not the messenger");
        require(!(failing && keccak256(message) == keccak256("fail")), "IcmEcho: asked to fail");
        lastSource = sourceBlockchainID;
        lastSender = originSenderAddress;
        lastMessage = message;
        received += 1;
    }
}
