"""Stage 1, load: read YAML files into plain data that remembers where each value came from."""

_SOURCE = {"Document", "load_bytes", "load_documents", "load_file"}


def __getattr__(name):
    # The YAML loader loads on first use: a run answered from the cache reads bytes, never YAML.
    if name in _SOURCE:
        from gengpu.loading import source

        return getattr(source, name)
    if name == "load_embedded":
        from gengpu.loading.embedded import load_embedded

        return load_embedded
    if name == "load_json_fast":
        from gengpu.loading.fast import load_json_fast

        return load_json_fast
    if name == "read_bytes":
        from gengpu.loading.reading import read_bytes

        return read_bytes
    raise AttributeError(name)


__all__ = sorted(_SOURCE | {"read_bytes", "load_json_fast", "load_embedded"})
