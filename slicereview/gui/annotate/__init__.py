"""The Annotate tab: drawing certain/uncertain polygons, the side panel (who, status, time,
classification questions, repeats, returned work) and the guideline notice."""
