"""Benchmarks: scripts that print one line per figure, ``name: value unit`` (run ``python bench/NAME.py``)."""
