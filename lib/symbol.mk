# Symbolization (owned by the analysis work).
