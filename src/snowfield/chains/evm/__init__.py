"""EVM chains (the C-Chain and custom EVM L1s): state machines, no HTTP, SQL or threads.

`chain.EvmChain` is the one object the node uses, a façade over four parts, as py-evm and reth
divide a chain:

- history: accepted blocks, the tx index, the head's state; journal replay (records).
- production: the mempool (admission checks in admission, the pool in mempool), blocks built
  from it and accepted; owns the locks.
- calls: call, estimate, access list, trace and simulate (simulation) over `view.ChainView`,
  a read-only view of the history.
- devcontrols: cheat codes (clock, next-block parameters, state edits, rewind); snapshots
  builds evm_snapshot/evm_revert on the façade.

Below them: environment (the BlockEnv a block or call runs in), headers, genesis (ChainConfig,
allocation), rules/ (a rule set per chain kind: cchain, subnetevm; chosen by whoever builds the
chain), precompiles/ (a fixed table in registry), warp, atomic (the C-Chain's atomic txs),
fees and feeconfig, customgenesis, model (value objects), execution/ (the only package that
imports the EVM library).
"""
