"""Stage 2, check profile: JSON Schema first, then the capability rules."""
