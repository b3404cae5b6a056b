"""The project model (placeholder while it is written)."""
