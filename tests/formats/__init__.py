"""Tests for snowfield.formats."""
