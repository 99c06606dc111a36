# tests: service
