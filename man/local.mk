# man: filled in by its owner
