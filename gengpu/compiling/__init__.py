"""Stage 3, compile: a checked profile becomes the files of its overlay."""

from gengpu.compiling.overlay import compile_overlay

__all__ = ["compile_overlay"]
