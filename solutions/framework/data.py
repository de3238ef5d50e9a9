"""Placeholder, being written."""
