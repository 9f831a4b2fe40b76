"""Stage 3, compile: a checked profile becomes the files of its overlay."""


def __getattr__(name):
    # The compiler loads on first use: a build answered from the cache never imports it.
    if name == "compile_overlay":
        from gengpu.compiling.overlay import compile_overlay

        return compile_overlay
    raise AttributeError(name)


__all__ = ["compile_overlay"]
