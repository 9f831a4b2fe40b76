"""The flows of gengpu, one module each, every one reading top to bottom as its stages:

- profiles.py: finding, reading and checking profiles (every flow starts here)
- build.py: gengpu build (compile and write overlays)
- validate.py: gengpu validate (profiles, files, rendered overlays)
- state.py: a running cluster's state and the profile it belongs to (check and rightsize)
- check.py: gengpu check (the live rules)
- rightsize.py: gengpu rightsize (metrics -> sizing -> proposal -> optional write)
- init.py: gengpu init (a scaffold built and checked in a scratch folder before anything is written)

The CLI (gengpu/cli/) only parses options, calls one of these and hands the result to gengpu/reporting/.
The stages load on first use (imports inside the functions): a run answered from the cache imports none of them.
"""
