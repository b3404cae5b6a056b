"""Widgets and helpers several pages use: the image view with window/level, polygon items, the
project browser, background tasks and workers, the active-time clock, the decoded-image cache and
prefetch, user settings and the table of keys."""
