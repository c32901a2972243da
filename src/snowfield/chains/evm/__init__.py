"""chains/evm"""
