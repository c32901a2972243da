"""node/methods"""
