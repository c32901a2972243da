"""crypto"""
