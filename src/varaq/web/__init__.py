"""The web table: an ASGI app (:mod:`.app`), the ``varaq serve`` command (:mod:`.serve`) and
the browser client's static files (``static/``)."""
