# contrib: filled in by its owner
