"""The passport inspector page: /ui, server-rendered HTML with a little script."""
