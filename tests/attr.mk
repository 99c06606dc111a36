# tests: attr
