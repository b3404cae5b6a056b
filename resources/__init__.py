"""Application resources (icon, stylesheet), shipped in the wheel as ``slicereview.resources``.

Find them with :func:`slicereview.app.resources.resource_path` (``importlib.resources``), never
with paths relative to the source tree.
"""
