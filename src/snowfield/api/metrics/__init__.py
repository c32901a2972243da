"""The metrics service: its operations, parameters and OpenAPI document."""
