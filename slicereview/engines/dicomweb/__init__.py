"""DICOMweb: talk to a PACS (QIDO-RS search, WADO-RS retrieve, STOW-RS store), treating every
answer as untrusted input.

* :mod:`.http` — a ``requests`` session whose every answer is bounded: a connect and a read
  time-out and a deadline for the whole answer, a size cap checked against ``Content-Length``
  before reading and while reading, the content type checked against what was asked for,
  redirects followed only on the same server; each failure is a :class:`.errors.DicomwebError`
  with one plain sentence;
* :mod:`.multipart` — a streaming ``multipart/related`` reader that writes each part to a file
  under a cap and refuses a body without its closing delimiter (the client library's own
  reader returns a truncated body as if it were whole);
* :mod:`.client` — :class:`~.client.Server`: study, series and instance lists, retrieving one
  instance into a file, storing objects one at a time (dicomweb-client under the bounded
  session);
* :mod:`.cache` — the bounded pixel cache under the user cache folder and
  :class:`~.cache.RemoteInstance`, the path-like reference the viewer and the decoding child
  use: a missing cache file is fetched again in the decoding child.

No project, no Qt: values in, values out. Credentials are values passed in, never stored.
"""
