# tests: format
