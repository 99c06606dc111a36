# tests: daemon
