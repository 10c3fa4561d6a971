// SPDX-License-Identifier: Apache-2.0
pragma solidity 0.8.37;

/// A Chainlink-style aggregator whose rounds a test sets (AggregatorV3Interface's read side).
contract MockAggregator {
    struct Round {
        int256 answer;
        uint256 updatedAt;
    }

    uint8 public immutable decimals;
    uint80 public latestRound;
    bool public failing;
    mapping(uint80 => Round) private rounds;

    constructor(uint8 decimals_) {
        decimals = decimals_;
    }

    function setRound(uint80 roundId, int256 answer, uint256 updatedAt) external {
        rounds[roundId] = Round(answer, updatedAt);
        latestRound = roundId;
    }

    /// Makes latestRoundData revert, as a paused or broken feed does.
    function setFailing(bool failing_) external {
        failing = failing_;
    }

    function latestRoundData() external view returns (uint80, int256, uint256, uint256, uint80) {
        require(!failing, "aggregator down");
        Round memory r = rounds[latestRound];
        return (latestRound, r.answer, r.updatedAt, r.updatedAt, latestRound);
    }
}

/// Some other contract, for reading the wrong address: it has neither decimals nor latestRoundData.
contract NotAnAggregator {
    uint256 public value = 42;
}
