# tests: export
