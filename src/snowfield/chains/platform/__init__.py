"""The P-Chain (platformvm) state machine: UTXOs, Etna fees, staking, subnets, L1s, blocks.

No HTTP, SQL or threads: the node's services and runtime drive it. Public API (for platform.*):

- `PlatformChain.from_genesis(GenesisConfig, SharedMemory)`; `genesis.GenesisConfig` with
  `Allocation`, `InitialStaker`, `GenesisChain` (X/C CreateChainTxs; AVAX asset id is an input).
- Writing: `issue(tx_bytes) -> txID` (verify against the current state, queue; InvalidParams /
  Conflict with avalanchego's wording, nothing changes on rejection); `build_block(now)` (network
  time in unix seconds) → the `AcceptedBlock`s (id, height, time, bytes) it built and accepted:
  reward proposals + commit/abort options for stakers whose end passed, standard blocks moving
  time to each staker change, then one standard block with the mempool's txs; `apply_block(bytes)`
  replays a journaled block deterministically (rebuild after kill -9: genesis + every block);
  `observed_uptime` (the node's view of its validators: a stopped one gets no reward).
- Reading: `utxos(addresses, start, limit)` (paged by (address, utxoID)), `atomic_utxos(source,
  addresses, ...)`, `balance(addresses)` (unlocked / locked_stakeable / locked_not_stakeable),
  `tx(id)`, `tx_status(id)` (Committed/Aborted/Processing/Dropped+reason/Unknown),
  `current_validators(subnet, node_ids)` (potential reward, delegators, uptime),
  `validators_at(height, subnet)`, `subnets()`, `subnet(id)`,
  `blockchains()`, `l1_validator(id)`, `l1_validators(subnet)`, `fee_config`, `fee_state`
  (state, price), `validator_fee_state`, `current_supply`, `height`,
  `timestamp`, `last_accepted_id`, `stake_of(addresses)`, `reward_utxos(staker_tx_id)`, `blocks`.

Modules: config (network parameters), gas + complexity (Etna fees), utxos + spend (ownership,
locks, flow), stakers, records, state, rewards, executor/ (one registration per tx type),
timeflow (time advance, L1 fee burn), staking_end (rewards), blocks (acceptance), genesis,
queries, chain. Atomic memory shared with X and C lives in `snowfield.chains.atomic`, and
signature checks (secp256k1fx) in `snowfield.chains.secp256k1fx`.
"""
