"""Stage 1, load: read YAML files into plain data that remembers where each value came from."""

from gengpu.loading.source import Document, load_documents, load_embedded, load_file

__all__ = ["Document", "load_documents", "load_embedded", "load_file"]
