"""The Review tab: the ranked queue, every annotator's outlines, decisions and pins, side-by-side
panes and consensus layers."""
