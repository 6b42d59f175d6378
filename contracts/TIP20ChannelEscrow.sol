// SPDX-License-Identifier: MIT
//
// TIP20ChannelEscrow: the TIP-1034 "TIP-20 channel escrow" interface (the ABI mppx's session method calls) as an
// ordinary contract, for kasir's local devnet and its tests only. On a Tempo network the escrow is a precompile at
// 0x4d50500000000000000000000000000000000000; the devnet sets this contract's runtime code at that address (anvil
// can set code anywhere), so mppx's session client and server work unmodified. It is not audited.
//
// Two things a precompile gets from the node that a contract cannot see are supplied by the devnet's node front
// (src/devnet/escrow-node.ts) just before it forwards an `open` transaction:
//   - the opening transaction's expiring-nonce hash (keccak256(encodeForSigning(tx) || sender)), which the channel
//     id commits to: written to `openNonceHash[payer]`, consumed by `open`;
//   - the right to move the payer's tokens: the precompile moves TIP-20 without an allowance, a contract needs one,
//     so the node front approves the deposit on the payer's behalf.
//
// Compiled by scripts/build-contracts.mjs into src/devnet/tip20-channel-escrow.json (runtime bytecode).
pragma solidity ^0.8.20;

interface ITIP20 {
    function transfer(address to, uint256 amount) external returns (bool);
    function transferFrom(address from, address to, uint256 amount) external returns (bool);
}

