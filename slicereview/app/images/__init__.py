"""The project's image files: importing them, relinking moved ones, and the limits within
which (and the process in which) they are decoded."""
