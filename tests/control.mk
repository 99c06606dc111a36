# tests: control
