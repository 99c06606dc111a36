# tests: analysis
