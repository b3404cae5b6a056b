"""The demo project and the simulated people in it: raters, annotators, a reviewer.

Everything here is for trying slicereview without data of one's own (``slicereview demo``) and
for tests and benchmarks that need simulated work: :mod:`.project` builds the demo project,
:mod:`.ratings`, :mod:`.annotations`, :mod:`.review` and :mod:`.workflow` fill it through the
application layer, :mod:`.raters` and :mod:`.annotators` simulate people, :mod:`.motion`
simulates MRI motion artifacts. It sits above :mod:`slicereview.app`: the engines and the
application layer never import it (an import-linter contract).
"""