contract TIP20ChannelEscrow {
    struct ChannelDescriptor {
        address payer;
        address payee;
        address operator;
        address token;
        bytes32 salt;
        address authorizedSigner;
        bytes32 expiringNonceHash;
    }

    struct ChannelState {
        uint96 settled;
        uint96 deposit;
        uint32 closeRequestedAt;
    }

    struct Channel {
        ChannelDescriptor descriptor;
        ChannelState state;
    }

    /// Slot 0: the expiring-nonce hash of the payer's pending `open` transaction (written by the devnet's node).
    mapping(address => bytes32) public openNonceHash;
    /// Slot 1: every channel's state, by id. A channel that was closed keeps `finalized` and a zero state.
    mapping(bytes32 => ChannelState) private states;
    /// Slot 2: channels that were closed or withdrawn (their ids cannot be opened again).
    mapping(bytes32 => bool) public finalized;

    uint64 public constant CLOSE_GRACE_PERIOD = 15 minutes;
    bytes32 public constant VOUCHER_TYPEHASH = keccak256("Voucher(bytes32 channelId,uint96 cumulativeAmount)");
    bytes32 private constant DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");
    // secp256k1n / 2: a signature with a larger s is the malleable twin of a canonical one.
    uint256 private constant HALF_N = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0;

    event ChannelOpened(
        bytes32 indexed channelId,
        address indexed payer,
        address indexed payee,
        address operator,
        address token,
        address authorizedSigner,
        bytes32 salt,
        bytes32 expiringNonceHash,
        uint96 deposit
    );
    event Settled(
        bytes32 indexed channelId,
        address indexed payer,
        address indexed payee,
        uint96 cumulativeAmount,
        uint96 deltaPaid,
        uint96 newSettled
    );
    event TopUp(
        bytes32 indexed channelId,
        address indexed payer,
        address indexed payee,
        uint96 additionalDeposit,
        uint96 newDeposit
    );
    event CloseRequested(bytes32 indexed channelId, address indexed payer, address indexed payee, uint256 closeGraceEnd);
    event ChannelClosed(
        bytes32 indexed channelId,
        address indexed payer,
        address indexed payee,
        uint96 settledToPayee,
        uint96 refundedToPayer
    );
    event CloseRequestCancelled(bytes32 indexed channelId, address indexed payer, address indexed payee);

    function domainSeparator() public view returns (bytes32) {
        return keccak256(
            abi.encode(
                DOMAIN_TYPEHASH,
                keccak256("TIP20 Channel Reserve"),
                keccak256("1"),
                block.chainid,
                address(this)
            )
        );
    }

    function computeChannelId(
        address payer,
        address payee,
        address operator,
        address token,
        bytes32 salt,
        address authorizedSigner,
        bytes32 expiringNonceHash
    ) public view returns (bytes32) {
        return keccak256(
            abi.encode(
                payer,
                payee,
                operator,
                token,
                salt,
                authorizedSigner,
                expiringNonceHash,
                address(this),
                block.chainid
            )
        );
    }

    function getVoucherDigest(bytes32 channelId, uint96 cumulativeAmount) public view returns (bytes32) {
        bytes32 structHash = keccak256(abi.encode(VOUCHER_TYPEHASH, channelId, cumulativeAmount));
        return keccak256(abi.encodePacked("\x19\x01", domainSeparator(), structHash));
    }

    function open(
        address payee,
        address operator,
        address token,
        uint96 deposit,
        bytes32 salt,
        address authorizedSigner
    ) external returns (bytes32 channelId) {
        bytes32 nonceHash = openNonceHash[msg.sender];
        require(nonceHash != bytes32(0), "open must be the call of a Tempo transaction");
        delete openNonceHash[msg.sender];
        require(payee != address(0), "payee is zero");
        require(deposit > 0, "deposit is zero");
        channelId = computeChannelId(msg.sender, payee, operator, token, salt, authorizedSigner, nonceHash);
        require(states[channelId].deposit == 0 && !finalized[channelId], "channel exists");
        states[channelId] = ChannelState({settled: 0, deposit: deposit, closeRequestedAt: 0});
        require(ITIP20(token).transferFrom(msg.sender, address(this), deposit), "deposit transfer failed");
        emit ChannelOpened(channelId, msg.sender, payee, operator, token, authorizedSigner, salt, nonceHash, deposit);
    }

    function settle(ChannelDescriptor calldata d, uint96 cumulativeAmount, bytes calldata signature) external {
        bytes32 id = _idOf(d);
        ChannelState storage s = _live(id);
        require(msg.sender == d.payee || (d.operator != address(0) && msg.sender == d.operator), "only payee or operator");
        require(cumulativeAmount > s.settled, "voucher not above settled");
        require(cumulativeAmount <= s.deposit, "voucher exceeds deposit");
        _checkVoucher(d, id, cumulativeAmount, signature);
        uint96 delta = cumulativeAmount - s.settled;
        s.settled = cumulativeAmount;
        require(ITIP20(d.token).transfer(d.payee, delta), "payee transfer failed");
        emit Settled(id, d.payer, d.payee, cumulativeAmount, delta, cumulativeAmount);
    }

    function topUp(ChannelDescriptor calldata d, uint96 additionalDeposit) external {
        bytes32 id = _idOf(d);
        ChannelState storage s = _live(id);
        require(msg.sender == d.payer, "only the payer tops up");
        require(additionalDeposit > 0, "top-up is zero");
        s.deposit += additionalDeposit;
        require(ITIP20(d.token).transferFrom(msg.sender, address(this), additionalDeposit), "top-up transfer failed");
        if (s.closeRequestedAt != 0) {
            s.closeRequestedAt = 0;
            emit CloseRequestCancelled(id, d.payer, d.payee);
        }
        emit TopUp(id, d.payer, d.payee, additionalDeposit, s.deposit);
    }

    function close(
        ChannelDescriptor calldata d,
        uint96 cumulativeAmount,
        uint96 captureAmount,
        bytes calldata signature
    ) external {
        bytes32 id = _idOf(d);
        ChannelState memory s = _live(id);
        require(msg.sender == d.payee || (d.operator != address(0) && msg.sender == d.operator), "only payee or operator");
        require(captureAmount >= s.settled, "capture below settled");
        require(captureAmount <= s.deposit, "capture exceeds deposit");
        if (captureAmount > s.settled) {
            require(captureAmount <= cumulativeAmount, "capture exceeds voucher");
            _checkVoucher(d, id, cumulativeAmount, signature);
        }
        _finalize(id, d, captureAmount - s.settled, s.deposit - captureAmount);
    }

    function requestClose(ChannelDescriptor calldata d) external {
        bytes32 id = _idOf(d);
        ChannelState storage s = _live(id);
        require(msg.sender == d.payer, "only the payer requests a close");
        if (s.closeRequestedAt == 0) s.closeRequestedAt = uint32(block.timestamp);
        emit CloseRequested(id, d.payer, d.payee, uint256(s.closeRequestedAt) + CLOSE_GRACE_PERIOD);
    }

    function withdraw(ChannelDescriptor calldata d) external {
        bytes32 id = _idOf(d);
        ChannelState memory s = _live(id);
        require(msg.sender == d.payer, "only the payer withdraws");
        require(s.closeRequestedAt != 0, "no close requested");
        require(block.timestamp >= uint256(s.closeRequestedAt) + CLOSE_GRACE_PERIOD, "grace period not over");
        _finalize(id, d, 0, s.deposit - s.settled);
    }

    function getChannel(ChannelDescriptor calldata d) external view returns (Channel memory) {
        return Channel({descriptor: d, state: states[_idOf(d)]});
    }

    function getChannelState(bytes32 channelId) external view returns (ChannelState memory) {
        return states[channelId];
    }

    function getChannelStatesBatch(bytes32[] calldata channelIds) external view returns (ChannelState[] memory out) {
        out = new ChannelState[](channelIds.length);
        for (uint256 i = 0; i < channelIds.length; i++) out[i] = states[channelIds[i]];
    }

    function _idOf(ChannelDescriptor calldata d) private view returns (bytes32) {
        return computeChannelId(d.payer, d.payee, d.operator, d.token, d.salt, d.authorizedSigner, d.expiringNonceHash);
    }

    function _live(bytes32 id) private view returns (ChannelState storage s) {
        s = states[id];
        require(s.deposit != 0, "channel not found");
    }

    function _finalize(bytes32 id, ChannelDescriptor calldata d, uint96 toPayee, uint96 toPayer) private {
        delete states[id];
        finalized[id] = true;
        if (toPayee > 0) require(ITIP20(d.token).transfer(d.payee, toPayee), "payee transfer failed");
        if (toPayer > 0) require(ITIP20(d.token).transfer(d.payer, toPayer), "refund transfer failed");
        emit ChannelClosed(id, d.payer, d.payee, toPayee, toPayer);
    }

    function _checkVoucher(ChannelDescriptor calldata d, bytes32 id, uint96 cumulativeAmount, bytes calldata sig)
        private
        view
    {
        require(sig.length == 65, "signature must be 65 bytes");
        bytes32 r = bytes32(sig[0:32]);
        bytes32 s = bytes32(sig[32:64]);
        uint8 v = uint8(sig[64]);
        if (v < 27) v += 27;
        require(uint256(s) <= HALF_N, "signature s is not low");
        address signer = ecrecover(getVoucherDigest(id, cumulativeAmount), v, r, s);
        address expected = d.authorizedSigner == address(0) ? d.payer : d.authorizedSigner;
        require(signer != address(0) && signer == expected, "voucher signature invalid");
    }
}
