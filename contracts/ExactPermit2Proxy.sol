// SPDX-License-Identifier: MIT
//
// ExactPermit2Proxy: a stand-in for x402's x402ExactPermit2Proxy, written for kasir's devnet and tests from the ABI
// and typed data that @x402/evm signs and calls (x402ExactPermit2ProxyABI, permit2WitnessTypes). The devnet puts
// its runtime code at the proxy's canonical address (0x402085c2…0001), next to the canonical Permit2, so that the
// official x402 client signs, and the official facilitator verifies and settles, exactly as on a public chain. It
// moves tokens only through Permit2's permitWitnessTransferFrom, which checks the payer's signature over the witness
// (recipient and validAfter), its deadline and its nonce; this contract checks the rest of the witness. Not audited;
// not for deployment.
//
// Compiled by scripts/build-contracts.mjs into src/devnet/exact-permit2-proxy.json.
pragma solidity ^0.8.20;

interface ISignatureTransfer {
    struct TokenPermissions {
        address token;
        uint256 amount;
    }

    struct PermitTransferFrom {
        TokenPermissions permitted;
        uint256 nonce;
        uint256 deadline;
    }

    struct SignatureTransferDetails {
        address to;
        uint256 requestedAmount;
    }

    function permitWitnessTransferFrom(
        PermitTransferFrom calldata permit,
        SignatureTransferDetails calldata transferDetails,
        address owner,
        bytes32 witness,
        string calldata witnessTypeString,
        bytes calldata signature
    ) external;
}

contract ExactPermit2Proxy {
    struct Witness {
        address to;
        uint256 validAfter;
    }

    ISignatureTransfer public constant PERMIT2 = ISignatureTransfer(0x000000000022D473030F116dDEE9F6B43aC78BA3);

    // Permit2 appends this to "PermitWitnessTransferFrom(TokenPermissions permitted,address spender,uint256 nonce,
    // uint256 deadline," to form the signed type: the referenced types follow in alphabetical order (EIP-712).
    string public constant WITNESS_TYPE_STRING =
        "Witness witness)TokenPermissions(address token,uint256 amount)Witness(address to,uint256 validAfter)";
    bytes32 public constant WITNESS_TYPEHASH = keccak256("Witness(address to,uint256 validAfter)");

    error InvalidAmount();
    error InvalidDestination();
    error InvalidOwner();
    error PaymentTooEarly();
    error ReentrancyGuardReentrantCall();

    event Settled();

    bool private _entered;

    function settle(
        ISignatureTransfer.PermitTransferFrom calldata permit,
        address owner,
        Witness calldata witness,
        bytes calldata signature
    ) external {
        if (_entered) revert ReentrancyGuardReentrantCall();
        _entered = true;
        if (owner == address(0)) revert InvalidOwner();
        if (witness.to == address(0)) revert InvalidDestination();
        if (permit.permitted.amount == 0) revert InvalidAmount();
        if (block.timestamp < witness.validAfter) revert PaymentTooEarly();
        PERMIT2.permitWitnessTransferFrom(
            permit,
            ISignatureTransfer.SignatureTransferDetails({to: witness.to, requestedAmount: permit.permitted.amount}),
            owner,
            keccak256(abi.encode(WITNESS_TYPEHASH, witness.to, witness.validAfter)),
            WITNESS_TYPE_STRING,
            signature
        );
        _entered = false;
        emit Settled();
    }
}
